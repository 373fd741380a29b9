"""Crawl documentation sites into anchor maps and section trees.

This package never imports ``docbot``: the anchor map is the contract.
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
