"""The anchor map: the contract between the crawler and everything downstream.

An anchor map lists, for one site, every canonical page with its aliases, its valid fragments (``id`` attributes
and ``<a name>``, or an app's hash routes: :attr:`Page.routes`), and its section outline. It is deterministic and
diffable: the same site crawled twice serialises to identical bytes apart from ``crawled_at``. Section *texts* are
not part of the map; they live in the data directory (see :class:`SectionText`), and so do the pages' visible texts
that text directives are checked against (:class:`PageText`).
"""

from __future__ import annotations

import json
import os
import secrets
import stat
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

import orjson

from crawlers.errors import AnchorMapError
from crawlers.page_text import PageText as PageText  # read from here too, beside the other crawl records
from crawlers.sitenames import check_site_name, map_sites
from crawlers.urls import normalize, split_fragment

FORMAT_VERSION = 1


class SourceType(StrEnum):
    """What kind of documentation a page is; every output groups references in this order.

    Grouping (:data:`docbot.answer.GROUP_ORDER`) and the ranker's one-hot features
    (:data:`docbot.retrieval.features.SOURCE_TYPES`) derive from it; adding a type means refitting the ranker
    (``tests/docbot/test_source_types.py`` says so).
    """

    API_REFERENCE = "API reference"
    GUIDES = "Guides"
    TUTORIALS = "Tutorials"
    EXAMPLES = "Examples"
    FAQ = "FAQ"
    RELEASE_NOTES = "Release notes"
    OTHER = "Other"  # indexes, search and error pages, navigation, all-in-one copies of other pages


SOURCE_TYPES: tuple[SourceType, ...] = tuple(SourceType)  # what a per-site rule may name


@dataclass(frozen=True, slots=True)
class Section:
    """One heading or API/definition entry of a page.

    ``anchor`` is an id that exists in the page (or ``None`` when the heading
    has none); ``path`` holds the titles from the page title down to and
    including this section; ``kind`` is ``"heading"``, ``"api"`` or ``"anchor"`` (an anchor the page links to,
    not a heading: :mod:`crawlers.parse.anchor_sections`).
    """

    anchor: str | None
    title: str
    level: int
    path: tuple[str, ...]
    kind: str = "heading"

    def to_json(self) -> dict[str, Any]:
        return {
            "anchor": self.anchor,
            "title": self.title,
            "level": self.level,
            "path": list(self.path),
            "kind": self.kind,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Section:
        return cls(data.get("anchor"), data["title"], int(data["level"]), tuple(data.get("path", ())),
                   data.get("kind", "heading"))


@dataclass(frozen=True, slots=True)
class Page:
    """A canonical page of a site and everything a link to it may target."""

    url: str
    title: str
    source_type: str = SourceType.OTHER
    aliases: tuple[str, ...] = ()
    anchors: tuple[str, ...] = ()
    sections: tuple[Section, ...] = ()
    etag: str | None = None
    last_modified: str | None = None
    content_hash: str | None = None
    stale: bool = False  # last-known-good entry kept after a failed fetch
    links: tuple[str, ...] | None = None  # in-scope pages it links to (None: unknown, from an older map)
    # Its anchors other pages link to, outside its heading and API entry anchors: its sections were split at them
    # (crawlers.crawl.cross_links), and are split again when the crawl finds another set.
    linked: tuple[str, ...] = ()
    routes: str | None = None  # its anchors are an app's hash routes, in this form (#/<page>?id=<heading-id>)
    sources: tuple[str, ...] = ()  # the files a rendered app's page loaded, read again to tell a change (etag: docbot's)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "title": self.title,
            "source_type": self.source_type,
            "aliases": sorted(set(self.aliases)),
            "etag": self.etag,
            "last_modified": self.last_modified,
            "content_hash": self.content_hash,
            "anchors": sorted(set(self.anchors)),
            "sections": [s.to_json() for s in self.sections],
        }
        if self.links is not None:
            data["links"] = sorted(set(self.links))
        if self.linked:
            data["linked"] = sorted(set(self.linked))
        if self.stale:
            data["stale"] = True
        if self.routes:
            data["routes"] = self.routes
        if self.sources:
            data["sources"] = list(self.sources)
        return data

    @classmethod
    def from_json(cls, url: str, data: dict[str, Any]) -> Page:
        return cls(
            url=url,
            title=data.get("title", ""),
            source_type=data.get("source_type", SourceType.OTHER),
            aliases=tuple(data.get("aliases", ())),
            anchors=tuple(data.get("anchors", ())),
            sections=tuple(Section.from_json(s) for s in data.get("sections", ())),
            etag=data.get("etag"),
            last_modified=data.get("last_modified"),
            content_hash=data.get("content_hash"),
            stale=bool(data.get("stale", False)),
            links=tuple(data["links"]) if "links" in data else None,
            linked=tuple(data.get("linked", ())),
            routes=data.get("routes"),
            sources=tuple(data.get("sources", ())),
        )


