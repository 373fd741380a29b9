"""What the tests of a JavaScript-rendered site share: the site built by scripts/build_rendered_sites.sh, served on
127.0.0.1, and crawled as `docbot crawl` would with render = "auto"."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from crawlers.crawl import CrawlConfig, CrawlResult, crawl, open_fetcher
from crawlers.fetch import RenderingFetcher
from crawlers.model import Page
from tests.browser import needs_renderer
from tests.conftest import serve_directory

SITES = Path(__file__).resolve().parents[2] / "build" / "sites"
POLL_S = 0.1
# where the element of id arguments[0] is: its top, the viewport's height and the page's scroll (None: no such id)
WHERE_JS = """
const el = document.getElementById(arguments[0]);
if (!el) return null;
return [el.getBoundingClientRect().top, window.innerHeight, Math.round(window.scrollY)];
"""
# where the Swagger UI operation or tag that route arguments[0] names is (found by its own link, decoded): its top, the
# viewport's height, whether it is open, the page's scroll (None: not in the DOM)
WHERE_ROUTE_JS = """
const link = Array.from(document.querySelectorAll('a[href^="#/"]'))
  .find(a => decodeURIComponent(a.getAttribute('href').slice(1)) === arguments[0]);
const el = link && (link.closest('.opblock') || link.closest('.opblock-tag'));
if (!el) return null;
return [el.getBoundingClientRect().top, window.innerHeight, el.classList.contains('is-open')
        || el.getAttribute('data-is-open') === 'true', Math.round(window.scrollY)];
"""


def settled(driver: Any, url: str, until: Any, max_wait: float = 30.0) -> Any:
    """Load ``url`` afresh and poll ``until(driver)`` until it gives something true (returned), up to ``max_wait``."""
    driver.get("about:blank")
    driver.get(url)
    deadline = time.monotonic() + max_wait
    while True:
        got = until(driver)
        if got or time.monotonic() > deadline:
            return got
        time.sleep(POLL_S)


@contextmanager
def served(site: Path) -> Iterator[str]:
    """The built site on 127.0.0.1 (its base URL); the test fails, saying how to build it, when it is missing."""
    if not (site / "index.html").is_file():
        pytest.fail(f"{site} is missing: run scripts/install.sh (scripts/build_rendered_sites.sh builds it)")
    with serve_directory(site) as url:
        yield url


def crawl_rendered(name: str, start_url: str) -> tuple[CrawlResult, RenderingFetcher, float]:
    """The site crawled with render = "auto"; with the fetcher and the seconds it took."""
    needs_renderer()
    config = CrawlConfig(site=name, start_url=start_url, render="auto")
    fetcher = open_fetcher(config)
    assert isinstance(fetcher, RenderingFetcher)
    started = time.monotonic()
    result = asyncio.run(crawl(config, fetcher=fetcher))
    return result, fetcher, time.monotonic() - started


def site_fixtures(site: Path, name: str) -> tuple[Any, Any, Any]:
    """The module fixtures ``base`` (the site served), ``crawled`` (its crawl, the fetcher, the seconds) and ``page``
    (its index.html in the map, the one page of an app that renders in the browser)."""
    @pytest.fixture(scope="module")
    def base() -> Iterator[str]:
        with served(site) as url:
            yield url

    @pytest.fixture(scope="module")
    def crawled(base: str) -> tuple[CrawlResult, RenderingFetcher, float]:
        return crawl_rendered(name, base + "index.html")

    @pytest.fixture(scope="module")
    def page(crawled: tuple[CrawlResult, RenderingFetcher, float], base: str) -> Page:
        found = crawled[0].map.page(base + "index.html")
        assert found is not None, f"{base}index.html is not in the map of {name}"
        return found

    return base, crawled, page
