"""Which id lands on a heading (crawlers.parse.heading_anchors), on one fixture page per generator style:
own ids, headerlinks, label spans, section wrappers and preceding <a name>."""

from __future__ import annotations

from crawlers.parse.extract import extract
from tests.crawlers.fixture_pages import URL, by_anchor, parse_fixture


def test_sphinx_old_div_section_uses_headerlink_label_and_keeps_s_prefixed_alias() -> None:
    ex = parse_fixture("sphinx_old.html")
    assert ex.title == "Writing your first app, part 1"
    top = ex.sections[0]
    assert (top.anchor, top.level, top.path) == ("writing-your-first-app-part-1", 1, (ex.title,))
    assert "s-writing-your-first-app-part-1" in top.aliases
    project = by_anchor(ex, "tutorial-project")
    assert project.anchor == "creating-a-project"
    assert set(project.aliases) == {"s-creating-a-project", "tutorial-project"}
    assert project.path == (ex.title, "Creating a project")
    assert "```\n$ django-admin startproject mysite\n$   cd mysite\n```" in project.text
    server = by_anchor(ex, "s-the-development-server")
    assert server.level == 3 and "index-0" in server.inner_ids
    assert server.text == "- First item with a target.\n- Second item\n  - nested item"
    assert ex.canonical == "https://docs.example.org/en/4.2/intro/tutorial01/"


def test_sphinx_new_section_label_span_is_an_alias() -> None:
    ex = parse_fixture("sphinx_new.html")
    cookie = by_anchor(ex, "security-cookie")
    assert cookie.anchor == "set-cookie-options" and cookie.aliases == ("security-cookie",)
    assert cookie.title == "Set-Cookie options"
    assert cookie.path == ("Security Considerations", "Security Headers", "Set-Cookie options")
    assert "- Secure limits cookies to HTTPS traffic only." in cookie.text
    assert "    SESSION_COOKIE_SECURE=True," in cookie.text
    assert [s.level for s in ex.sections] == [1, 2, 3, 2]
    assert all("Navigation" not in s.text and "Contents" not in s.text for s in ex.sections)


def test_docbook_upper_case_ids_wrappers_and_named_anchors() -> None:
    ex = parse_fixture("docbook.html")
    assert ex.title == "CREATE TABLE"
    assert ex.sections[0].anchor == "SQL-CREATETABLE" and ex.sections[0].path == ("CREATE TABLE",)
    temp = by_anchor(ex, "SQL-CREATETABLE-TEMPORARY")
    assert temp.kind == "api" and temp.title == "TEMPORARY or TEMP"
    assert temp.path == ("CREATE TABLE", "Parameters", "TEMPORARY or TEMP")
    assert by_anchor(ex, "SQL-CREATETABLE-UNLOGGED").title == "UNLOGGED"
    assert by_anchor(ex, "SQL-CREATETABLE-NOTES").title == "Notes"
    examples = by_anchor(ex, "SQL-CREATETABLE-EXAMPLES")
    assert examples.text.endswith("PRIMARY KEY\n);\n```")
    assert "sql-createtable-temporary" not in ex.anchors  # case-sensitive, never lower-cased


def test_javadoc_named_anchors_before_headings_and_latin1() -> None:
    ex = parse_fixture("javadoc.html")
    add = by_anchor(ex, "add(E)")
    assert add.kind == "api" and add.title == "add(E)"  # overloads told apart by their parameter types
    assert "```\npublic boolean add(E e)\n```" in add.text
    assert by_anchor(ex, "method_detail").title == "Method Detail"
    assert any("Café crème" in s.text for s in ex.sections)


