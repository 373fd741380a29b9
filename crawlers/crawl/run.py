"""Crawl one site in memory: :func:`crawl`, and the loss guard its caller applies before writing (:func:`check_loss`).

``crawl`` runs the loop of :mod:`crawlers.crawl.loop` (robots.txt, start URL, previous pages, sitemaps,
every in-scope link) under the crawl's time limit, then reads the pages' style sheets (:mod:`crawlers.crawl.styles`),
and returns a :class:`CrawlResult`. It reads and writes no files:
docbot's writer (``docbot.updating``) hands it the previous crawl and stores the result as a new generation.
What a crawl takes and gives (:class:`CrawlConfig`, :class:`CrawlResult`) is defined in :mod:`crawlers.crawl.types`;
docbot imports both, and these functions, from :mod:`crawlers.crawl`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

import httpx

from crawlers.crawl import guard
from crawlers.crawl.loop import CrawlState
from crawlers.crawl.styles import judge_pages
from crawlers.crawl.types import CrawlConfig, CrawlResult
from crawlers.errors import CrawlerError
from crawlers.fetch import Fetch, Fetcher, RenderingFetcher
from crawlers.model import AnchorMap, Mention, PageText, SectionText
from crawlers.urls import origin

log = logging.getLogger(__name__)


async def crawl(
    config: CrawlConfig,
    previous: AnchorMap | None = None,
    previous_texts: Sequence[SectionText] = (),
    client: httpx.AsyncClient | None = None,
    progress: Callable[[int, int], None] | None = None,
    previous_mentions: Sequence[Mention] | None = (),
    previous_pages: Sequence[PageText] = (),
    fetcher: Fetch | None = None,
) -> CrawlResult:
    """Crawl one site into a new anchor map, section texts, mentions, page texts and a change report against
    ``previous`` (``previous_mentions`` None: the last crawl saved none, so every page is parsed again;
    ``previous_pages``: the previous crawl's page texts, kept for pages that did not change; ``fetcher``: what gets the
    pages, :func:`open_fetcher`'s for ``config`` by default)."""
    crawled_at = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    started = time.monotonic()
    fetcher = fetcher or open_fetcher(config, client)
    state = CrawlState(config, previous, previous_texts, fetcher, progress, previous_mentions, previous_pages)
    try:
        async with fetcher:
            try:
                async with asyncio.timeout(config.max_time):
                    await state.run()
            except TimeoutError:
                log.warning("the crawl of %s reached its time limit (%s s); pages not reached keep their last entry",
                            config.site, config.max_time)
                state.keep_unreached()
            # the pages' style sheets, past the time limit too (a handful, or no page would get a directive)
            state.tally.stats["requests"] += await judge_pages(fetcher, state.kept.page_texts, state.may_fetch)
    finally:
        state.parser.close()
    return state.result(crawled_at, time.monotonic() - started, previous_texts)


def open_fetcher(config: CrawlConfig, client: httpx.AsyncClient | None = None) -> Fetch:
    """The fetcher the crawl calls: the static one, behind the rendering one unless the site says ``render = "never"``
    or needs credentials (the browser would load its pages without them: ``render = "always"`` is refused there)."""
    static = Fetcher(client=client, user_agent=config.user_agent, timeout=config.timeout, deadline=config.deadline,
                     max_bytes=config.max_bytes, retries=config.retries, backoff=config.backoff, auth=config.auth,
                     auth_origin=origin(config.start_url) if config.auth else None)
    if config.render == "never" or (config.auth is not None and config.render == "auto"):
        return static
    if config.auth is not None:
        raise CrawlerError(f"{config.site} needs auth, which the browser that renders pages would not send: crawl it "
                           'with render = "never" or "auto" (pages read as served)')
    return RenderingFetcher(static, config.render, max_bytes=config.max_bytes, user_agent=config.user_agent,
                            max_seconds=config.render_max_seconds, max_page_bytes=config.render_max_bytes)


def check_loss(config: CrawlConfig, previous: AnchorMap | None, result: CrawlResult, path: Path,
               force: bool = False) -> None:
    """Raise when the crawl must not replace the previous map (see :func:`crawlers.crawl.guard.check`)."""
    reached = result.stats.fetched + result.stats.not_modified
    guard.check(config.site, previous, result.map, reached, result.stats.failed, config.loss_threshold, str(path),
                force, result.report.renames)