@dataclass(frozen=True, slots=True)
class Rename:
    """An anchor that disappeared from a page while an equivalent appeared."""

    url: str
    old: str
    new: str
    seen_at: str  # crawl timestamp (ISO 8601) when the rename was detected

    def to_json(self) -> dict[str, str]:
        return {"url": self.url, "old": self.old, "new": self.new, "seen_at": self.seen_at}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Rename:
        return cls(url=data["url"], old=data["old"], new=data["new"], seen_at=data.get("seen_at", ""))


@dataclass(frozen=True, slots=True)
class SectionText:
    """Clean text of one section, stored in the data dir beside the map.

    File: ``sections.jsonl`` in each of the site's generations, one JSON object per line,
    in page order then document order. ``anchor`` is the section's own anchor
    or ``None``; ``text`` keeps code blocks intact (fenced with ```).
    """

    site: str
    url: str
    anchor: str | None
    title: str
    level: int
    path: tuple[str, ...]
    source_type: str
    text: str
    kind: str = "heading"

    def to_json(self) -> dict[str, Any]:
        return {"site": self.site, "url": self.url, "anchor": self.anchor, "title": self.title, "level": self.level,
                "path": list(self.path), "source_type": self.source_type, "kind": self.kind, "text": self.text}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SectionText:
        get = data.get  # positional and bound once: a recrawl loads every section of the site
        return cls(data["site"], data["url"], get("anchor"), get("title", ""), int(get("level", 1)),
                   tuple(get("path", ())), get("source_type", SourceType.OTHER), get("text", ""), get("kind", "heading"))


@dataclass(frozen=True, slots=True)
class Mention:
    """What one page (``source``) says about a section it links to (:mod:`crawlers.parse.mentions`): the canonical
    ``target`` page, the link's ``fragment`` as written, the anchor of the ``section`` it lands in (None: the
    page's top), the link's words and the sentence around them. File: ``mentions.jsonl`` in a generation
    (:func:`crawlers.texts.write_mentions`)."""

    source: str
    target: str
    fragment: str | None
    section: str | None
    text: str
    context: str = ""

    def to_json(self) -> list[Any]:
        return [self.source, self.target, self.fragment, self.section, self.text, self.context]


