"""Find the intended target of a broken link: fragment repair on a page, across the site, and page-path repair.

Pure functions over an :class:`~crawlers.model.AnchorMap`. Evidence is tried in a fixed order (exact, case,
slug style, rename history, paraphrase, transplanted fragment, ranked headings, dead page path); precision beats
recall, so anything ambiguous is left unrepaired. One page's evidence is :mod:`docbot.references.fragments`.
"""

from __future__ import annotations

import difflib
import re
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

from crawlers.model import AnchorMap
from docbot.references.fragments import Match, PageIndex, other_form, paraphrase, pick, slug_keys
from docbot.references.headings import PageRanker, decide, settle
from docbot.text.lexicon import API_ID as _API_ID
from docbot.text.lexicon import is_generated

MAX_RENAME_CHAIN = 8
MAX_TRANSPLANT_PAGES = 3  # an exact id on more other pages than this is too generic to pick one
_VERSION_SEGMENT = re.compile(r"^(?:en|latest|stable|dev|devel|master|main|current|v?\d+(?:\.\d+)*(?:\.x)?)$", re.I)
_ALT_EXTENSIONS = (".htm", ".md", ".rst", ".txt", ".php", ".xhtml")


@dataclass(slots=True)
class SiteIndex:
    """Per-map indexes (pages, renames, fragment → pages, page paths), each built lazily and cached."""

    amap: AnchorMap
    _pages: dict[str, PageIndex] = field(default_factory=dict)
    _renames: dict[tuple[str, str], tuple[str, str]] | None = None
    _sitewide: tuple[dict[str, list[tuple[str, str]]], ...] | None = None
    _paths_lower: dict[str, str] | None = None
    _rankers: dict[str, PageRanker] = field(default_factory=dict)

    def canonical(self, normalized: str) -> str | None:
        """Canonical page for an already-normalised page URL (skips a second ``normalize``)."""
        return self.amap._alias_index.get(normalized)

    def page(self, url: str) -> PageIndex:
        index = self._pages.get(url)
        if index is None:
            index = self._pages[url] = PageIndex.build(self.amap.pages[url])
        return index

    def ranker(self, url: str) -> PageRanker:
        ranker = self._rankers.get(url)
        if ranker is None:
            ranker = self._rankers[url] = PageRanker(self.amap.pages[url])
        return ranker

    def renames(self) -> dict[tuple[str, str], tuple[str, str]]:
        if self._renames is None:
            table: dict[tuple[str, str], tuple[str, str]] = {}
            for r in sorted(self.amap.renames, key=lambda r: r.seen_at):
                canonical = self.amap.canonical(r.url) or r.url
                table[(canonical, r.old)] = (r.new, r.seen_at)
            self._renames = table
        return self._renames

    def sitewide(self) -> tuple[dict[str, list[tuple[str, str]]], ...]:
        """(exact, lower-case, slug key) → [(page, anchor)] over every page, generated ids left out."""
        if self._sitewide is None:
            exact: dict[str, list[tuple[str, str]]] = defaultdict(list)
            lower: dict[str, list[tuple[str, str]]] = defaultdict(list)
            slug: dict[str, list[tuple[str, str]]] = defaultdict(list)
            for url, page in self.amap.pages.items():
                for anchor in page.anchors:
                    if is_generated(anchor):
                        continue
                    exact[anchor].append((url, anchor))
                    lower[anchor.lower()].append((url, anchor))
                    for key in slug_keys(anchor):
                        slug[key].append((url, anchor))
            self._sitewide = (dict(exact), dict(lower), dict(slug))
        return self._sitewide

    def path_lower(self, url: str) -> str | None:
        if self._paths_lower is None:
            self._paths_lower = {}
            for canonical in self.amap.pages:
                self._paths_lower.setdefault(canonical.lower(), canonical)
            for key, canonical in self.amap._alias_index.items():
                self._paths_lower.setdefault(key.lower(), canonical)
        return self._paths_lower.get(url.lower())


def repair_on_page(site: SiteIndex, page_url: str, fragment: str) -> Match | None:
    """Fragment evidence on one page: exact, case, slug style, rename history, another form of an API id,
    paraphrase."""
    index = site.page(page_url)
    if not fragment or fragment == "top" or fragment in index.anchors:
        return Match(page_url, fragment, "exists")
    same_case = index.lower.get(fragment.lower())
    found = pick(same_case, fragment) if same_case else None
    if found:
        return Match(page_url, found, "case-only difference")
    same_slug = [a for k in slug_keys(fragment) for a in index.slug.get(k, ())]
    found = pick(same_slug, fragment) if same_slug else None
    if found:
        return Match(page_url, found, "slug style")
    renames, current, seen = site.renames(), fragment, None
    for _ in range(MAX_RENAME_CHAIN):
        step = renames.get((page_url, current))
        if step is None:
            break
        current, seen = step
        if current in index.anchors:
            return Match(page_url, current, f"renamed in crawl of {seen}")
    return other_form(index, fragment) or paraphrase(index, fragment)


