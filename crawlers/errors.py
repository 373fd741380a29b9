"""Errors of the crawler package.

CrawlerError
├── AnchorMapError   the map is missing, unreadable or of another format version
├── StartURLError    the start URL cannot be fetched or is disallowed by robots.txt
├── CrawlRefused     the crawl lost too many pages, anchors or sections to replace the previous map
├── SiteDown         no page of the site could be fetched; the previous map is kept
├── BadSiteName      a site name is not a plain name (letters, digits, . _ -)
└── BrowserUnavailable  a page must be rendered and Chromium, chromedriver or selenium is missing or does not start

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
    """The crawl lost more pages, anchors or sections than allowed; the previous map is kept.

    ``changed`` lists the pages that changed shape (:class:`crawlers.crawl.guard.ShapeChange`).
    """

    def __init__(self, message: str, changed: tuple[object, ...] = ()) -> None:
        super().__init__(message)
        self.changed = changed


class SiteDown(CrawlerError):
    """Every request of a crawl failed; the previous map is kept."""


class BadSiteName(CrawlerError):
    """A site name that cannot be a file name under anchor_maps/ (e.g. ``../x``)."""


class BrowserUnavailable(CrawlerError):
    """Rendering needs headless Chromium (Debian's ``chromium`` and ``chromium-driver``, PyPI's ``selenium``)."""
