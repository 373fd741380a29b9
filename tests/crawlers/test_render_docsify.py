"""A real docsify site end to end: docsify 4 rendering npm's CLI manual (Markdown pages from Debian's npm package),
crawled with ``render = "auto"``. Its pages are hash routes of one URL (``index.html#/commands/npm-ls``) and a place
on one is a route too (``#/commands/npm-ls?id=configuration``): the map records that form, it is checked against
the DOM a browser renders for every route, and the links docbot emits are loaded in headless Chromium.

The site is built by ``scripts/build_rendered_sites.sh`` (run by ``scripts/install.sh``) and served on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from crawlers.crawl import CrawlConfig, CrawlResult, crawl, open_fetcher
from crawlers.fetch import RenderingFetcher
from crawlers.model import Page
from docbot.indexing.chunk import chunk_sections
from docbot.references.validator import ReferenceValidator
from tests.browser import in_view
from tests.conftest import serve_directory
from tests.crawlers.rendered_sites import SITES, WHERE_JS, crawl_rendered, site_fixtures

pytestmark = pytest.mark.slow

SITE = SITES / "docsify"
POLL_S = 0.1
# the ids docsify rendered into the page's content, and its own links to them (a heading's anchor link)
_IDS_JS = """
const content = document.querySelector('.markdown-section');
if (!content) return null;
return [Array.from(content.querySelectorAll('[id]'), e => e.id),
        Array.from(content.querySelectorAll('a.anchor'), a => a.getAttribute('href'))];
