"""docbot's quote links on hostile pages, loaded in headless Chromium: each lands in its cited section, never earlier.

``tests/fixtures/hostile_directives/`` is a small Sphinx-like site where a sentence of a cited section also appears
earlier on its page, in places Chromium searches for a text directive although a naive visible-text model skips them
(measured by ``scripts/probe_text_directives.py``): SVG ``<text>``, a ``hidden`` element that CSS shows,
declarative shadow DOM, ``hidden="until-found"``, a ``<textarea>``; and a ``<br>`` inside the cited sentence (an exact
match stops there, so a later section's copy matches first). Controls hold the sentence earlier where
Chromium does not search either (``<script>``, a class rule's ``display:none``, ``<object>`` fallback,
``<noscript>``), or are merely hard (a 600-word sentence, a punctuation-heavy one).

The site is served on 127.0.0.1 and crawled; the ReferenceValidator gives each (section, quoted passage) its link.
After the settled wait (past the fallback of a directive Chromium does not find), the link must show the passage
inside its section or sit where the bare ``#anchor`` does. A hostile case may go without a directive (landing on
the anchor is fine); a control case must have one; the share of each is printed (``pytest -s``). Chromium comes from :mod:`tests.browser` (skipped without it).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pytest

from crawlers.crawl import CrawlConfig
from crawlers.urls import split_directive
from docbot.references.validator import ReferenceValidator
from tests.browser import STILL_S, in_view, settled_scroll
from tests.conftest import serve_directory
from tests.crawling import crawl_as_cli

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2] / "fixtures" / "hostile_directives"
SITE = "lanternfly"
OPENING_WORDS = 6  # the passage's opening words must be in view inside the section


# hostile: Chromium searches ``where``, a naive model does not (a directive may be dropped; landing on the anchor is
# fine). overcounted: the model cannot tell Chromium skips ``where`` (a CSS rule), so it may drop the directive.
# control: Chromium does not search ``where`` (or there is no earlier copy): the text is unambiguous, a directive
# must be made.
Kind = Literal["hostile", "overcounted", "control"]


@dataclass(frozen=True, slots=True)
class Case:
    page: str
    anchor: str
    passage: str  # quoted from the section; it also appears earlier on the page, in ``where``
    where: str
    kind: Kind

    @property
    def id(self) -> str:
        return f"{self.page.removesuffix('.html')}#{self.anchor} ({self.where})"


CASES = (
    Case("architecture.html", "request-flow",
         "Workers acknowledge a job only after its handler has returned, so a crash never loses a job.",
         "svg text", "hostile"),
    Case("architecture.html", "retries",
         "Retry budget per queue is shared by every worker that consumes from it, and resets each minute.",
         "svg text holding the opening words", "hostile"),
    Case("settings.html", "timeouts",
         "The default timeout for a job is thirty seconds unless the queue overrides it.",
         "hidden + inline display:block", "hostile"),
    Case("settings.html", "heartbeats",
         "Workers send a heartbeat every five seconds and are presumed dead after three missed beats.",
         "hidden shown by a style rule", "hostile"),
    Case("settings.html", "limits",
         "Size limits: jobs may carry arguments up to one megabyte, and larger results are stored as files.",
         "a later section; the cited copy has a <br>", "hostile"),
    Case("installation.html", "extras",
         "Install the broker extras with pip when you also want to run a local broker for development.",
         "declarative shadow DOM", "hostile"),
    Case("queues.html", "priorities",
         "Higher priority queues are always drained before lower ones, even when they are busy.",
         "hidden=until-found", "hostile"),
    Case("queues.html", "concurrency",
         "Set the concurrency to the number of cores when jobs spend most of their time computing.",
         "textarea", "hostile"),
    Case("guide.html", "scheduling",
         "Periodic jobs are declared with a cron expression and run by the scheduler process.",
         "script", "control"),
    Case("guide.html", "errors",
         "A job that raises an exception is retried with the queue's backoff policy.",
         "display:none by a class rule", "overcounted"),
    Case("guide.html", "results",
         "Results are kept in the result store for one day and then expire.",
         "object fallback", "control"),
    Case("guide.html", "dashboard",
         "The dashboard lists every queue with its length and the age of its oldest job.",
         "noscript", "control"),
    Case("internals.html", "calling",
         "Call run(queue=\"mail\", retries=3, backoff=(1, 2, 4)) -- not run('mail', 3) -- when in doubt; see §4.2 & the FAQ!",
         "punctuation, nowhere else", "control"),
)
LONG_CASE = ("internals.html", "main-loop")  # its passage is the section's 600-word sentence, read from the page


def _long_sentence() -> str:
    html = (ROOT / LONG_CASE[0]).read_text(encoding="utf-8")
    start = html.index("<p>In the main loop ") + len("<p>")
    return html[start:html.index("</p>", start)]


ALL_CASES = (*CASES, Case(*LONG_CASE, _long_sentence(), "600-word sentence, nowhere else", "control"))


@dataclass(frozen=True, slots=True)
class Link:
    bare: str  # the page URL and #anchor
    url: str  # the validator's output for the quoted passage
    directive: str | None


@pytest.fixture(scope="module")
def hostile_links(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Link]]:
    """case id → its link, from the validator over a real crawl of the served fixture site."""
    work = tmp_path_factory.mktemp("hostile")
    with serve_directory(ROOT) as base:
        result, generation = crawl_as_cli(CrawlConfig(site=SITE, start_url=base + "index.html", sitemaps=False),
                                          work / "maps", work / "data")
        amap, texts = result.map, {page.url: page for page in generation.load_pages()}
        validator = ReferenceValidator({SITE: amap}, page_texts=lambda site, page: texts.get(page))
        links = {}
        for case in ALL_CASES:
            bare = f"{base}{case.page}#{case.anchor}"
            output = validator.quote_link(bare, case.passage, SITE).output
            assert output is not None, f"{case.id}: the validator dropped the link"
            links[case.id] = Link(split_directive(output)[0], output, split_directive(output)[1])
        yield links


def test_control_passages_get_a_directive_and_the_share_is_shown(hostile_links: dict[str, Link]) -> None:
    rows = [f"{'directive' if hostile_links[c.id].directive else 'anchor only':12} {c.kind:12} {c.id}" for c in ALL_CASES]
    shares = {kind: [bool(hostile_links[c.id].directive) for c in ALL_CASES if c.kind == kind]
              for kind in ("hostile", "overcounted", "control")}
    print("\ncases with a directive: " + ", ".join(f"{kind} {sum(got)} of {len(got)}" for kind, got in shares.items())
          + "\n" + "\n".join(rows))
    for case in ALL_CASES:
        assert hostile_links[case.id].bare.endswith(f"/{case.page}#{case.anchor}"), f"{case.id}: {hostile_links[case.id]}"
    missing = [c.id for c in ALL_CASES if c.kind == "control" and not hostile_links[c.id].directive]
    assert not missing, f"no text directive for unambiguous passages: {missing}"


@pytest.mark.parametrize("case", ALL_CASES, ids=lambda c: c.id)
def test_each_link_lands_in_its_section(browser: Any, hostile_links: dict[str, Link], case: Case) -> None:
    link = hostile_links[case.id]
    opening = " ".join(case.passage.split()[:OPENING_WORDS])
    anchor_y = settled_scroll(browser, link.bare, min_wait=STILL_S)  # no directive: nothing to fall back from

    def landed(driver: Any, y: int) -> bool:
        return y == anchor_y or in_view(driver, opening, within=case.anchor)

    y = settled_scroll(browser, link.url, landed)
    elsewhere = in_view(browser, opening)  # the passage's words are in view, but not in the section
    assert landed(browser, y), (
        f"{link.url} (directive {'yes' if link.directive else 'no'}) settled at scrollY {y}: neither at the bare "
        f"#{case.anchor} ({anchor_y}) nor with its quoted passage in view"
        + (f"; the copy in {case.where} is in view: it matched first" if elsewhere else ""))


def test_a_directive_found_nowhere_falls_back_to_its_anchor_after_the_settled_wait(
        browser: Any, hostile_links: dict[str, Link]) -> None:
    """What the wait is for: Chromium sits at the top for a moment, then scrolls to the anchor."""
    bare = hostile_links[ALL_CASES[0].id].bare
    anchor_y = settled_scroll(browser, bare, min_wait=STILL_S)
    assert anchor_y > 0, f"{bare}: the fixture page is too short to tell the anchor from the top"
    assert settled_scroll(browser, bare + ":~:text=zzqq%20stale%20sentence") == anchor_y


def test_a_sentence_moved_earlier_or_edited_after_the_crawl_still_lands_in_its_section(
        browser: Any, tmp_path: Path) -> None:
    """After the crawl the quoted sentence moves to the top of its page, then is edited: the link made at answer time
    (docbot.freshness asks whether the page changed) lands in its section both times; the directive made before the
    move would now land at the top, which is what the check prevents."""
    import os
    import shutil

    from docbot.freshness import LivePages

    site = tmp_path / "site"
    shutil.copytree(ROOT, site)
    case = next(c for c in CASES if c.anchor == "scheduling")
    page = site / case.page
    with serve_directory(site) as base:
        result, generation = crawl_as_cli(CrawlConfig(site=SITE, start_url=base + "index.html", sitemaps=False),
                                          tmp_path / "maps", tmp_path / "data")
        amap, texts = result.map, {p.url: p for p in generation.load_pages()}
        bare = f"{base}{case.page}#{case.anchor}"

        def link() -> str:
            live = LivePages(timeout_s=60.0)  # a new one each time: no answer cached from before the change
            validator = ReferenceValidator({SITE: amap}, page_texts=lambda s, p: texts.get(p),
                                           freshen=live.for_maps({SITE: amap}))
            return validator.quote_link(bare, case.passage, SITE).output or ""

        before = link()
        assert split_directive(before)[1], before
        anchor_y = settled_scroll(browser, bare, min_wait=STILL_S)
        html = page.read_text(encoding="utf-8")
        body = html.index("<body>") + len("<body>")
        page.write_text(html[:body] + f"<p>{case.passage}</p>" + html[body:], encoding="utf-8")  # moved earlier
        os.utime(page)
        moved = link()
        moved_y = settled_scroll(browser, moved, lambda d, y: y == anchor_y or in_view(d, case.passage, case.anchor))
        assert moved_y == anchor_y or in_view(browser, case.passage, case.anchor), f"{moved} settled at {moved_y}"
        stale_y = settled_scroll(browser, before)  # what the check prevents: the old directive lands at the top
        assert stale_y != anchor_y and not in_view(browser, case.passage, case.anchor), stale_y
        page.write_text(html.replace(case.passage, case.passage.replace("Periodic jobs", "Recurring jobs")),
                        encoding="utf-8")  # edited in place: the old directive's text is gone
        os.utime(page)
        edited = link()
        assert split_directive(edited)[1] is None, edited  # the old passage is not on the page any more
        assert settled_scroll(browser, before) == anchor_y  # a stale directive falls back to the anchor
