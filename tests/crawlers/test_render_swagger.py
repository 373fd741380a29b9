"""A real Swagger UI site end to end: swagger-ui-dist 5 (its own index.html, ``deepLinking: true``, operations
collapsed) rendering the Docker Engine API (105 operations), crawled with ``render = "auto"``. Swagger UI lands on
an operation by the route ``#/<tag>/<operationId>`` and on a tag by ``#/<tag>``: the map records those routes (every
operation expanded in the browser first, its description only in the DOM then), they are checked against the DOM a
browser renders, and the links docbot emits are loaded in headless Chromium.

The site is built by ``scripts/build_rendered_sites.sh`` (run by ``scripts/install.sh``) and served on 127.0.0.1.
"""

from __future__ import annotations

import json
import logging
import shutil
import time
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest

from crawlers.crawl import CrawlResult
from crawlers.fetch import RenderingFetcher
from crawlers.model import Page, Section
from docbot.indexing.chunk import chunk_sections
from docbot.references.validator import ReferenceValidator
from tests.browser import in_view
from tests.crawlers.rendered_sites import SITES, WHERE_ROUTE_JS, crawl_rendered, served, settled, site_fixtures

pytestmark = pytest.mark.slow

SITE = SITES / "swagger"
METHODS = ("get", "put", "post", "delete", "patch", "head", "options")
# the routes of every operation and tag Swagger UI rendered (their own links, decoded), and their DOM ids
_ROUTES_JS = """
const own = (el, sel) => { const a = el.querySelector(sel); return a ? decodeURIComponent(a.getAttribute('href').slice(1)) : null; };
return [Array.from(document.querySelectorAll('.opblock'), e => [own(e, '.opblock-summary a[href^="#/"]'), e.id]),
        Array.from(document.querySelectorAll('.opblock-tag'), e => [own(e, 'a[href^="#/"]'), e.id])];
"""
def operations() -> list[tuple[str, str, str]]:
    """(first tag, Swagger UI's "default" when it has none; operationId; summary) of every operation, in order."""
    spec = json.loads((SITE / "openapi.json").read_text(encoding="utf-8"))
    return [((op.get("tags") or ["default"])[0], op["operationId"], op.get("summary", ""))
            for path in spec["paths"].values() for method, op in path.items() if method in METHODS]


def tags() -> list[str]:
    return list(dict.fromkeys(tag for tag, _, _ in operations()))


base, crawled, page = site_fixtures(SITE, "docker")  # the served site, its crawl, its one page


def sections_by_anchor(page: Page) -> dict[str, Section]:
    return {s.anchor: s for s in page.sections if s.anchor}


def test_the_site_is_swagger_ui_as_shipped_over_a_real_api_of_50_to_150_operations() -> None:
    ops = operations()
    assert 50 <= len(ops) <= 150 and len({op for _, op, _ in ops}) == len(ops)
    initializer = (SITE / "swagger-initializer.js").read_text(encoding="utf-8")
    assert "deepLinking: true" in initializer and "docExpansion" not in initializer  # operations collapsed
    assert 'url: "openapi.json"' in initializer


def test_swagger_ui_lands_on_routes_not_on_its_element_ids(base: str, browser: Any) -> None:
    """What the package does, measured: an operation's description is in the DOM only once expanded; loading its
    route expands it and scrolls it to the top; its element id as a fragment is rewritten to a route and lands
    nowhere (the page stays at the top)."""
    def rendered(driver: Any) -> Any:
        return driver.execute_script("return document.querySelectorAll('.opblock').length") >= len(operations())

    assert settled(browser, base + "index.html", rendered)
    assert browser.execute_script("return document.querySelectorAll('.opblock.is-open').length") == 0
    assert "Returns a list of containers" not in browser.execute_script("return document.body.innerText")

    def opened(driver: Any) -> Any:
        where = driver.execute_script(WHERE_ROUTE_JS, "/Container/ContainerList")
        return where if where and where[2] and -2 <= where[0] < 40 else None

    assert settled(browser, base + "index.html#/Container/ContainerList", opened)
    assert "Returns a list of containers" in browser.execute_script("return document.body.innerText")

    assert settled(browser, base + "index.html#operations-Container-ContainerList", rendered)
    time.sleep(2)
    assert browser.execute_script("return [Math.round(scrollY), location.hash]") == \
        [0, "#/operations-Container-ContainerList"]


