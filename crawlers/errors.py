"""Errors of the crawler package.

CrawlerError
├── AnchorMapError   the map is missing, unreadable or of another format version
├── StartURLError    the start URL cannot be fetched or is disallowed by robots.txt
└── CrawlRefused     the crawl lost too many pages to replace the previous map

Messages say what to do next.
"""

from __future__ import annotations


class CrawlerError(Exception):
    """Base class for crawler errors."""


class AnchorMapError(CrawlerError):
    """The anchor map is missing, unreadable, or of an unsupported format version."""


class StartURLError(CrawlerError):
    """The start URL is unreachable, not HTML, or disallowed by robots.txt."""


class CrawlRefused(CrawlerError):
    """The crawl lost more pages than the threshold allows; the previous map is kept."""
