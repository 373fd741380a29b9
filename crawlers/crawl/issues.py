"""What a crawl report counts under ``errors``: the fetch's :class:`~crawlers.fetch.FetchError` kinds and the
crawl's own :class:`CrawlIssue` kinds, one closed vocabulary (:data:`ErrorKind`) whose values are the report's keys."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from crawlers.fetch.result import FetchError


class CrawlIssue(StrEnum):
    """A page the crawl fetched but could not keep, or one it did not fetch, and why."""

    PARSE_ERROR = "parse_error"
    UNEXPECTED_304 = "unexpected_304"  # 304 for a page the crawl has no earlier copy of
    TRUNCATED = "truncated"  # the body was cut at the fetcher's max_bytes
    TOO_DEEP = "too_deep"  # nested past what the extractor follows
    INTERNAL = "internal"  # a bug in the crawl, caught so the other pages go on
    OFFSITE_SITEMAP = "offsite_sitemap"
    MAX_TIME = "max_time"  # the crawl's time limit was reached
    # the frontier's rejections (crawlers.crawl.frontier)
    URL_TOO_LONG = "url_too_long"
    ROBOTS_DISALLOWED = "robots_disallowed"
    QUERY_VARIANTS = "query_variants"
    MAX_PAGES = "max_pages"


ErrorKind = FetchError | CrawlIssue
Visit = ErrorKind | Literal["ok", "not_modified"]  # what visiting one URL came to

# Failures after which a previously known page is kept as last-known-good (flagged stale).
TRANSIENT: frozenset[ErrorKind] = frozenset({
    FetchError.TIMEOUT, FetchError.DEADLINE, FetchError.CONNECT, FetchError.HTTP, FetchError.SERVER_ERROR,
    FetchError.RATE_LIMITED, FetchError.CLIENT_ERROR, FetchError.REDIRECT_LOOP, FetchError.TOO_MANY_REDIRECTS,
    FetchError.RENDER_FAILED, CrawlIssue.PARSE_ERROR,
})