"""


def routes() -> list[str]:
    """The route of every Markdown page of the site: commands/npm-ls.md → /commands/npm-ls (README.md is /)."""
    found = ["/" + str(p.relative_to(SITE).with_suffix("")) for p in sorted(SITE.rglob("*.md"))
             if not p.name.startswith("_")]
    return ["/" if r == "/README" else r for r in found]


base, crawled, page = site_fixtures(SITE, "npm")  # the served site, its crawl, its one page


def rendered_ids(driver: Any, url: str, max_wait: float = 15.0) -> tuple[list[str], list[str]]:
    """Load ``url`` afresh; the ids and heading links of its content once unchanged for half a second."""
    driver.get("about:blank")
    driver.get(url)
    deadline, last, since = time.monotonic() + max_wait, None, time.monotonic()
    while True:
        got = driver.execute_script(_IDS_JS)
        now = time.monotonic()
        if got != last:
            last, since = got, now
        elif got and got[0] and now - since >= 0.5:
            return got[0], got[1]
        if now > deadline:
            raise AssertionError(f"{url} did not render: {got}")
        time.sleep(POLL_S)


def test_the_site_is_a_real_manual_of_at_least_20_pages() -> None:
    assert len(routes()) >= 20, routes()
    assert "/commands/npm-install" in routes() and "/configuring-npm/npmrc" in routes()


def test_auto_renders_every_route_into_one_page_that_says_so(crawled: tuple[CrawlResult, RenderingFetcher, float],
                                                             page: Page) -> None:
    result, fetcher, seconds = crawled
    assert result.stats.fetched == 1 and result.stats.failed == 0
    assert fetcher.browser is not None and fetcher.browser.starts == 1
    # the shell (its home route) and every route its pages link to, once each: the manual's pages, and the few
    # routes its text links to that have no page (docsify's "404 - Not found"), which the map leaves out
    assert len(routes()) <= fetcher.rendered <= len(routes()) + 10
    assert page.routes is not None and "?id=" in page.routes
    assert sorted(a for a in page.anchors if "?" not in a) == sorted(routes())
    assert not [s for s in page.sections if "Not found" in s.title]
    texts = {t.anchor: t for t in result.texts if t.anchor}
    assert "print to stdout all the versions of packages" in texts["/commands/npm-ls?id=description"].text
    print(f"\nrendered crawl of {len(routes())} routes, {len(page.sections)} sections in {seconds:.1f} s")


def test_anchor_recall_against_the_dom_a_browser_renders(page: Page, base: str, browser: Any) -> None:
    """Every id docsify renders on every route, in the route form its own heading links use, is in the map."""
    anchors, missing, total = set(page.anchors), [], 0
    for route in routes():
        ids, heading_links = rendered_ids(browser, f"{base}index.html#{route}")
        forms = [f"{route}?id={i}" for i in ids]
        assert {h.removeprefix("#") for h in heading_links} <= set(forms), (route, heading_links)
        total += len(forms)
        missing += [f for f in forms if f not in anchors]
    print(f"\nroute anchors {total - len(missing)}/{total} over {len(routes())} routes")
    assert total > 5 * len(routes()) and missing == []


def test_the_links_docbot_emits_land_on_their_section(crawled: tuple[CrawlResult, RenderingFetcher, float],
                                                      page: Page, browser: Any) -> None:
    """A route link as the ReferenceValidator lets it out, loaded in headless Chromium, ends with its heading near
    the top of the viewport (docsify scrolls to ?id= once the page has rendered): a middle heading of the three
    pages with the most sections, and a page's own route."""
    validator = ReferenceValidator({"npm": crawled[0].map})
    by_route: dict[str, list[Any]] = {}
    for s in page.sections:
        route, sep, _ = (s.anchor or "").partition("?id=")
        if sep:
            by_route.setdefault(route, []).append(s)
    longest = sorted(by_route, key=lambda r: -len(by_route[r]))[:3]
    picks = [by_route[r][len(by_route[r]) // 2] for r in longest]
    assert len(picks) == 3 and all(len(by_route[r]) >= 8 for r in longest)
    for section in picks:
        outcome = validator.check_url(f"{page.url}#{section.anchor}", site="npm")
        assert outcome.action == "kept", outcome
        url = str(outcome.output)
        assert url.startswith(f"{page.url}#/") and "?id=" in url
        heading_id = str(section.anchor).partition("?id=")[2]
        browser.get("about:blank")
        browser.get(url)
        deadline, where = time.monotonic() + 15, None
        while time.monotonic() < deadline:
            where = browser.execute_script(WHERE_JS, heading_id)
            if where is not None and where[2] > 0 and -2 <= where[0] < where[1] / 4:
                break
            time.sleep(POLL_S)
        assert where is not None and where[2] > 0 and -2 <= where[0] < where[1] / 4, (url, where)
        assert in_view(browser, section.title), f"{url}: {section.title!r} is not in view"


def test_the_validator_keeps_route_links_and_repairs_a_wrong_heading_id(
        crawled: tuple[CrawlResult, RenderingFetcher, float], page: Page) -> None:
    validator = ReferenceValidator({"npm": crawled[0].map})
    for fragment in ("/commands/npm-ls?id=configuration", "/commands/npm-ls", "/configuring-npm/npmrc"):
        outcome = validator.check_url(f"{page.url}#{fragment}", site="npm")
        assert (outcome.action, outcome.output) == ("kept", f"{page.url}#{fragment}"), outcome
    for wrong, right in (("/commands/npm-ls?id=configuraton", "/commands/npm-ls?id=configuration"),
                         ("/commands/npm-ls?id=Configuration", "/commands/npm-ls?id=configuration")):
        outcome = validator.check_url(f"{page.url}#{wrong}", site="npm")
        assert (outcome.action, outcome.output) == ("rewritten", f"{page.url}#{right}"), outcome
    outcome = validator.check_url(f"{page.url}#/commands/npm-no-such-command?id=configuration", site="npm")
    assert outcome.action != "kept" and outcome.output != f"{page.url}#/commands/npm-no-such-command?id=configuration"


def test_a_refresh_renders_again_only_when_a_file_the_app_loaded_changed(tmp_path: Path) -> None:
    """The shell of a docsify site does not change when its Markdown does (a conditional request of index.html
    answers 304). The first crawl records the files the app loaded; the next reads them before rendering and keeps
    their fingerprint; a crawl after that, with nothing changed, renders nothing and keeps the page. An edited Markdown
    page is rendered again and is in the map."""
    if not (SITE / "docsify.min.js").is_file():
        pytest.fail(f"{SITE} is missing: run scripts/install.sh (scripts/build_rendered_sites.sh builds it)")
    shutil.copy(SITE / "docsify.min.js", tmp_path)
    (tmp_path / "index.html").write_text((SITE / "index.html").read_text(encoding="utf-8")
                                        .replace("loadSidebar: true", "loadSidebar: false"), encoding="utf-8")
    stamp = time.time() - 100 * 86400  # old files: a browser's cache would reuse them without asking the server
    for name in ("index.html", "docsify.min.js"):
        os.utime(tmp_path / name, (stamp, stamp))
    (tmp_path / "README.md").write_text("# Widget\n\nSee [install](install.md).\n", encoding="utf-8")
    (tmp_path / "install.md").write_text("# Install\n\n## Download\n\nGet it.\n", encoding="utf-8")
    crawls: list[tuple[CrawlResult, int]] = []

    def again(previous: CrawlResult) -> CrawlResult:
        config = CrawlConfig(site="widget", start_url=base + "index.html", render="auto")
        fetcher = open_fetcher(config)
        assert isinstance(fetcher, RenderingFetcher)
        crawls.append((asyncio.run(crawl(config, previous.map, previous.texts, fetcher=fetcher,
                                         previous_mentions=previous.mentions, previous_pages=previous.page_texts)),
                       fetcher.rendered))
        return crawls[-1][0]

    with serve_directory(tmp_path) as base:
        first, fetcher, _ = crawl_rendered("widget", base + "index.html")
        second = again(first)
        third = again(second)
        (tmp_path / "install.md").write_text("# Install\n\n## Build from source\n\nMake it.\n", encoding="utf-8")
        os.utime(tmp_path / "install.md", (stamp, stamp))  # as old as before: only its bytes tell
        fourth = again(third)
        fifth = again(fourth)
    page = base + "index.html"
    sources = first.map.pages[page].sources
    assert base + "install.md" in sources and base + "README.md" in sources and base + "docsify.min.js" in sources
    assert fetcher.rendered >= 2 and first.map.pages[page].etag is None  # recorded, not yet read before a render
    assert [n for _, n in crawls] == [fetcher.rendered, 0, fetcher.rendered, 0]
    assert second.map.pages[page].etag is not None and second.map.pages[page].sources == sources
    assert third.stats.not_modified == 1 and third.map.pages[page] == second.map.pages[page]
    assert third.texts == second.texts
    assert "/install?id=download" in third.map.pages[page].anchors
    assert fourth.stats.not_modified == 0 and fourth.stats.fetched == 1
    after = fourth.map.pages[page].anchors
    assert "/install?id=build-from-source" in after and "/install?id=download" not in after
    assert fifth.stats.not_modified == 1 and fifth.map.pages[page].anchors == after


def test_every_chunk_links_to_its_route_and_the_validator_keeps_it(
        crawled: tuple[CrawlResult, RenderingFetcher, float], page: Page) -> None:
    """The chunks docbot indexes carry the route of their section, and every such deep link is kept as it is."""
    result = crawled[0]
    chunks = chunk_sections(result.texts, result.map)
    validator = ReferenceValidator({"npm": result.map})
    assert len(chunks) >= len(routes()) * 5
    assert [c.deep_url for c in chunks if not (c.anchor or "").startswith("/") or "?id=" not in c.deep_url] == []
    not_kept = [c.deep_url for c in chunks if validator.check_url(c.deep_url, site="npm").output != c.deep_url]
    assert not_kept == []
