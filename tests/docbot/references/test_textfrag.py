"""Text directives: syntax, the browsers' search over a page's runs, where the first match lands, and derivation."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from crawlers.page_text import OUTSIDE, PageText
from docbot.references.textderive import derive, locate
from docbot.references.textfrag import PageMatcher, TextDirective, fold, parse, parse_one

SECTIONS = ((1, ("guide",)), (2, ("install", "label")), (3, ("windows",)), (2, ("usage",)))
RUNS = (
    (OUTSIDE, "Contents: Install Usage"),
    (0, "Guide"),
    (0, "The guide says how to install the tool."),
    (1, "Install"),
    (1, "To install the tool, run the installer. If typed is set to true, arguments are cached."),
    (2, "Windows"),
    (2, "On Windows, run the installer as administrator."),
    (3, "Usage"),
    (3, "Run the tool with a path. Run the installer again to repair it."),
    (OUTSIDE, "Footer: install the tool"),
)
PAGE = PageText.of_runs("http://h/guide.html", RUNS, SECTIONS, {"inline-note": 6})


def first(start: str, end: str = "", prefix: str = "", suffix: str = "") -> str | None:
    m = PageMatcher(PAGE)
    found = m.first_match(TextDirective(start, end, prefix, suffix))
    return None if found is None else m.raw[found[0]:found[1]]


def test_parse_reads_prefix_start_end_suffix_percent_decoded() -> None:
    assert parse_one("If%20typed-,is%20set,true%2C,-arguments") == TextDirective("is set", "true,", "If typed", "arguments")
    assert parse_one("a%2Db") == TextDirective("a-b")
    found, others = parse("text=one&foo=bar&text=two,three")
    assert found == [TextDirective("one"), TextDirective("two", "three")] and others == 1


@pytest.mark.parametrize("bad", ["", "a-", "-a", "a,b,c", "a-b", "p-,q-,r", "%FF", "a,,b"])
def test_malformed_directives_are_refused(bad: str) -> None:
    assert parse_one(bad) is None


def test_encode_percent_encodes_the_syntax_characters_and_spaces() -> None:
    d = TextDirective("a-b, c&d", "x~y", "pre fix", "(s)")
    encoded = d.encode()
    assert encoded == "text=pre%20fix-,a%2Db%2C%20c%26d,x%7Ey,-%28s%29"
    assert parse(encoded)[0] == [d]


def test_matching_ignores_case_quotes_and_accents_and_respects_word_boundaries() -> None:
    assert first("if TYPED is") == "If typed is"
    assert first("instal") is None  # not a whole word
    assert fold("Don’t CAFÉ") == "don't cafe"


def test_a_match_never_crosses_a_block_but_start_and_end_span_blocks() -> None:
    assert first("Windows On Windows") is None
    assert first("Windows", "administrator.") == "Windows\nOn Windows, run the installer as administrator."


def test_prefix_and_suffix_pick_the_occurrence() -> None:
    assert first("run the installer") == "run the installer"
    m = PageMatcher(PAGE)
    at = m.first_match(TextDirective("run the installer", prefix="Windows,"))
    assert at is not None and m.run_of(at[0]) == 6
    at = m.first_match(TextDirective("run the installer", suffix="again"))
    assert at is not None and m.run_of(at[0]) == 8
    assert first("the tool", suffix="nowhere") is None


def test_lands_inside_the_section_and_its_subsections_only() -> None:
    m = PageMatcher(PAGE)
    assert m.lands(TextDirective("run the installer", prefix="Windows,"), "install") == ""  # a subsection
    assert m.lands(TextDirective("run the installer", prefix="Windows,"), "label") == ""  # an alias
    assert m.lands(TextDirective("Run the tool"), "usage") == ""
    why = m.lands(TextDirective("install the tool"), "install")  # first found in the guide's intro
    assert why == "its first match is outside #install (in #guide)"
    assert m.lands(TextDirective("as administrator"), "inline-note") == ""  # an id inside a section
    assert m.lands(TextDirective("Run the tool"), "inline-note") != ""
    assert m.lands(TextDirective("nothing like it"), "usage") == "its text is not on the page"
    assert m.lands(TextDirective("Footer"), "") == ""  # no fragment: the page
    assert "no section" in m.lands(TextDirective("Guide"), "missing")


def test_derive_takes_the_fewest_words_that_land_first_in_the_section() -> None:
    m = PageMatcher(PAGE)
    d = derive(m, "install", "If typed is set to true, arguments are cached.")
    assert d == TextDirective("If typed is", "cached")  # a final full stop is left off
    # "run the installer" also stands earlier (in Install): the start needs a fourth word
    assert derive(m, "usage", "Run the installer again to repair it.") == TextDirective("Run the installer again", "it")
    short = derive(m, "windows", "run the installer as administrator.")
    assert short == TextDirective("run the installer as administrator")
    # "to install the" stands earlier, in the guide's intro: the start takes a fourth word
    assert derive(m, "install", "To install the tool, run the installer.") == TextDirective("To install the tool,", "installer")


def test_derive_adds_a_prefix_when_the_passage_also_stands_earlier() -> None:
    page = PageText.of_runs("http://h/p.html", ((0, "A"), (0, "Call the helper now."), (1, "B"), (1, "Then: call the helper now.")),
                    ((1, ("a",)), (1, ("b",))))
    d = derive(PageMatcher(page), "b", "call the helper now.")
    assert d == TextDirective("call the helper now", prefix="Then:")
    assert derive(PageMatcher(page), "a", "nowhere to be found here") is None


def test_locate_finds_the_longest_part_of_a_fact_made_of_several() -> None:
    m = PageMatcher(PAGE)
    extent = m.extent("install")
    assert extent is not None
    span = locate(m, extent, "-u, --untracked: To install the tool, run the installer. If …")
    assert span is not None and m.raw[span.start:span.end] == "To install the tool, run the installer. If"


WORDS = st.sampled_from("the tool run a path install cache set to true it is and of".split())
RUN = st.lists(WORDS, min_size=1, max_size=12).map(" ".join)


@st.composite
def pages(draw: st.DrawFn) -> PageText:
    count = draw(st.integers(1, 5))
    sections = tuple((draw(st.integers(1, 3)), (f"s{i}",)) for i in range(count))
    runs = [(OUTSIDE, draw(RUN)) for _ in range(draw(st.integers(0, 2)))]
    for i in range(count):
        runs += [(i, draw(RUN)) for _ in range(draw(st.integers(1, 4)))]
    page = PageText.of_runs("http://h/p.html", tuple(runs), sections)
    hidden = []
    for _ in range(draw(st.integers(0, 3))):  # text left out of the model: an SVG's text, a hidden element…
        run = draw(st.integers(0, len(runs)))
        offset = draw(st.sampled_from([0, len(runs[run][1])])) if run < len(runs) else 0
        hidden.append((run, offset, draw(RUN)))
    return dataclasses.replace(page, hidden=tuple(sorted(hidden)))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pages(), st.data())
def test_a_derived_directive_matches_its_own_passage_first_inside_its_section(page: PageText, data: st.DataObject) -> None:
    inside = [(i, text) for i, (section, text) in enumerate(page.runs) if section != OUTSIDE]
    index, text = data.draw(st.sampled_from(inside))
    words = text.split()
    a = data.draw(st.integers(0, len(words) - 1))
    b = data.draw(st.integers(a + 1, len(words)))
    passage = " ".join(words[a:b])
    fragment = page.sections[page.runs[index][0]][1][0]
    m = PageMatcher(page)
    d = derive(m, fragment, passage)
    assume(d is not None)
    assert d is not None
    found = m.first_match(d)
    assert found is not None and m.lands(d, fragment) == ""
    # a browser that also searches every piece of hidden text finds what picks the place once: at the passage
    picks = (d.prefix, d.start) if d.end else (d.prefix, d.start, d.suffix)
    assert fold(page.with_text()).count(fold(" ".join(" ".join(picks).split()))) == 1
    if b - a >= 3:
        assert fold(m.raw[found[0]:found[1]]) == fold(passage)
    assert parse(d.encode())[0] == [d]


@given(st.text(min_size=1), st.text(), st.text(), st.text())
def test_encode_and_parse_round_trip(start: str, end: str, prefix: str, suffix: str) -> None:
    d = TextDirective(*(" ".join(t.split()) for t in (start, end, prefix, suffix)))
    assume(d.start)
    encoded = d.encode()
    assert not set(encoded[len("text="):]) & set(" #&\n") and encoded.count(",") == 1 + bool(d.end) + bool(d.suffix) - 1 + bool(d.prefix)
    assert parse(encoded) == ([d], 0)


HOSTILE = PageText.of_runs("http://h/p.html", (
    (0, "Guide"), (0, "Read this guide first."),
    (1, "Usage"), (1, "Pass a timeout: set the timeout in seconds to stop waiting for a slow server."),
), ((1, ("guide",)), (1, ("usage",))), hidden=((1, 0, "set the timeout in seconds"),))  # an SVG's <text> on top


def test_a_directive_never_picks_text_that_also_stands_where_the_model_does_not_look() -> None:
    m = PageMatcher(HOSTILE)
    assert m.lands(TextDirective("set the timeout in seconds", prefix="Pass a timeout:"), "usage") == ""
    assert "also stands elsewhere" in m.lands(TextDirective("set the timeout in seconds", "server"), "usage")
    derived = derive(m, "usage", "set the timeout in seconds to stop waiting for a slow server.")
    assert derived is not None and m.lands(derived, "usage") == ""
    assert derived.prefix or len(derived.start.split()) > 5  # "set the timeout in seconds" alone stands twice


def test_a_passage_that_also_stands_later_gets_text_that_stands_once() -> None:
    page = PageText.of_runs("http://h/p.html", (
        (0, "Guide"), (0, "Set the timeout in seconds to stop waiting early."),
        (1, "Usage"), (1, "Pass a timeout: set the timeout in seconds to stop waiting for a slow server."),
    ), ((1, ("guide",)), (1, ("usage",))))
    m = PageMatcher(page)
    d = derive(m, "guide", "Set the timeout in seconds to stop waiting early.")
    assert d is not None and m.lands(d, "guide") == ""
    assert fold(page.with_text()).count(fold(" ".join((d.prefix, d.start, d.suffix)).strip())) == 1
    # a browser that skipped the first (a class hides it) would land in #usage: the bare start is refused
    assert "also stands elsewhere" in m.lands(TextDirective("Set the timeout in seconds", "early"), "guide")


def test_characters_browsers_never_match_are_never_part_of_a_directive() -> None:
    page = PageText.of_runs("http://h/p.html", ((0, "Guide"), (0, "Use the zero\u200bwidth joiner rarely, it is odd."),),
                            ((1, ("guide",)),))
    m = PageMatcher(page)
    assert "never match" in m.lands(TextDirective("Use the zero\u200bwidth"), "guide")
    d = derive(m, "guide", "Use the zero\u200bwidth joiner rarely, it is odd.")
    assert d is None or not any("\u200b" in part for part in (d.prefix, d.start, d.end, d.suffix))


def test_a_page_text_recorded_without_its_hidden_text_gets_no_directive() -> None:
    m = PageMatcher(dataclasses.replace(HOSTILE, hidden=None))
    assert "older crawl" in m.lands(TextDirective("Pass a timeout"), "usage")
    assert derive(m, "usage", "Pass a timeout: set the timeout in seconds to stop waiting for a slow server.") is None


def test_a_page_laid_out_lazily_or_not_known_to_be_safe_gets_no_directive() -> None:
    directive, passage = TextDirective("On Windows"), "On Windows, run the installer as administrator."
    assert PageMatcher(PAGE).lands(directive, "windows") == "" and derive(PageMatcher(PAGE), "windows", passage)
    lazy = PageMatcher(dataclasses.replace(PAGE, lazy=True))
    assert "content-visibility: auto" in lazy.lands(directive, "windows")
    assert derive(lazy, "windows", passage) is None
    unknown = PageMatcher(dataclasses.replace(PAGE, lazy=None))
    assert "not known" in unknown.lands(directive, "windows") and derive(unknown, "windows", passage) is None
