"""The report's independent check of text directives: the served HTML read with BeautifulSoup, matched by regex."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crawlers.page_text import PageText
from docbot.answer import Status
from docbot.references.textfrag import PageMatcher, TextDirective
from docbot.report.directive_figures import directive_failures, directive_rates, failing_links
from docbot.report.independent import IndependentPage
from docbot.report.live import check_links
from docbot.report.metrics import Question, QuestionResult
from tests.conftest import serve_directory

HTML = """<html><head><title>T</title><script>var s = "If typed is set";</script></head><body>
<div class="sidebar"><p>See: install the tool</p></div>
<div role="main">
<section id="install"><h2>Install<a class="headerlink" href="#install">¶</a></h2>
<p>To <em>install</em> the tool, run the installer. <span hidden>If typed</span>Done.</p>
<section id="windows"><h3>Windows</h3><p>On Windows, run the installer as administrator.</p></section>
</section>
<div class="section"><h2><a name="usage"></a>Usage</h2><p>Run the tool with a path.</p>
<dl><dt id="f">f(x)</dt><dt>f(x, y)</dt><dd><p>Calls f. Run the installer again.</p></dd></dl></div>
<h2 id="last">Last</h2><p>The end.</p>
</div></body></html>"""


@pytest.fixture(scope="module")
def page() -> IndependentPage:
    return IndependentPage(HTML)


@pytest.mark.parametrize("fragment,directive,verdict", [
    ("install", "text=To%20install%20the,installer.", "ok"),
    ("install", "text=On%20Windows%2C,administrator.", "ok"),  # a subsection is inside
    ("windows", "text=To%20install%20the", "outside its section"),
    ("usage", "text=Calls%20f.", "ok"),  # a marker in the heading: the heading's section
    ("f", "text=Run%20the%20installer%20again", "ok"),  # a dt: its further terms and their description
    ("f", "text=Run%20the%20tool", "outside its section"),
    ("install", "text=install%20the%20tool", "outside its section"),  # the sidebar comes first
    ("install", "text=If%20typed", "not found"),  # script and hidden text are not searched
    ("usage", "text=run-,the%20installer,-as", "outside its section"),
    ("windows", "text=run-,the%20installer,-as", "ok"),
    ("last", "text=The%20end.", "ok"),
    ("nowhere", "text=The%20end.", "no element #nowhere with a section"),
    ("", "text=The%20end.", "ok"),
])
def test_the_independent_check_reads_sections_and_matches_as_browsers_do(
        page: IndependentPage, fragment: str, directive: str, verdict: str) -> None:
    assert page.check(fragment, directive) == verdict


def test_the_live_check_judges_a_link_with_a_directive(tmp_path: Path) -> None:
    (tmp_path / "p.html").write_text(HTML, encoding="utf-8")
    with serve_directory(tmp_path) as base:
        urls = [base + "p.html#install:~:text=To%20install%20the,installer.", base + "p.html#windows:~:text=To%20install",
                base + "p.html#install"]
        checks = asyncio.run(check_links(urls))
    assert [checks[u].ok for u in urls] == [True, True, True]
    assert [checks[u].directive for u in urls] == ["ok", "outside its section", None]
    assert checks[urls[0]].own_directive == "ok" and "outside #windows" in (checks[urls[1]].own_directive or "")
    assert checks[urls[2]].own_directive is None and [checks[u].landed for u in urls] == [True, False, True]


def test_directive_figures_count_quoted_sources_and_both_verdicts() -> None:
    q = Question("q1", "s", "semantic", "?")
    results = [QuestionResult(q, "http://h/", Status.ANSWERED, ("http://h/a#x:~:text=a", "http://h/b#y", "http://h/c#z:~:text=c"),
                              (True, True, True), quoted=(True, True, False), directives=("ok", None, "outside its section"),
                              own_directives=("ok", None, "ok"))]
    rates = directive_rates(results)
    assert rates["quoted"] == 2 and rates["carried"] == 1 and rates["share"] == 50.0
    assert rates["directives"] == 2 and rates["validity"] == 50.0 and rates["outside"] == 1
    assert len(directive_failures(rates, 80, 100)) == 2 and directive_failures(rates, 50, 50) == []


def test_a_directive_stale_on_the_served_page_is_counted_and_not_valid() -> None:
    q = Question("q1", "s", "semantic", "?")
    links = ("http://h/a#x:~:text=a", "http://h/c#z:~:text=c")
    results = [QuestionResult(q, "http://h/", Status.ANSWERED, links, (True, True), quoted=(True, True),
                              directives=("ok", "ok"), own_directives=("ok", "ok"),
                              live_directives=("its text is not on the page", "ok"))]
    rates = directive_rates(results)
    assert rates["stale"] == 1 and rates["validity"] == 50.0
    assert "text directive of http://h/a#x:~:text=a: its text is not on the page (docbot on the served page)" in \
        failing_links(results[0])


WORDS = st.sampled_from("the tool run a install cache set it".split())
PHRASE = st.lists(WORDS, min_size=1, max_size=3).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(WORDS, min_size=1, max_size=8).map(" ".join), min_size=1, max_size=6),
       PHRASE, st.one_of(st.just(""), PHRASE), st.one_of(st.just(""), PHRASE), st.one_of(st.just(""), PHRASE))
def test_docbot_and_the_independent_check_find_the_same_first_match(
        runs: list[str], start: str, end: str, prefix: str, suffix: str) -> None:
    directive = TextDirective(start, end, prefix, suffix)
    matcher = PageMatcher(PageText.of_runs("http://h/p.html", tuple((0, r) for r in runs), ((1, ("s",)),)))
    found = matcher.first_match(directive)
    mine = None if found is None else (matcher.run_of(found[0]), matcher.run_of(found[1] - 1))
    html = "<html><body>" + "".join(f"<p>{r}</p>" for r in runs) + "</body></html>"
    assert IndependentPage(html).first_match(directive.encode()) == mine
