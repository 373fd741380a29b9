"""What a question reads: one generation of each site, and the parts built over it.

A :class:`View` holds an index view (or a fixed index), the anchor maps of the same generations, and the
validator, resolver, retriever and site statistics built over them; everything one question touches comes from
one view. :class:`Views` hands them out: over a live :class:`~docbot.indexing.index.Index` (one with ``view()``)
it builds a new view when any site's generation changed, so a long-running bot moves to a committed generation on
its next question and never needs a restart; over a fixed index (tests, fakes) it always hands out the same one.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from dataclasses import dataclass

from crawlers.model import AnchorMap
from docbot.answering.site_stats import SiteStats
from docbot.references.validator import ReferenceValidator
from docbot.retrieval.hybrid import Retriever, SearchIndex
from docbot.retrieval.resolve import Resolver

log = logging.getLogger(__name__)


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

    def __init__(self, index: SearchIndex, maps: Mapping[str, AnchorMap], validator: ReferenceValidator, k: int) -> None:
        self.index = index
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

    def _make(self, index: SearchIndex, maps: Mapping[str, AnchorMap], validator: ReferenceValidator | None = None,
              key: tuple[tuple[str, int], ...] = ()) -> View:
        if validator is None:
            validator = ReferenceValidator(maps, allow_hosts=self._template.allow_hosts, texts=self._template.texts)
        retriever = Retriever(index)
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
