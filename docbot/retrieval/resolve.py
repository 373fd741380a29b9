"""Explicit references in a question: a pasted docs URL, an API symbol, a quoted section title.

Pure over the anchor maps (plus the validator, itself pure, to repair pasted
URLs). Each finding is a :class:`Target`: a page and, when known, the section
anchor the question points at.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Protocol

from crawlers.model import AnchorMap, Page, SourceType
from crawlers.urls import split_fragment
from docbot.answer import LinkAction, LinkOutcome

MAX_PER_SYMBOL = 2  # an ambiguous name (Response, Session) resolves to at most this many sections
MAX_TARGETS = 4
_URL = re.compile(r"https?://[^\s<>()\[\]{}\"'`|]+", re.I)
# A relative docs path: has a '/' or ends in .html, optionally with '#fragment'
_PATH = re.compile(
    r"(?<![\w/.:#-])((?:[\w.-]+/)+(?:[\w.-]+\.html?)?(?:#[\w.:%-]+)?|[\w.-]+\.html?(?:#[\w.:%-]+)?)(?![\w/])"
)
_DOTTED = re.compile(r"(?<![\w.])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_CAMEL = re.compile(r"(?<![\w.])[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+(?![\w.])")
_UPPER_SNAKE = re.compile(r"(?<![\w.])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?![\w.])")
_BACKTICK = re.compile(r"`([^`\s]{2,80})`")
_QUOTED = re.compile(r"[\"“”„‘’']([^\"“”„‘’'\n]{3,80})[\"“”„‘’']")
_FILE_SUFFIXES = (".html", ".htm", ".py", ".txt", ".json", ".toml", ".cfg", ".ini", ".com", ".org", ".io", ".net", ".md")
_SIGNATURE = re.compile(r"\(.*$")
# A heading names an API symbol only when it is one, whole: "Session.merge()" does, but
# "Session.merge() checks version ids for versioned mappers" (a release note) does not.
_SYMBOL_TITLE = re.compile(r"[\w.]+(?:\([^()]*\))?")
# ... and looks like code: dotted, snake_case, camelCase, or called. A plain word ("slug", a glossary
# term) is a topic, found by retrieval; as a symbol a backticked field name would pin the glossary.
_CODE_LIKE = re.compile(r"[._(]|[a-z][A-Z]")
# DocBook and others number their headings: "11.9. Index-Only Scans", "Chapter 5. Data Definition".
# A title quoted without its number still names the section.
_NUMBERING = re.compile(r"^(?:(?:chapter|part|appendix|section)\s+)?(?:(?:\d+|[ivxlc]+|[a-z])(?:\.\d+)*\.|\d+)\s+", re.I)


class UrlChecker(Protocol):
    def check_url(self, url: str, site: str | None = None) -> LinkOutcome: ...


class ResolvedBy(StrEnum):
    """How an explicit reference was found: a URL in the question, an API name, or a section title it quotes."""

    URL = "url"
    SYMBOL = "symbol"
    TITLE = "title"


@dataclass(frozen=True, slots=True)
class Target:
    """A section (or page, ``anchor=None``) that the question names explicitly."""

    site: str
    url: str  # canonical page URL
    anchor: str | None
    title: str
    path: tuple[str, ...]
    source_type: str
    how: ResolvedBy
    strong: bool = True  # False: a bare CamelCase/UPPER_SNAKE word, which may be mentioned in passing

    @property
    def deep_url(self) -> str:
        return f"{self.url}#{self.anchor}" if self.anchor else self.url


def _target(site: str, page: Page, anchor: str | None, how: ResolvedBy) -> Target:
    for section in page.sections:
        if anchor is not None and section.anchor == anchor:
            return Target(site, page.url, anchor, section.title, section.path, page.source_type, how)
    return Target(site, page.url, anchor, page.title, (page.title,), page.source_type, how)


_KIND_WORDS = frozenset({"class", "interface", "enum", "struct", "union", "namespace", "package", "module",
                         "reference", "annotation", "type", "record", "template", "file"})
_OWNER = re.compile(r"[A-Za-z_][\w]*(?:(?:\.|::)[A-Za-z_]\w*)*")


def _page_symbol(title: str) -> str:
    """The class a page documents, from its title ("Class BooleanUtils", "Json::Value Class Reference"), or ""."""
    words = title.split()
    if not words or not any(w.lower() in _KIND_WORDS for w in words):
        return ""
    for word in words:
        if word.lower() not in _KIND_WORDS and _OWNER.fullmatch(word) and any(c.isupper() for c in word):
            return word.replace("::", ".")
    return ""


def _symbol_keys(name: str) -> list[str]:
    """Dotted suffixes of an API name: flask.Flask.route → flask.Flask.route, Flask.route, route."""
    parts = [p for p in _SIGNATURE.sub("", name).strip().split(".") if p]
    return [".".join(parts[i:]) for i in range(len(parts))]


class Resolver:
    """Finds explicit references against the anchor maps of the indexed sites."""

    def __init__(self, maps: Mapping[str, AnchorMap], validator: UrlChecker) -> None:
        self.maps = dict(maps)
        self.validator = validator
        self._symbols: dict[str, dict[str, list[tuple[int, str, str | None]]]] = {}
        self._titles: dict[str, dict[str, list[tuple[str, str | None]]]] = {}

    def _defining_pages(self, site: str) -> list[Page]:
        """The pages an API name or a quoted title may name: not an index, a table of contents or an all-in-one
        copy of other pages (the crawler's "Other")."""
        return [page for page in self.maps[site].pages.values() if page.source_type != SourceType.OTHER]

    def _symbol_table(self, site: str) -> dict[str, list[tuple[int, str, str | None]]]:
        """name suffix → [(specificity, page url, anchor)] for API entries and identifier-like headings."""
        if site not in self._symbols:
            table: dict[str, list[tuple[int, str, str | None]]] = {}
            for page in self._defining_pages(site):
                owner = _page_symbol(page.title)
                for section in page.sections:
                    api = section.kind == "api"
                    names = {section.anchor or "", section.title} if api else {section.title}
                    if api and owner:  # Javadoc's "toBoolean" on the page of class BooleanUtils: BooleanUtils.toBoolean
                        names |= {f"{owner}.{n}" for n in names if n and "." not in _SIGNATURE.sub("", n)}
                    for name in names:
                        if not name or " " in _SIGNATURE.sub("", name).strip():
                            continue
                        if not api and not (_SYMBOL_TITLE.fullmatch(name.strip()) and _CODE_LIKE.search(name)):
                            continue
                        keys = _symbol_keys(name)
                        for depth, key in enumerate(keys):
                            table.setdefault(key, []).append((depth, page.url, section.anchor))
            self._symbols[site] = table
        return self._symbols[site]

    def _title_table(self, site: str) -> dict[str, list[tuple[str, str | None]]]:
        if site not in self._titles:
            table: dict[str, list[tuple[str, str | None]]] = {}
            for page in self._defining_pages(site):
                entries = [(page.title, None)] + [(section.title, section.anchor) for section in page.sections]
                for title, anchor in entries:
                    key = " ".join(title.lower().split())
                    for k in dict.fromkeys((key, _NUMBERING.sub("", key))):
                        if k:
                            table.setdefault(k, []).append((page.url, anchor))
            self._titles[site] = table
        return self._titles[site]

    def resolve(self, question: str, sites: Sequence[str]) -> list[Target]:
        """Explicit targets in the order they appear: URLs, then symbols, then quoted titles."""
        sites = [s for s in sites if s in self.maps]
        found: list[Target] = []
        for target in self._urls(question, sites) + self._symbols_in(question, sites) + self._quoted(question, sites):
            if all(t.deep_url != target.deep_url for t in found):
                found.append(target)
        return found[:MAX_TARGETS]

    # -- pasted URLs ------------------------------------------------------
    def _urls(self, question: str, sites: Sequence[str]) -> list[Target]:
        out: list[Target] = []
        absolute = [m.group(0).rstrip(".,;:!?") for m in _URL.finditer(question)]
        rest = _URL.sub(" ", question)
        relative = [m.group(1).rstrip(".,;:!?") for m in _PATH.finditer(rest)]
        for raw in absolute + relative:
            target = self._url_target(raw, sites, relative=raw not in absolute)
            if target is not None:
                out.append(target)
        return out

    def _url_target(self, raw: str, sites: Sequence[str], relative: bool) -> Target | None:
        best: Target | None = None
        for site in sites if relative else [None]:
            outcome = self.validator.check_url(raw, site)
            if outcome.output is None or outcome.action == LinkAction.LINK_DROPPED:
                continue
            for name in ([site] if site else sites):
                page = self.maps[name].page(outcome.output)
                if page is None:
                    continue
                _, fragment = split_fragment(outcome.output)
                target = _target(name, page, fragment or None, ResolvedBy.URL)
                if target.anchor is not None:
                    return target
                best = best or target
        return best

    # -- API symbols ------------------------------------------------------
    def _symbols_in(self, question: str, sites: Sequence[str]) -> list[Target]:
        text = _URL.sub(" ", question).replace("::", ".")  # C++'s Json::Value::size is Json.Value.size
        quoted = {m.group(1).strip("()`.") for m in _BACKTICK.finditer(text)}
        names: list[str] = list(quoted)
        for pattern in (_DOTTED, _CAMEL, _UPPER_SNAKE):
            names.extend(m.group(0) for m in pattern.finditer(text))
        out: list[Target] = []
        for name in dict.fromkeys(n.strip("()`.") for n in names):
            if not name or name.lower().endswith(_FILE_SUFFIXES) or "/" in name:
                continue
            strong = "." in name or name in quoted
            out.extend(replace(t, strong=strong) for t in self._symbol_targets(name, sites))
        return out

    def _symbol_targets(self, name: str, sites: Sequence[str]) -> list[Target]:
        exact: list[tuple[int, str, str, str | None]] = []
        folded: list[tuple[int, str, str, str | None]] = []
        for site in sites:
            table = self._symbol_table(site)
            exact.extend((d, site, u, a) for d, u, a in table.get(name, ()))
            if not exact and any(c.isupper() for c in name):  # QuerySet vs queryset; never request.x → Request.x
                lowered = name.lower()
                folded.extend((d, site, u, a) for key, rows in table.items() if key.lower() == lowered for d, u, a in rows)
        rows = sorted(exact or folded, key=lambda r: r[0])  # fully qualified matches first
        out: list[Target] = []
        for _, site, url, anchor in rows:
            target = _target(site, self.maps[site].pages[url], anchor, ResolvedBy.SYMBOL)
            if all(t.deep_url != target.deep_url for t in out):
                out.append(target)
            if len(out) >= MAX_PER_SYMBOL:
                break
        return out

    # -- quoted section titles ------------------------------------------
    def _quoted(self, question: str, sites: Sequence[str]) -> list[Target]:
        out: list[Target] = []
        for match in _QUOTED.finditer(question):
            key = " ".join(match.group(1).lower().split())
            strong = " " in key  # one quoted word ('"type": "click"') is more often data than a section's title
            for site in sites:
                for url, anchor in self._title_table(site).get(key, ())[:MAX_PER_SYMBOL]:
                    out.append(replace(_target(site, self.maps[site].pages[url], anchor, ResolvedBy.TITLE), strong=strong))
        return out


def explicit_site(question: str, targets: Sequence[Target]) -> str | None:
    """With several sites, the one to answer from: that of a pasted link or of an API name written out
    in full (``flask.Flask.route``); None leaves it to the best section (and the question may be ambiguous).

    The rest of the pipeline then works as for one site, with that site's own rankings and word
    statistics: BM25 scores of different sites' indexes are not comparable, the gate was calibrated
    one site at a time, and an answer drawn from one documentation set stays coherent. A name that
    only ends another site's symbol (``json.dumps`` in ``flask.json.dumps``) does not choose.
    """
    for target in targets:
        if target.how == ResolvedBy.URL:
            return target.site
    for target in targets:
        if target.how == ResolvedBy.SYMBOL and target.anchor and "." in target.anchor and target.anchor in question:
            return target.site
    return None
