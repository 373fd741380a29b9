"""A rendered page's limits grow with the API description its app loads, up to the site's ceilings.

The rule itself (:func:`crawlers.fetch.limits.scale`) is checked as a function; then a real Redoc site whose description
is Docker's Engine API repeated to 420 operations, served on 127.0.0.1 and crawled in headless Chromium: the log says
why its limits were raised, every operation is in the map, and a ceiling set below what it asks is said with the
setting to raise.
"""

from __future__ import annotations

import asyncio
import json
import logging
import shutil
from pathlib import Path
from typing import Any

import pytest

from crawlers.crawl import CrawlConfig, crawl, open_fetcher
from crawlers.fetch import MAX_BYTES, RenderingFetcher
from crawlers.fetch.limits import EXPAND_TIMEOUT, HEAP_MB, PAGE_TIMEOUT, RenderLimits, count_operations, scale
from tests.browser import needs_renderer
from tests.conftest import serve_directory
from tests.crawlers.rendered_sites import SITES

METHODS = ("get", "put", "post", "delete", "patch", "head", "options")
DOCKER = SITES / "redoc"


def test_a_small_api_keeps_the_fixed_limits() -> None:
    assert scale(105, MAX_BYTES) == RenderLimits()  # Docker's Engine API: exactly as before
    assert scale(None, MAX_BYTES) == RenderLimits()  # no description found
    assert not scale(150, MAX_BYTES).raised


def test_a_large_api_has_every_limit_grown_in_proportion() -> None:
    limits = scale(600, MAX_BYTES)
    assert limits.raised and "600 operations" in limits.why
    assert limits.page_timeout == 4 * PAGE_TIMEOUT and limits.expand_budget == 4 * EXPAND_TIMEOUT
    assert limits.heap_mb > HEAP_MB and limits.max_bytes > MAX_BYTES
    assert limits.capped == ()


def test_the_ceiling_holds_a_huge_api_and_the_site_can_raise_it() -> None:
    held = scale(1223, MAX_BYTES)  # GitHub's REST API
    assert held.expand_budget == 900 and held.capped == ("expand_budget",)
    raised = scale(1223, MAX_BYTES, ceiling_s=3600)
    assert raised.expand_budget > 900 and raised.capped == ()
    assert scale(1223, MAX_BYTES, ceiling_s=1).page_timeout == PAGE_TIMEOUT  # never below the fixed limits
    assert scale(100_000, MAX_BYTES).heap_mb == 4096


def test_operations_are_counted_in_json_and_yaml() -> None:
    assert count_operations((DOCKER / "openapi.json").read_bytes()) == 105
    yaml = b"openapi: 3.0.0\npaths:\n  /pets:\n    get:\n      summary: x\n    post:\n      summary: y\n"
    assert count_operations(yaml) == 2
    assert count_operations(b'{"openapi": "3.0.0"}') is None
    assert count_operations(b"<html></html>") is None


def _big_redoc(root: Path, copies: int) -> list[str]:
    """A Redoc site over Docker's description with its paths repeated ``copies`` times; its operationIds."""
    shutil.copy(DOCKER / "index.html", root / "index.html")
    shutil.copy(DOCKER / "redoc.standalone.js", root / "redoc.standalone.js")
    spec = json.loads((DOCKER / "openapi.json").read_text(encoding="utf-8"))
    paths: dict[str, Any] = {}
    for n in range(copies):
        for path, item in spec["paths"].items():
            copy = json.loads(json.dumps(item))
            for method in METHODS:
                if method in copy:
                    copy[method]["operationId"] += f"Copy{n}"
            paths[f"/copy{n}{path}"] = copy
    spec["paths"] = paths
    (root / "openapi.json").write_text(json.dumps(spec), encoding="utf-8")
    return [op["operationId"] for item in paths.values() for m, op in item.items() if m in METHODS]


def _crawl(root: Path, **settings: Any) -> tuple[Any, RenderingFetcher]:
    needs_renderer()
    with serve_directory(root) as url:
        config = CrawlConfig(site="big", start_url=url + "index.html", render="auto", **settings)
        fetcher = open_fetcher(config)
        assert isinstance(fetcher, RenderingFetcher)
        return asyncio.run(crawl(config, fetcher=fetcher)), fetcher


@pytest.fixture(scope="module")
def big_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    root = tmp_path_factory.mktemp("big-redoc")
    return root, _big_redoc(root, 4)


@pytest.mark.slow
def test_a_large_redoc_api_renders_whole_within_raised_limits(big_site: tuple[Path, list[str]],
                                                              caplog: pytest.LogCaptureFixture) -> None:
    root, ops = big_site
    assert len(ops) == 420
    with caplog.at_level(logging.INFO, logger="crawlers.fetch"):
        result, fetcher = _crawl(root)
    said = [r.getMessage() for r in caplog.records]
    assert any("raised limits (its API description has 420 operations" in m for m in said), said
    assert fetcher.browser is not None and fetcher.browser.heap_mb == 630  # started with the heap the page asks
    (page,) = [p for p in result.map.pages.values() if p.url.endswith("index.html")]
    assert [op for op in ops if f"operation/{op}" not in page.anchors] == []


@pytest.mark.slow
def test_a_ceiling_below_what_the_api_asks_is_said_with_the_setting_to_raise(
        big_site: tuple[Path, list[str]], caplog: pytest.LogCaptureFixture) -> None:
    root, ops = big_site
    with caplog.at_level(logging.WARNING, logger="crawlers.fetch"):
        result, _ = _crawl(root, render_max_seconds=60)
    said = " ".join(r.getMessage() for r in caplog.records)
    assert "raise render_max_seconds in docbot.toml" in said
    (page,) = [p for p in result.map.pages.values() if p.url.endswith("index.html")]
    assert f"operation/{ops[-1]}" in page.anchors  # 60 s is enough here: held, and still whole
