"""Crawl one site: :func:`crawl` in memory, :func:`crawl_site` against the anchor-map directory.

``crawl`` runs the loop of :mod:`crawlers.crawl_loop` (robots.txt, start URL, previous pages, sitemaps,
every in-scope link) under the crawl's time limit and returns a :class:`CrawlResult`. ``crawl_site`` adds
the disk edges: previous map, texts and page texts in (:func:`load_previous`), loss guard (:mod:`crawlers.guard`),
atomic write. What a crawl takes and gives (:class:`CrawlConfig`, :class:`CrawlResult`) is defined in
:mod:`crawlers.crawl_types` and imported from here by docbot.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path

import httpx

from crawlers import guard
from crawlers.crawl_loop import CrawlState
from crawlers.crawl_types import CrawlConfig, CrawlResult
from crawlers.errors import AnchorMapError
from crawlers.fetch import Fetcher
from crawlers.model import AnchorMap, Mention, PageText, SectionText, map_path
from crawlers.texts import (load_mentions, load_page_texts, load_section_texts, save_mentions, save_page_texts,
                            save_section_texts)
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
) -> CrawlResult:
    """Crawl one site into a new anchor map, section texts, mentions, page texts and a change report against
    ``previous`` (``previous_mentions`` None: the last crawl saved none, so every page is parsed again;
    ``previous_pages``: the previous crawl's page texts, kept for pages that did not change)."""
    crawled_at = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    started = time.monotonic()
    fetcher = Fetcher(client=client, user_agent=config.user_agent, timeout=config.timeout, deadline=config.deadline,
                      max_bytes=config.max_bytes, retries=config.retries, backoff=config.backoff, auth=config.auth,
                      auth_origin=origin(config.start_url) if config.auth else None)
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
    finally:
        state.parser.close()
    return state.result(crawled_at, time.monotonic() - started, previous_texts)


def load_previous(anchor_maps_dir: str | Path, data_dir: str | Path, site: str) -> tuple[AnchorMap | None, list[SectionText]]:
    """The site's current map and texts, or (None, []) on a first crawl."""
    path = map_path(anchor_maps_dir, site)
    if not path.is_file():
        return None, []
    previous = AnchorMap.load(path)
    try:
        texts = load_section_texts(data_dir, site)
    except AnchorMapError:
        log.warning("no section texts for %s in %s; every page is fetched in full", site, data_dir)
        texts = []
    return previous, texts


def load_previous_pages(data_dir: str | Path, site: str) -> list[PageText]:
    """The site's stored page texts, or [] (its pages are then fetched in full where they have sections)."""
    try:
        return load_page_texts(data_dir, site)
    except AnchorMapError:
        return []


def check_loss(config: CrawlConfig, previous: AnchorMap | None, result: CrawlResult, path: Path,
               force: bool = False) -> None:
    """Raise when the crawl must not replace the previous map (see :func:`crawlers.guard.check`)."""
    reached = result.stats.fetched + result.stats.not_modified
    guard.check(config.site, previous, result.map, reached, result.stats.failed, config.loss_threshold, str(path),
                force, result.report.renames)


def crawl_site(
    config: CrawlConfig,
    anchor_maps_dir: str | Path,
    data_dir: str | Path,
    force: bool = False,
    client: httpx.AsyncClient | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> CrawlResult:
    """Crawl against the stored map, refuse a lossy result unless ``force``, then write map and texts atomically."""
    previous, previous_texts = load_previous(anchor_maps_dir, data_dir, config.site)
    previous_mentions = load_mentions(data_dir, config.site) if previous is not None else []
    previous_pages = load_previous_pages(data_dir, config.site) if previous is not None else []
    result = asyncio.run(crawl(config, previous, previous_texts, client=client, progress=progress,
                               previous_mentions=previous_mentions, previous_pages=previous_pages))
    path = map_path(anchor_maps_dir, config.site)
    check_loss(config, previous, result, path, force)
    if previous is None or result.texts != previous_texts:  # an unchanged site keeps its texts file
        save_section_texts(data_dir, config.site, result.texts)
    if result.mentions != previous_mentions:
        save_mentions(data_dir, config.site, result.mentions)
    if previous is None or result.page_texts != previous_pages:
        save_page_texts(data_dir, config.site, result.page_texts)
    result.map.save(path)
    return result
