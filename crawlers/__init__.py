"""Crawl documentation sites into anchor maps and section trees.

This package never imports ``docbot``: the anchor map is the contract. Its rooms, each importing only those below:
the floor here (:mod:`crawlers.model`, the anchor map, and what every room uses: urls, errors, site names, source
types, the texts kept beside the map), :mod:`crawlers.parse` (one page's body into its anchors, sections and texts),
:mod:`crawlers.fetch` (the :class:`~crawlers.fetch.Fetch` seam) and :mod:`crawlers.crawl` (the crawl loop).
"""

from __future__ import annotations

from crawlers.errors import AnchorMapError, CrawlerError, CrawlRefused, StartURLError
from crawlers.model import AnchorMap, Page, Rename, Section, SectionText

__all__ = [
    "AnchorMap",
    "AnchorMapError",
    "CrawlRefused",
    "CrawlerError",
    "Page",
    "Rename",
    "Section",
    "SectionText",
    "StartURLError",
]
