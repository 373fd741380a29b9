"""The fetch seam: :class:`Fetch`, what the crawl loop, robots.txt and sitemaps call to get a URL.

Behind it: :class:`crawlers.fetch.static.Fetcher` (HTTP as served) and :class:`crawlers.fetch.render.RenderingFetcher`
(the same, with application shells rendered in headless Chromium). A fetcher of another kind (a proxy, a cache, an
authenticated session) keeps the contract: conditional requests (``etag``, ``last_modified`` → a 304), redirects
followed while ``follow`` accepts them, and outcomes as :class:`~crawlers.fetch.result.FetchResult` values with the
error kinds of :mod:`crawlers.fetch.result` (the loop keeps a page's last good entry on a transient one).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from crawlers.fetch.result import FetchResult


class Fetch(Protocol):
    """Gets pages for one crawl; entered with ``async with`` before the first ``get`` and left after the last."""

    @property
    def user_agent(self) -> str:
        """The User-Agent its requests send (robots.txt is read for it)."""
        ...

    async def __aenter__(self) -> Fetch: ...

    async def __aexit__(self, *exc: object) -> None: ...

    async def get(self, url: str, etag: str | None = None, last_modified: str | None = None, html_only: bool = True,
                  retries: int | None = None, follow: Callable[[str], bool] | None = None,
                  max_bytes: int | None = None, sources: tuple[str, ...] = ()) -> FetchResult:
        """GET ``url`` (conditionally when given validators); a non-HTML body is not downloaded when ``html_only``;
        ``max_bytes`` caps this body in place of the fetcher's own cap. ``sources``: what the page's last fetch
        recorded in :attr:`FetchResult.sources` (a fetcher that records none ignores them)."""
        ...
