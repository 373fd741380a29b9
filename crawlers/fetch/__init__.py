"""Fetching pages: the :class:`Fetch` seam the crawl calls, and the fetchers behind it.

- :mod:`crawlers.fetch.protocol`: :class:`Fetch`, the seam.
- :mod:`crawlers.fetch.result`: :class:`FetchResult` and its error kinds (:class:`FetchError`), the contract every fetcher returns.
- :mod:`crawlers.fetch.static`: :class:`Fetcher`, HTTP as served (the only module of the crawler that calls httpx).
- :mod:`crawlers.fetch.render`: :class:`RenderingFetcher`, the static fetch with application shells rendered in
  headless Chromium (:mod:`crawlers.fetch.browser`, the only one that drives a browser), decided by the evidence of
  :mod:`crawlers.fetch.shell` (where each generator that renders in the browser is described); an app whose pages
  are hash routes (docsify) has every route rendered and gathered into one page by :mod:`crawlers.fetch.routes`; one
  that renders its entries collapsed and lands on them by routes (Swagger UI) has them expanded and composed by
  :mod:`crawlers.fetch.entries`.
"""

from __future__ import annotations

from crawlers.fetch.protocol import Fetch
from crawlers.fetch.render import RENDER, RENDER_MODES, RenderingFetcher, RenderMode
from crawlers.fetch.result import HTML_TYPES, FetchError, FetchResult
from crawlers.fetch.static import (
    BACKOFF,
    DEADLINE,
    MAX_BYTES,
    MAX_REDIRECTS,
    MAX_RETRY_AFTER,
    RETRIES,
    RETRY_STATUSES,
    TIMEOUT,
    USER_AGENT,
    Fetcher,
    parse_retry_after,
)

__all__ = [
    "BACKOFF", "DEADLINE", "HTML_TYPES", "MAX_BYTES", "MAX_REDIRECTS", "MAX_RETRY_AFTER", "RENDER", "RENDER_MODES",
    "RETRIES", "RETRY_STATUSES", "TIMEOUT", "USER_AGENT", "Fetch", "FetchError", "FetchResult", "Fetcher", "RenderMode",
    "RenderingFetcher", "parse_retry_after",
]