@dataclass(slots=True)
class AnchorMap:
    """Every valid fragment of every page of one site, plus its rename history."""

    site: str
    base_url: str
    crawled_at: str = ""
    pages: dict[str, Page] = field(default_factory=dict)
    renames: list[Rename] = field(default_factory=list)
    version: int = FORMAT_VERSION
    extractor: int = 0  # crawlers.parse.extract.EXTRACTOR_VERSION of the crawl that wrote it (0: older than the field)
    _alias_index: dict[str, str] = field(default_factory=dict, repr=False)
    _anchor_sets: dict[str, frozenset[str]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.reindex()

    # -- lookup ---------------------------------------------------------
    def reindex(self) -> None:
        """Rebuild the alias and anchor lookup tables after editing ``pages``."""
        self._alias_index = {}
        self._anchor_sets = {}
        for url, page in self.pages.items():
            self._alias_index[normalize(url)] = url
            for alias in page.aliases:
                self._alias_index.setdefault(normalize(alias), url)
            self._anchor_sets[url] = frozenset(page.anchors)

    def canonical(self, url: str) -> str | None:
        """The canonical page URL for ``url`` or any of its aliases, or ``None``."""
        found = self._alias_index.get(url)  # already in normal form (normalize is idempotent): no parsing
        if found is not None:
            return found
        page_url, _ = split_fragment(url)
        try:
            key = normalize(page_url)
        except ValueError:
            return None
        return self._alias_index.get(key)

    def page(self, url: str) -> Page | None:
        """The page that ``url`` (any alias, fragment ignored) points at."""
        canonical = self.canonical(url)
        return self.pages.get(canonical) if canonical else None

    def anchors(self, url: str) -> frozenset[str]:
        canonical = self.canonical(url)
        return self._anchor_sets.get(canonical, frozenset()) if canonical else frozenset()

    def has_anchor(self, url: str, fragment: str | None = None) -> bool:
        """True when the page exists and the fragment (case-sensitive) is one of its anchors.

        ``fragment`` defaults to the fragment of ``url``; an empty fragment
        and ``top`` count as the page itself.
        """
        if fragment is None:
            _, fragment = split_fragment(url)
        canonical = self.canonical(url)
        if canonical is None:
            return False
        if not fragment or fragment == "top":
            return True
        return fragment in self._anchor_sets[canonical]

    def anchor_count(self) -> int:
        return sum(len(s) for s in self._anchor_sets.values())

    def section_count(self) -> int:
        return sum(len(p.sections) for p in self.pages.values())

    # -- (de)serialisation ------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "format_version": self.version,
            "site": self.site,
            "base_url": self.base_url,
            "crawled_at": self.crawled_at,
            "extractor": self.extractor,
            "pages": {url: self.pages[url].to_json() for url in sorted(self.pages)},
            "renames": [
                r.to_json()
                for r in sorted(self.renames, key=lambda r: (r.url, r.old, r.new, r.seen_at))
            ],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AnchorMap:
        version = data.get("format_version")
        if version != FORMAT_VERSION:
            raise AnchorMapError(
                f"anchor map format {version!r} is not supported (expected {FORMAT_VERSION}); "
                "re-run `docbot crawl` for this site"
            )
        pages = {url: Page.from_json(url, p) for url, p in data.get("pages", {}).items()}
        return cls(
            site=data["site"],
            base_url=data["base_url"],
            crawled_at=data.get("crawled_at", ""),
            extractor=int(data.get("extractor", 0)),
            pages=pages,
            renames=[Rename.from_json(r) for r in data.get("renames", ())],
        )

    def dumps(self) -> str:
        return _dumps(self.to_json(), indent=True) + "\n"

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> AnchorMap:
        """Load a map written by :meth:`save`; raises :class:`AnchorMapError` with a next step."""
        p = Path(path)
        try:
            raw = p.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise AnchorMapError(
                f"No anchor map at {p} — run `docbot crawl URL --site {p.stem}` first"
            ) from None
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise AnchorMapError(f"Anchor map {p} is not valid JSON ({exc}); re-run `docbot crawl`") from None
        return cls.from_json(data)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write atomically: a crawl killed mid-write never leaves a half-written map."""
        write_atomic(Path(path), self.dumps())


def _dumps(data: Any, indent: bool = False) -> str:
    """JSON text, UTF-8 as is; orjson (its C encoder is ~20x faster than json's indenting one), json as the fallback.

    orjson refuses what JSON cannot carry faithfully (lone surrogates, huge ints);
    json writes those as escapes, so nothing is lost either way.
    """
    try:
        return orjson.dumps(data, option=orjson.OPT_INDENT_2 if indent else 0).decode("utf-8")
    except TypeError:  # orjson.JSONEncodeError
        return json.dumps(data, indent=2 if indent else None, ensure_ascii=False,
                          separators=None if indent else (",", ":"))


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and ``os.replace``.

    The file keeps the mode it had, and a new one gets the umask's, as ``open(path, "w")`` would do
    (``mkstemp`` would make every file private).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = _new_temp(path)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _new_temp(path: Path) -> tuple[int, Path]:
    """An exclusive new temp file beside ``path``, with ``path``'s mode when it exists (else the umask's)."""
    while True:
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
        except FileExistsError:
            continue
        try:
            os.fchmod(fd, stat.S_IMODE(path.stat().st_mode))
        except FileNotFoundError:
            pass
        return fd, tmp


def map_path(anchor_maps_dir: str | os.PathLike[str], site: str) -> Path:
    return Path(anchor_maps_dir) / f"{check_site_name(site)}.json"


def load_maps(anchor_maps_dir: str | os.PathLike[str]) -> dict[str, AnchorMap]:
    """site -> AnchorMap for every map in the directory (empty when it does not exist)."""
    return {site: AnchorMap.load(map_path(anchor_maps_dir, site)) for site in map_sites(anchor_maps_dir)}