def test_javadoc11_dotted_ids_of_summary_and_detail_headings_name_no_member() -> None:
    # Javadoc 11 writes <a id="method.summary"></a><h3>Method Summary</h3>: an id that spells its heading's own words
    # is the heading's, not rustdoc's "method.push" (which titled both "summary()" and "detail()" as methods)
    ex = parse_fixture("javadoc11.html")
    summary, detail = by_anchor(ex, "method.summary"), by_anchor(ex, "method.detail")
    assert (summary.title, summary.kind) == ("Method Summary", "heading")
    assert (detail.title, detail.kind) == ("Method Detail", "heading")
    parse = by_anchor(ex, "parse(java.lang.String)")
    assert parse.kind == "api" and parse.path[-2:] == ("Method Detail", "parse(String)")
    # <title>Jsoup (jsoup Java HTML Parser 1.15.3 API)</title> over <h2>Class Jsoup</h2>: the heading names the page
    # (every source was titled "Jsoup (jsoup Java HTML Parser 1.15.3 API) › Class Jsoup › …")
    assert ex.title == "Class Jsoup" and parse.path == ("Class Jsoup", "Method Detail", "parse(String)")


def test_plain_html_preceding_a_name_and_links() -> None:
    ex = parse_fixture("plain.html")
    assert [(s.anchor, s.title) for s in ex.sections] == [
        (None, "Widget manual"), ("setup", "Setting up"), ("power", "Power"), (None, "Troubleshooting"),
    ]
    assert ex.sections[0].text == "Intro text. Spread over lines."
    assert ex.links == (
        "https://docs.example.org/", "https://docs.example.org/en/guide/other.html#wiring", URL + "#setup",
    )


def test_duplicate_unicode_and_encoded_ids_are_kept_verbatim() -> None:
    ex = parse_fixture("edge_duplicates_unicode.html")
    assert {"édition", "naïve-café", "caf%C3%A9-section", "Upper-Case-ID", "dup"} <= ex.anchors
    assert [s.title for s in ex.sections if s.anchor == "dup"] == ["First duplicate", "Second duplicate"]
    assert by_anchor(ex, "naïve-café").title == "Naïve café"
    orphan = next(s for s in ex.sections if s.title == "Has no anchor")
    assert orphan.anchor is None and orphan.inner_ids == ("inner-target",)
    deep, shallower = by_anchor(ex, "deep"), by_anchor(ex, "shallower")
    assert deep.level == 4 and shallower.level == 3 and shallower.path[-2] == "Has no anchor"


def test_an_anchorless_heading_does_not_take_the_id_of_a_section_that_has_its_own_heading() -> None:
    html = b"""<html><body><main role="main"><h1>Class Pair</h1><p>A pair of elements.</p>
    <section id="method-summary"><h2>Method Summary</h2><p>All methods.</p></section></main></body></html>"""
    ex = extract(html, URL)
    assert [(s.anchor, s.title) for s in ex.sections] == [(None, "Class Pair"), ("method-summary", "Method Summary")]


def test_an_empty_sidebar_before_the_title_lends_it_no_anchor() -> None:
    html = ('<html><body><div class="main"><div class="sidebar"><div class="sidebar-content" id="sidebar-content">'
            '</div></div><h1 class="title">Timers</h1><p>QObject provides the basic timer support.</p>'
            '<h2 id="accuracy">Accuracy</h2><p>Timers are as accurate as the operating system allows.</p></div>'
            '</body></html>')
    sections = extract(html, "http://docs.test/timers.html").sections
    assert [(s.anchor, s.title) for s in sections] == [(None, "Timers"), ("accuracy", "Accuracy")]


def test_a_named_link_or_element_holding_the_heading_text_lands_on_the_heading() -> None:
    # texi2html's footnotes: <h3><a name="FOOT1" href="gettext_1.html#DOCF1">(1)</a></h3>, linked from the text; and
    # hand-written pages' <h2><a name="intro">Introduction</a></h2>: the sections had no anchor, their links no fragment
    html = b"""<html><body><h1>Footnotes</h1><h3><a name="FOOT1" href="gettext_1.html#DOCF1">(1)</a></h3>
    <p>In this manual, all mentions of Emacs refers to either GNU Emacs or to XEmacs.</p>
    <h2><a name="intro">Introduction</a></h2><p>Some text.</p>
    <h2><span id="s2">Second</span> <a name="later">part</a></h2><p>More text.</p>
    <h2 id="own"><a name="legacy">Third</a></h2><p>Last text.</p></body></html>"""
    sections = extract(html, URL).sections
    assert [(s.anchor, s.aliases) for s in sections[1:]] == [
        ("FOOT1", ()), ("intro", ()), ("s2", ("later",)), ("own", ("legacy",))]
