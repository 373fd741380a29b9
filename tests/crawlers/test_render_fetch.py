"""The rendering fetcher in a crawl: static sites never start a browser, a refresh re-renders only what changed, a
page that does not render keeps its last good entry, the tab cap holds, a dead browser is started again, and a
missing Chromium is said in one line."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crawlers.crawl import CrawlConfig, CrawlResult, crawl, open_fetcher
from crawlers.errors import BrowserUnavailable, CrawlerError
from crawlers.fetch import Fetcher, RenderingFetcher, RenderMode
from crawlers.fetch.browser import Browser
from tests.browser import needs_renderer
from tests.conftest import EVAL_ROOTS, serve_directory

pytestmark = pytest.mark.slow

# An application shell: no text until its script builds the page, one second after the load.
APP = """<!DOCTYPE html><html><head><title>Widget manual</title></head><body><div id="root"></div>
<script>setTimeout(function () { document.getElementById('root').innerHTML = '<main><h1 id="manual">Widget manual</h1>'
+ '<p>The widget turns questions into answers; this manual tells how to install and configure it.</p>'
+ '<h2 id="install">Installing the widget</h2><p>Run widget install and answer its three questions.</p>'
+ '<h2 id="{second}">{title}</h2><p>Edit widget.toml: every key is described in the reference.</p></main>'; }, 1000);
</script></body></html>"""


def write_app(root: Path, second: str = "configure", title: str = "Configuring the widget", age: float = 0) -> None:
    page = root / "index.html"
    page.write_text(APP.replace("{second}", second).replace("{title}", title), encoding="utf-8")
    stamp = time.time() - 100 + age  # a changed page gets a later Last-Modified
    os.utime(page, (stamp, stamp))


def run(config: CrawlConfig, fetcher: Any, previous: CrawlResult | None = None) -> CrawlResult:
    if previous is None:
        return asyncio.run(crawl(config, fetcher=fetcher))
    return asyncio.run(crawl(config, previous.map, previous.texts, fetcher=fetcher, previous_mentions=previous.mentions,
                             previous_pages=previous.page_texts))


def rendering(config: CrawlConfig, mode: RenderMode = "auto", **kw: Any) -> RenderingFetcher:
    return RenderingFetcher(Fetcher(user_agent=config.user_agent), mode, **kw)


@pytest.fixture()
def app_site(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    write_app(tmp_path)
    with serve_directory(tmp_path) as base:
        yield tmp_path, base


@pytest.mark.parametrize("site", ["requests", "drf"])  # Sphinx and MkDocs, as Debian ships them
def test_auto_starts_no_browser_on_a_static_site_and_changes_nothing(site: str) -> None:
    made: list[Browser] = []

    def browser() -> Browser:
        made.append(Browser())
        return made[-1]

    with serve_directory(EVAL_ROOTS[site]) as base:
        config = CrawlConfig(site=site, start_url=base, parse_processes=0)
        started = time.monotonic()
        static = run(dataclasses.replace(config, render="never"), Fetcher(user_agent=config.user_agent))
        middle = time.monotonic()
        fetcher = rendering(config, browser=browser)
        auto = run(config, fetcher)
        ended = time.monotonic()
    assert made == [] and fetcher.browser is None and fetcher.rendered == 0
    assert len(auto.map.pages) > 10
    assert auto.map.to_json() | {"crawled_at": ""} == static.map.to_json() | {"crawled_at": ""}
    assert auto.texts == static.texts
    print(f"\n{site}: {len(auto.map.pages)} pages, never {middle - started:.2f} s, auto {ended - middle:.2f} s")


def test_a_refresh_renders_again_only_a_page_that_changed(app_site: tuple[Path, str]) -> None:
    needs_renderer()
    root, base = app_site
    config = CrawlConfig(site="widget", start_url=base + "index.html")
    served = run(dataclasses.replace(config, render="never"), Fetcher())
    assert [s.anchor for s in served.map.pages[base + "index.html"].sections if s.anchor] == []

    first_fetcher = rendering(config)
    first = run(config, first_fetcher)
    page = first.map.pages[base + "index.html"]
    assert first_fetcher.rendered == 1
    assert [s.anchor for s in page.sections] == ["manual", "install", "configure"]
    assert any("widget install" in t.text for t in first.texts if t.anchor == "install")

    again = rendering(config)
    second = run(config, again, first)
    assert again.rendered == 0 and again.browser is None and second.stats.not_modified == 1
    assert second.map.pages[base + "index.html"].sections == page.sections

    write_app(root, "tune", "Tuning the widget", age=10)
    changed = rendering(config)
    third = run(config, changed, second)
    assert changed.rendered == 1 and third.stats.fetched == 1
    assert [s.anchor for s in third.map.pages[base + "index.html"].sections] == ["manual", "install", "tune"]


def test_a_page_that_does_not_render_keeps_its_last_good_entry(app_site: tuple[Path, str]) -> None:
    needs_renderer()
    root, base = app_site
    config = CrawlConfig(site="widget", start_url=base + "index.html")
    first = run(config, rendering(config))
    # now a Redoc shell whose script never comes: Redoc's content never appears
    (root / "index.html").write_text("<!DOCTYPE html><html><body><redoc spec-url='x.json'></redoc></body></html>")
    os.utime(root / "index.html")
    fetcher = rendering(config, timeout=2.0)
    started = time.monotonic()
    second = run(config, fetcher, first)
    assert time.monotonic() - started < 20
    assert second.stats.failed == 1 and second.report.errors.get("render_failed") == 1
    page = second.map.pages[base + "index.html"]
    assert page.stale and page.sections == first.map.pages[base + "index.html"].sections


def test_tabs_are_capped_and_a_dead_browser_is_started_again(app_site: tuple[Path, str]) -> None:
    needs_renderer()
    _, base = app_site

    async def go() -> tuple[list[Any], list[Any], Browser]:
        browser = Browser(max_tabs=2, timeout=30)
        try:
            four = await asyncio.gather(*(browser.render(f"{base}index.html?n={n}", None) for n in range(4)))
            pid = browser._driver.service.process.pid  # chromedriver, which this test started
            children = [c for task in Path(f"/proc/{pid}/task").iterdir()
                        for c in (task / "children").read_text().split()]
            assert children, "chromedriver has no browser process"
            os.kill(int(children[0]), signal.SIGKILL)  # Chromium, started by this test
            after = [await browser.render(base + "index.html", None)]
            return four, after, browser
        finally:
            await browser.close()

    four, after, browser = asyncio.run(go())
    assert [bool(r.html and 'id="install"' in r.html) for r in four] == [True] * 4
    assert browser.peak_tabs == 2
    assert after[0].html is not None and 'id="install"' in after[0].html, after[0].error
    assert browser.starts == 2


def test_a_page_whose_script_never_yields_times_out_and_the_browser_goes_on(app_site: tuple[Path, str]) -> None:
    needs_renderer()
    root, base = app_site
    (root / "hang.html").write_text("<!DOCTYPE html><html><body><div id='root'></div>"
                                    "<script>setTimeout(function () { while (true) {} }, 300);</script></body></html>")

    async def go() -> tuple[Any, float, Any]:
        browser = Browser(timeout=3)
        try:
            started = time.monotonic()
            hung = await browser.render(base + "hang.html", None)
            seconds = time.monotonic() - started
            return hung, seconds, await browser.render(base + "index.html", None)
        finally:
            await browser.close()

    hung, seconds, after = asyncio.run(go())
    assert hung.html is None and "timeout" in str(hung.error).lower() and seconds < 20, (hung, seconds)
    assert after.html is not None and 'id="install"' in after.html


def test_a_site_with_credentials_is_never_rendered_without_them() -> None:
    """The browser would load the pages without the site's Basic credentials: auto reads them as served, always
    is refused in one line."""
    config = CrawlConfig(site="private", start_url="http://127.0.0.1:9/docs/", auth=("bot", "hunter2"))
    assert isinstance(open_fetcher(config), Fetcher)
    assert isinstance(open_fetcher(dataclasses.replace(config, auth=None)), RenderingFetcher)
    with pytest.raises(CrawlerError, match='render = "never"') as raised:
        open_fetcher(dataclasses.replace(config, render="always"))
    assert "hunter2" not in str(raised.value) and "\n" not in str(raised.value)


def test_a_missing_chromium_is_one_line_that_says_what_to_install(app_site: tuple[Path, str], tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch,
                                                                   caplog: pytest.LogCaptureFixture) -> None:
    _, base = app_site
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(BrowserUnavailable) as raised:
        Browser.check()
    message = str(raised.value)
    assert "\n" not in message and "chromium" in message and "apt-get install chromium chromium-driver" in message
    config = CrawlConfig(site="widget", start_url=base + "index.html", render="always")
    with pytest.raises(BrowserUnavailable):
        run(config, rendering(config, "always"))
    # auto: said once, and the page is read as served
    with caplog.at_level(logging.WARNING, logger="crawlers.fetch.render"):
        result = run(config, rendering(config, "auto"))
    warnings = [r.getMessage() for r in caplog.records if r.name == "crawlers.fetch.render"]
    assert len(warnings) == 1 and re.search(r"is an application shell .* read as served", warnings[0]), warnings
    assert result.stats.fetched == 1