def transplant(site: SiteIndex, page_url: str | None, fragment: str) -> Match | None:
    """The fragment (exactly, by case or by slug style) on exactly one OTHER page of the site."""
    if not fragment or is_generated(fragment):
        return None
    exact, lower, slug = site.sitewide()
    tiers = (
        (exact.get(fragment, []), "fragment found on another page"),
        (lower.get(fragment.lower(), []), "fragment found on another page (case-only difference)"),
        ([hit for k in slug_keys(fragment) for hit in slug.get(k, [])], "fragment found on another page (slug style)"),
    )
    for hits, reason in tiers:
        others = list(dict.fromkeys(h for h in hits if h[0] != page_url))
        pages = {p for p, _ in others}
        if len(pages) == 1:
            anchor = pick((a for _, a in others), fragment)
            if anchor:
                return Match(others[0][0], anchor, reason)
        if others and reason == tiers[0][1] and len(pages) <= MAX_TRANSPLANT_PAGES:
            # the same id on a few other pages: each is that section; take the page named most like the given one
            near = max(sorted(pages), key=lambda p: difflib.SequenceMatcher(None, p, page_url or "").ratio())
            return Match(near, fragment, f"fragment found on {len(pages)} other pages (picked the closest name)")
        if others:
            return None  # ambiguous: the fragment lives on several pages
    return None


def rank_on_page(site: SiteIndex, page_url: str, fragment: str,
                 opening: Callable[[str, str], str | None] | None = None) -> Match | None:
    """The page's heading that a paraphrased fragment clearly means (:mod:`docbot.references.headings`), if one does.

    ``opening(page_url, anchor)``, when given, is a section's text: it settles a tie between headings."""
    if not fragment or is_generated(fragment) or _API_ID.match(fragment):
        return None
    ranked = site.ranker(page_url).rank(fragment)
    chosen = decide(ranked)
    if chosen is None and opening is not None:
        chosen = settle(ranked, lambda anchor: opening(page_url, anchor))
    if chosen is None:
        return None
    return Match(page_url, chosen.anchor, f'paraphrase of heading "{chosen.title}" ({chosen.evidence}; '
                                         f"score {chosen.score:.2f}, next {chosen.second:.2f})")


def _page_candidates(url: str, base_url: str) -> Iterator[tuple[str, str]]:
    """Real-page guesses for a dead page URL (normalised, no fragment), best first, with reasons; generated lazily
    (a repair stops at the first real page)."""
    parts = urlsplit(url)
    base_path = urlsplit(base_url).path or "/"
    path = parts.path
    rels: list[tuple[str, str]] = []
    rel = path[len(base_path):] if path.startswith(base_path) else path.lstrip("/")
    rels.append((rel, ""))
    segs = rel.split("/")
    stripped = 0
    while stripped < min(2, len(segs) - 1) and _VERSION_SEGMENT.match(segs[stripped]):
        stripped += 1
        rels.append(("/".join(segs[stripped:]), "leaked version prefix removed"))
    for r, why in rels:
        variants: list[tuple[str, str]] = [(r, why)] if why else []
        if r.endswith("index.html") and (r == "index.html" or r.endswith("/index.html")):
            d = r[: -len("index.html")].rstrip("/")
            if d:
                variants += [(d + ".html", "page path repaired (dir/ → .html)"), (d + ".htm", "page path repaired (.htm)")]
        stem_, dot, ext = r.rpartition(".")
        last = r.rsplit("/", 1)[-1]
        if dot and "/" not in ext and "." in last:
            ext = "." + ext.lower()
            if ext in (".html",):
                variants += [(stem_ + "/index.html", "page path repaired (.html → dir/)"), (stem_ + ".htm", "page path repaired (.htm)")]
            elif ext in _ALT_EXTENSIONS:
                variants += [(stem_ + ".html", f"page path repaired ({ext} → .html)"),
                             (stem_ + "/index.html", f"page path repaired ({ext} → dir/)")]
        elif r and not r.endswith("/"):
            variants += [(r + ".html", "page path repaired (.html)"), (r + "/index.html", "page path repaired (dir/)")]
        for v, reason in variants:
            reason = f"{why}; {reason}" if why and reason != why else reason
            yield urlunsplit((parts.scheme, parts.netloc, base_path + v, parts.query, "")), reason


def repair_page(site: SiteIndex, url: str) -> tuple[str, str] | None:
    """(canonical page, reason) for a URL whose page is not in the map, when one real page is obvious."""
    for candidate, reason in _page_candidates(url, site.amap.base_url):
        canonical = site.amap.canonical(candidate)
        if canonical:
            return canonical, reason
    canonical = site.path_lower(url)
    if canonical:
        return canonical, "page path repaired (letter case)"
    return None