def test_auto_renders_and_expands_every_operation_into_a_section_of_its_route(
        crawled: tuple[CrawlResult, RenderingFetcher, float], page: Page) -> None:
    result, fetcher, seconds = crawled
    assert fetcher.rendered == 1 and fetcher.browser is not None and fetcher.browser.starts == 1
    assert result.stats.fetched == 1 and result.stats.failed == 0
    assert page.source_type == "API reference" and page.routes is not None and "#/<tag>/<operationId>" in page.routes
    assert page.etag is None and page.last_modified is None  # the OpenAPI description may change under the shell
    by_anchor = sections_by_anchor(page)
    wrong = [op for tag, op, summary in operations()
             if f"/{tag}/{op}" not in by_anchor or by_anchor[f"/{tag}/{op}"].title != (summary or by_anchor[f"/{tag}/{op}"].title)
             or by_anchor[f"/{tag}/{op}"].path[-2] != tag]
    assert wrong == []
    assert [t for t in tags() if f"/{t}" not in by_anchor or by_anchor[f"/{t}"].title != t] == []
    # only the routes: no element id of Swagger UI (none lands) is in the map
    assert sorted(page.anchors) == sorted({f"/{tag}/{op}" for tag, op, _ in operations()} | {f"/{t}" for t in tags()})
    texts = {t.anchor: t for t in result.texts if t.anchor}
    assert "GET /containers/json" in texts["/Container/ContainerList"].text
    assert "Returns a list of containers" in texts["/Container/ContainerList"].text  # there only once expanded
    print(f"\nrendered crawl of {len(operations())} operations, {len(tags())} tags, {len(page.sections)} sections "
          f"in {seconds:.1f} s")


def test_anchor_recall_against_the_dom_a_browser_renders(page: Page, base: str, browser: Any) -> None:
    """Every operation and tag Swagger UI renders, by the route its own link gives it, is in the map (100 %), and
    the map holds no route the DOM has not."""
    def routes(driver: Any) -> Any:
        got = driver.execute_script(_ROUTES_JS)
        return got if len(got[0]) >= len(operations()) else None

    ops, tag_heads = settled(browser, base + "index.html", routes)
    assert all(route and dom_id.startswith("operations-") for route, dom_id in ops + tag_heads)
    dom = {route for route, _ in ops + tag_heads}
    missing = sorted(dom - set(page.anchors))
    print(f"\noperations {len(ops)}, tags {len(tag_heads)}: routes in the map {len(dom) - len(missing)}/{len(dom)}")
    assert len(ops) == len(operations()) and len(tag_heads) == len(tags())
    assert missing == [] and set(page.anchors) == dom


