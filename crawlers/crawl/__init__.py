"""Crawling one site: the loop and its state, from robots.txt to the :class:`CrawlResult`.

- :mod:`crawlers.crawl.run`: :func:`crawl`, :func:`open_fetcher` (which fetcher a crawl gets) and
  :func:`check_loss` (the loss guard of :mod:`crawlers.crawl.guard`), the entry points re-exported here.
- :mod:`crawlers.crawl.types`: :class:`CrawlConfig` and :class:`CrawlResult`, what a crawl takes and gives.
- :mod:`crawlers.crawl.loop`: :class:`~crawlers.crawl.loop.CrawlState`, the loop, with :mod:`~crawlers.crawl.robots`,
  :mod:`~crawlers.crawl.sitemap` and :mod:`~crawlers.crawl.frontier` (what to fetch), :mod:`~crawlers.crawl.pages`
  (the parse pool, and a parsed page into its map entry), :mod:`~crawlers.crawl.kept_pages` (what it keeps of each
  page), :mod:`~crawlers.crawl.cross_links` (the anchors pages link to on other pages),
  :mod:`~crawlers.crawl.result`, :mod:`~crawlers.crawl.diff` and :mod:`~crawlers.crawl.issues` (what it reports).
"""

from __future__ import annotations

from crawlers.crawl.run import check_loss, crawl, open_fetcher
from crawlers.crawl.types import CrawlConfig, CrawlResult

__all__ = ["CrawlConfig", "CrawlResult", "check_loss", "crawl", "open_fetcher"]
