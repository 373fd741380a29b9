"""What a question reads: one generation of each site, and the parts built over it; and readers of each site's
newest crawl (for checking links outside a question: refresh, check-links, the report).

A :class:`View` holds an index view (or a fixed index), the anchor maps of the same generations, and the
validator, resolver, retriever and site statistics built over them; everything one question touches comes from
one view. :class:`Views` hands them out: over a live :class:`~docbot.indexing.index.Index` (one with ``view()``)
it builds a new view when any site's generation changed, so a long-running bot moves to a committed generation on
its next question and never needs a restart; over a fixed index (tests, fakes) it always hands out the same one.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from crawlers.errors import AnchorMapError
from crawlers.model import AnchorMap, load_maps
from docbot.answering.site_stats import SiteStats
from docbot.config import Settings
from docbot.freshness import LivePages
from docbot.indexing.generations import Generation, Generations
from docbot.references.directives import PageTexts
from docbot.references.links import SectionTexts
from docbot.references.validator import ReferenceValidator
from docbot.retrieval.cross import CrossRanker
from docbot.retrieval.hybrid import Retriever, SearchIndex
from docbot.retrieval.resolve import Resolver

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class View:
    """What one question reads: one generation of each site's index and map, and the parts built over them."""

    index: SearchIndex
    maps: Mapping[str, AnchorMap]
    validator: ReferenceValidator
    retriever: Retriever
    resolver: Resolver
    stats: SiteStats
    key: tuple[tuple[str, int], ...] = ()  # (site, generation) of a live index's view; () for a fixed one

    @property
    def generations(self) -> dict[str, int]:
        return dict(self.key)


class Views:
    """Views over ``index``; ``maps`` adds sites crawled but not indexed, and ``validator`` is the template of each
    view's validator (its allowed hosts and section-text reader) — over a fixed index, the validator itself."""

    def __init__(self, index: SearchIndex, maps: Mapping[str, AnchorMap], validator: ReferenceValidator, k: int,
                 live: LivePages | None = None, cross: CrossRanker | None = None) -> None:
        self.index = index
        self._cross = cross  # docbot's trained re-ranking model, shared by every view (loaded once)
        self._live_pages = live  # asks whether a cited page changed since its crawl, before a directive is derived
        self._maps = dict(maps)
        self._template = validator
        self._k = k
        self._live = getattr(index, "view", None)
        self._lock = threading.Lock()
        self._view: View | None = None if self._live is not None else self._make(index, self._maps, validator)

    def current(self) -> View:
        """The view of the generations current now: the same object until any site's generation changes."""
        if self._live is None:
            assert self._view is not None
            return self._view
        live = self._live()
        with self._lock:
            if self._view is None or self._view.key != live.key:
                self._view = self._make(live, {**self._maps, **live.maps()}, key=live.key)
            return self._view

    def _page_texts(self, index: SearchIndex) -> PageTexts | None:
        """Pages' visible texts for a view's validator: of the view's generation for the sites it serves, else the
        template's reader's (None: text directives are off)."""
        fallback = self._template.directives.page_texts
        own = getattr(index, "page_text", None)
        if fallback is None or own is None:
            return fallback
        served = set(index.sites())
        return lambda site, page: own(site, page) if site in served else fallback(site, page)

    def _make(self, index: SearchIndex, maps: Mapping[str, AnchorMap], validator: ReferenceValidator | None = None,
              key: tuple[tuple[str, int], ...] = ()) -> View:
        freshen = self._live_pages.for_maps(maps) if self._live_pages is not None else None
        if validator is None:
            validator = ReferenceValidator(maps, allow_hosts=self._template.allow_hosts, texts=self._template.texts,
                                           page_texts=self._page_texts(index), freshen=freshen)
        elif freshen is not None and validator.directives.freshen is None:
            validator.directives.freshen = freshen
        retriever = Retriever(index, cross=self._cross)
        if validator.texts is None:  # the index holds every section's text: it settles ties in fragment repair
            validator.texts = lambda site, deep_url: section_text(retriever, site, deep_url)
        return View(index, maps, validator, retriever, Resolver(maps, validator), SiteStats(retriever, maps, self._k), key)


def section_text(retriever: Retriever, site: str, deep_url: str) -> str | None:
    """The indexed text of one section (``None`` when the site or section is not indexed, or reading it fails)."""
    try:
        hit = retriever.section(site, deep_url)
    except Exception as exc:  # noqa: BLE001 - a tie-break is optional; without it the fragment is dropped
        log.warning("could not read section text of %s (%s)", deep_url, exc)
        return None
    return hit.text if hit is not None else None


def latest_maps(settings: Settings) -> dict[str, AnchorMap]:
    """Every site's newest crawled map: its newest generation's, else the published one in ``anchor_maps/``."""
    maps = load_maps(settings.anchor_maps)
    for site in settings.site_names():
        latest = Generations(settings.data_dir, site).latest()
        if latest is not None:
            maps[site] = latest.load_map()
    return maps


def stored_texts(settings: Settings) -> SectionTexts:
    """Section texts by (site, deep URL) from each site's newest crawl, each site read once when first asked:
    with them the validator settles ties between headings as it does in ``ask``."""
    return _per_site(settings, lambda crawl: {f"{t.url}#{t.anchor}": t.text for t in crawl.load_texts() if t.anchor},
                     "section texts; tied fragments are dropped")


def latest_page_texts(settings: Settings) -> PageTexts | None:
    """Pages' visible texts (what text directives are checked against) from each site's newest crawl; None when
    ``[validator] text_fragments = false``."""
    if not settings.text_fragments:
        return None
    return _per_site(settings, lambda crawl: {p.url: p for p in crawl.load_pages()},
                     "page texts; its text directives are dropped")


def _per_site(settings: Settings, rows: Callable[[Generation], dict[str, T]],
              missing: str) -> Callable[[str, str], T | None]:
    """A (site, key) reader over ``rows`` of each site's newest crawled generation, each site read once when first
    asked; a site without a crawl, or whose files are unreadable, reads as empty (a warning says what it costs)."""
    tables: dict[str, dict[str, T]] = {}

    def read(site: str, key: str) -> T | None:
        table = tables.get(site)
        if table is None:
            try:
                latest = Generations(settings.data_dir, site).latest()
                if latest is None:
                    raise AnchorMapError(f"site {site!r} has no crawl in {settings.data_dir}")
                table = rows(latest)
            except (AnchorMapError, OSError, ValueError) as exc:
                what, _, cost = missing.partition("; ")
                log.warning("no %s for %s (%s); %s", what, site, exc, cost)
                table = {}
            tables[site] = table
        return table.get(key)

    return read
