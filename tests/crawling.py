"""Crawling a site in a test or a benchmark the way `docbot crawl` does: into the site's next generation under its
lock, the map published to the anchor-maps dir (:func:`docbot.updating.update_site`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from crawlers.crawl import CrawlConfig, CrawlResult
from docbot.config import Settings
from docbot.indexing.generations import Generation
from docbot.updating import update_site


def crawl_as_cli(config: CrawlConfig, anchor_maps: Path, data_dir: Path, *, force: bool = False, client: Any = None,
                 index: Any = None) -> tuple[CrawlResult, Generation]:
    """Crawl ``config``'s site into ``data_dir`` (with ``index``, index and commit it too); returns the crawl and the
    generation that holds it."""
    return update_site(Settings(data_dir=Path(data_dir), anchor_maps=Path(anchor_maps)), config, index, force=force,
                       client=client)