def test_the_links_docbot_emits_land_on_their_operation(crawled: tuple[CrawlResult, RenderingFetcher, float],
                                                        page: Page, browser: Any) -> None:
    """A route from the map, as the ReferenceValidator lets it out (a wrong one repaired first), loaded in headless
    Chromium, ends with its operation expanded at the top of the viewport and its title in view: operations at the
    start, middle and end, one whose tag has a space and parentheses, the untagged one, a tag, and repaired ones
    (Swagger UI's element id and Redoc's form of an operation among them)."""
    validator = ReferenceValidator({"docker": crawled[0].map})
    ops = [f"/{tag}/{op}" for tag, op, _ in operations()]
    sections = sections_by_anchor(page)
    picks = [(r, r) for r in (ops[0], ops[len(ops) // 2], ops[-1], "/Session (experimental)/Session",
                              "/default/TaskLogs", "/Image")]
    picks += [("/Container/containerlist", "/Container/ContainerList"), ("/Volume/VolumeCreat", "/Volume/VolumeCreate")]
    # the element id Swagger UI gives the operation, and Redoc's link to it: both to the route
    picks += [("operations-Container-ContainerList", "/Container/ContainerList"),
              ("tag/Image/operation/ImageList", "/Image/ImageList")]
    landed_count = 0
    for asked, route in picks:
        outcome = validator.check_url(f"{page.url}#{asked}".replace(" ", "%20"), site="docker")
        assert outcome.action == ("kept" if asked == route else "rewritten"), outcome
        url = str(outcome.output)
        assert unquote(url.partition("#")[2]) == route, outcome

        def landed(driver: Any, route: str = route) -> Any:
            where = driver.execute_script(WHERE_ROUTE_JS, route)
            return where if where and where[2] and -2 <= where[0] < where[1] / 4 else None

        assert settled(browser, url, landed), f"{url} did not land on {route}"
        assert in_view(browser, sections[route].title), f"{url}: {sections[route].title!r} is not in view"
        landed_count += 1
    print(f"\nlinks landed {landed_count}/{len(picks)}")


def test_every_chunk_links_to_a_route_the_validator_keeps(crawled: tuple[CrawlResult, RenderingFetcher, float],
                                                          page: Page) -> None:
    result = crawled[0]
    chunks = chunk_sections(result.texts, result.map)
    validator = ReferenceValidator({"docker": result.map})
    # every operation (a tag without words of its own has its operations' chunks, not one of its own)
    assert {f"/{tag}/{op}" for tag, op, _ in operations()} <= {c.anchor for c in chunks}
    not_kept = [c.deep_url for c in chunks if validator.check_url(c.deep_url, site="docker").output != c.deep_url]
    assert not_kept == []


def test_the_validator_repairs_wrong_routes_and_attaches_no_text_directive(
        crawled: tuple[CrawlResult, RenderingFetcher, float], page: Page) -> None:
    result = crawled[0]
    texts = {p.url: p for p in result.page_texts}
    validator = ReferenceValidator({"docker": result.map}, page_texts=lambda site, url: texts.get(url))
    for wrong, right in (("/Containers/ContainerList", "/Container/ContainerList"), ("/image", "/Image"),
                         ("/Session_(experimental)/Session", "/Session%20%28experimental%29/Session")):
        outcome = validator.check_url(f"{page.url}#{wrong}", site="docker")
        assert (outcome.action, outcome.output) == ("rewritten", f"{page.url}#{right}"), outcome
    # a text directive moves Swagger UI's view off the operation it scrolled to: a route gets none
    outcome = validator.check_url(f"{page.url}#/Container/ContainerList:~:text=List%20containers", site="docker")
    assert outcome.output == f"{page.url}#/Container/ContainerList", outcome
    quoted = validator.quote_link(f"{page.url}#/Container/ContainerList", "Returns a list of containers", site="docker")
    assert quoted.output == f"{page.url}#/Container/ContainerList", quoted


def test_a_deprecated_operation_is_expanded_once_and_read_whole(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Swagger UI never gives a deprecated operation the class is-open (it is "opblock opblock-deprecated", open or
    not): expanded, it must count as open (its control's aria-expanded), or every round of clicks shuts it and opens
    it again until the expansion's time limit, and its description is in the map or not by the parity of rounds."""
    site = tmp_path / "swagger"
    shutil.copytree(SITE, site)
    spec = json.loads((SITE / "openapi.json").read_text(encoding="utf-8"))
    spec["paths"]["/containers/json"]["get"]["deprecated"] = True
    spec["paths"]["/images/json"]["get"]["deprecated"] = True
    (site / "openapi.json").write_text(json.dumps(spec), encoding="utf-8")
    with caplog.at_level(logging.INFO, logger="crawlers.fetch"), served(site) as url:
        result, _, seconds = crawl_rendered("docker-deprecated", url + "index.html")
    expanded = [r.getMessage() for r in caplog.records if "expanded" in r.getMessage()]
    assert not [r for r in caplog.records if "left collapsed" in r.getMessage()], caplog.text
    # every operation clicked once: none shut again by a second round
    assert [m.split(": ")[1].split(" in ")[0] for m in expanded] == [f"expanded {len(operations())}"], caplog.text
    # an operation's text, the sections below it included (Swagger UI heads a deprecated one's body with an h4
    # "Warning: Deprecated", a section of its own)
    def text(tag: str, title: str) -> str:
        return " ".join(t.text for t in result.texts if t.path[1:3] == (tag, title))

    assert "GET /containers/json" in text("Container", "List containers")
    assert "Returns a list of containers" in text("Container", "List containers")  # its description: expanded
    assert "GET /images/json" in text("Image", "List Images") and "Show all images" in text("Image", "List Images")
    page = result.map.page(url + "index.html")
    assert page is not None
    assert sorted(page.anchors) == sorted({f"/{tag}/{op}" for tag, op, _ in operations()} | {f"/{t}" for t in tags()})
    print(f"\n2 deprecated of {len(operations())} operations: crawled in {seconds:.1f} s")
