"""Sections started by the anchors a page links to (crawlers.parse.anchor_sections), heading or not."""

from __future__ import annotations

from crawlers.parse.extract import Extracted, extract
from crawlers.parse.mentions import section_owners
from crawlers.parse.section_text import ExtractedSection
from tests.crawlers.fixture_pages import FIXTURES, URL

SQLITE_URL = "http://127.0.0.1:8000/lang_corefunc.html"
SQLITE_ENTRIES = {"abs": "abs(X)", "changes": "changes()", "char": "char(X1,X2,...,XN)",
                  "coalesce": "coalesce(X,Y,...)", "ifnull": "ifnull(X,Y)", "like": "like(X,Y) like(X,Y,Z)",
                  "random": "random()", "typeof": "typeof(X)", "upper": "upper(X)", "zeroblob": "zeroblob(N)"}


def sqlite(url: str = SQLITE_URL) -> Extracted:
    return extract((FIXTURES / "sqlite_anchor_entries.html").read_bytes(), url)


def by_id(ex: Extracted, anchor: str) -> ExtractedSection:
    return next(s for s in ex.sections if s.anchor == anchor)


def shape(ex: Extracted) -> list[tuple]:
    return [(s.anchor, s.title, s.level, s.path, s.kind, s.text) for s in ex.sections]


def test_sqlite_functions_marked_by_named_anchors_and_listed_at_the_top_are_sections() -> None:
    ex = sqlite()
    entries = [s for s in ex.sections if s.kind == "anchor"]
    assert {s.anchor: s.title for s in entries} == SQLITE_ENTRIES
    abs_ = entries[0]
    assert abs_.level == 2 and abs_.path == (ex.title, "2. Descriptions of built-in scalar SQL functions", "abs(X)")
    assert abs_.text.startswith("abs(X)\n\nThe abs(X) function returns the absolute value")
    assert "changes()" not in abs_.text
    assert entries[-1].text.endswith("routine from the C/C++ interface.")  # the last one ends with its list
    owners = section_owners(ex.sections)
    assert owners["abs"] == "abs" and owners["zeroblob"] == "zeroblob"
    run = next(i for i, line in enumerate(ex.run_text.split("\n")) if line.startswith("The abs(X) function"))
    assert ex.sections[ex.run_tags[run]].anchor == "abs"  # text directives land in the same section


def test_the_sections_with_headings_are_those_of_the_page_without_its_links() -> None:
    """Served under another name, the page's links point elsewhere: the rule follows links, not a generator."""
    linked, unlinked = sqlite(), sqlite("http://127.0.0.1:8000/renamed.html")
    assert not [s for s in unlinked.sections if s.kind == "anchor"]
    headings = [s for s in linked.sections if s.kind != "anchor"]
    before = {s.anchor: s for s in unlinked.sections}
    assert [s.anchor for s in headings] == list(before)
    for s in headings:
        old = before[s.anchor]
        assert (s.title, s.level, s.path, s.kind) == (old.title, old.level, old.path, old.kind)
    assert headings[0].text == before["overview"].text
    # the functions' list is out of its heading's text; what follows the list (the page's footer) stays in it
    assert headings[1].text == "This page last modified on 2022-07-16 18:39:09 UTC"
    assert "The abs(X) function" in before[headings[1].anchor].text


PAGE = """<html><head><title>Ref</title></head><body><div class="contents">
<h1 id="top">Reference</h1>
<table class="memberdecls"><tr><td><a href="#a1f0">read</a></td><td>Reads a value.</td></tr>
<tr><td><a href="#before-heading">Usage</a></td><td><a href="#tiny">tiny</a></td></tr></table>
<h2>Member Function Documentation</h2>
<a name="a1f0"></a><div class="memitem"><div class="memproto"><table class="memname"><tr>
<td class="memname">bool Json::Reader::read</td><td>(const std::string &amp;document, Value &amp;root)</td></tr></table>
</div><div class="memdoc"><p>Read a Value from a JSON document; returns true if the document was parsed
successfully, false if an error occurred.</p></div></div>
<p>Prose after the entry{ref}, with a <a href="#p1">¶</a> permalink.</p>
<p id="p1">A paragraph reached only through its permalink, long enough to be a section if links made one of
it, which they do not.</p>
<a name="tiny"></a><p>Too short a target.</p>
<a name="before-heading"></a><h2>Usage</h2><p>Use it.</p>
<dl class="cpp function"><dt id="f"><code>f(x)</code></dt><dd><p><span id="f-x"></span>x: <a href="#f-x">the
argument</a>, described at length so that it would be long enough to be a section of its own.</p></dd></dl>
<p id="fn">[1] A footnote long enough to make a section of its own, since a link of the page points at it from
the prose above.</p>
</div></body></html>"""


def test_an_anchor_before_a_block_starts_a_section_and_other_linked_ids_do_not() -> None:
    ex = extract(PAGE.replace("{ref}", ' <a id="r1" href="#fn">[1]</a>'), "http://h/ref.html")
    anchors = {s.anchor: s for s in ex.sections}
    entry = anchors["a1f0"]
    assert (entry.kind, entry.level, entry.path) == ("anchor", 3, ("Reference", "Member Function Documentation",
                                                                    entry.title))
    assert entry.title.startswith("bool Json::Reader::read (const std::string")
    # to the next section start; the target too short to be a section stays in the text before it
    assert "Prose after the entry [1]" in entry.text and entry.text.endswith("Too short a target.")
    assert anchors["fn"].kind == "anchor" and anchors["fn"].text.startswith("[1] A footnote")
    # a marker just before a heading is the heading's; the reference in the middle of a sentence, the permalink,
    # the target shorter than a section and the parameter of an API entry start none
    usage = anchors["before-heading"]
    assert (usage.kind, usage.title, usage.level) == ("heading", "Usage", 2)
    assert not {"r1", "p1", "tiny", "f-x"} & set(anchors)
    assert "x: the argument" in anchors["f"].text
    without = extract(PAGE.replace("{ref}", "").replace('href="#', 'href="other.html#'), "http://h/ref.html")
    assert [s[:5] for s in shape(ex) if s[4] != "anchor"] == [s[:5] for s in shape(without)]
    assert anchors["f"].text == by_id(without, "f").text


def test_a_headless_section_the_page_lists_ends_where_it_ends() -> None:
    html = """<html><body><main><h1 id="t">Firebird</h1><ul><li><a href="#support">Support</a></li></ul>
    <section id="support"><p>Support for the Firebird database, with the versions it covers and the drivers it
    works with, and how to connect.</p></section><p>Text of the page after that section.</p></main></body></html>"""
    ex = extract(html, "http://h/firebird.html")
    top, support = ex.sections
    assert (support.anchor, support.kind, support.title) == ("support", "anchor",
                                                             "Support for the Firebird database, with the versions it covers and the drivers…")
    assert "after that section" in top.text and "after that section" not in support.text


def test_an_anchor_that_takes_all_of_its_headings_text_is_that_headings_section() -> None:
    """SQLAlchemy's dialect pages and Texinfo's index entries put a linked marker just below a heading."""
    html = """<html><body><main><h1 id="t">MySQL</h1><ul><li><a href="#module-asyncmy">asyncmy</a></li>
    <li><a href="#url">DBAPI</a></li></ul>
    <section id="asyncmy"><h2>asyncmy</h2><span id="module-asyncmy"></span><p>Support for the MySQL database via the
    asyncmy driver.</p><section id="url"><h3>DBAPI</h3><p>Documentation for asyncmy.</p></section></section>
    </main></body></html>"""
    ex = extract(html, "http://h/mysql.html")
    assert [(s.anchor, s.kind) for s in ex.sections] == [("t", "heading"), ("asyncmy", "heading"), ("url", "heading")]
    assert ex.sections[1].text == "Support for the MySQL database via the asyncmy driver."
    assert section_owners(ex.sections)["module-asyncmy"] == "asyncmy"


TEXINFO_URL = "http://127.0.0.1:8000/bashref.html"


def texinfo(index_elsewhere: bool = False) -> Extracted:
    """The page, or the page with its index on another page (no link of its own to the index entries)."""
    page = (FIXTURES / "texinfo_index_entries.html").read_text()
    return extract(page.replace('href="#index-', 'href="index.html#index-') if index_elsewhere else page, TEXINFO_URL)


def test_index_entries_just_below_a_heading_leave_the_heading_its_text() -> None:
    """Texinfo (bash-doc): <h4>Pipelines</h4>, index markers, the first paragraph, more markers, more paragraphs;
    the index that links to the markers comes at the end of the page."""
    ex, unlinked = texinfo(), texinfo(index_elsewhere=True)
    pipelines = by_id(ex, "Pipelines-1")
    assert pipelines.text == ("A pipeline is a sequence of one or more commands separated by one of the control "
                              "operators ‘|’ or ‘|&’.")
    owners = section_owners(ex.sections)
    assert {owners[i] for i in ("index-pipeline", "index-commands_002c-pipelines", "index-time", "index-_0021")} == {
        "Pipelines-1"}
    # an entry further down still starts a section of its own, under its heading
    timing = by_id(ex, "index-command-timing")
    assert (timing.kind, timing.title, timing.path[-2:]) == ("anchor", "The format for a pipeline is",
                                                             ("3.2.3 Pipelines", "The format for a pipeline is"))
    assert pipelines.text + "\n\n" + timing.text == by_id(unlinked, "Pipelines-1").text
    # a heading whose one entry took all of its text, and one with an entry at its start then a subsection
    for anchor in ("Shell-Commands-1", "Lists-1"):
        assert by_id(ex, anchor).text == by_id(unlinked, anchor).text != ""
    assert (owners["index-commands_002c-lists"], owners["index-commands_002c-shell"]) == ("Lists-1", "Shell-Commands-1")
    assert [s.anchor for s in ex.sections if s.kind == "anchor"] == ["index-command-timing"]
    lines = ex.run_text.split("\n")
    tag = {key: ex.sections[ex.run_tags[next(i for i, line in enumerate(lines) if line.startswith(key))]].anchor
           for key in ("A pipeline is", "The format for a pipeline", "A list is")}
    assert tag == {"A pipeline is": "Pipelines-1", "The format for a pipeline": "index-command-timing",
                   "A list is": "Lists-1"}  # text directives land in the same sections


def test_entries_the_table_of_contents_lists_are_sections_when_their_heading_has_nothing_else() -> None:
    """SQLite's list of functions without the page's footer after it: its heading keeps no text, and the first
    entry is still a section of its own, since the page lists it ahead of it, as it lists the others."""
    page = (FIXTURES / "sqlite_anchor_entries.html").read_text()
    footer = page.index('<p align="center"><small><i>This page last modified')
    ex = extract(page[:footer] + "</body></html>", SQLITE_URL)
    assert {s.anchor: s.title for s in ex.sections if s.kind == "anchor"} == SQLITE_ENTRIES
    assert by_id(ex, "descriptions_of_built_in_scalar_sql_functions").text == ""


def test_a_footnote_is_titled_by_its_text_not_its_mark() -> None:
    # titled "[*]", a footnote read "See also Memory Usage › [*]" in an answer (Celery's docs)
    html = b"""<html><head><title>Optimizing</title></head><body>
    <section id="memory-usage"><h2>Memory Usage</h2>
    <p>Workers grow <a class="footnote-reference brackets" href="#id4" id="id3">*</a>.</p><p>More text here.</p>
    <aside class="footnote brackets" id="id4" role="doc-footnote"><span class="label"><span class="fn-bracket">[</span>*
    <span class="fn-bracket">]</span></span><p>The chapter is available to read for free here.</p></aside>
    </section></body></html>"""
    note = by_id(extract(html, "http://127.0.0.1:8000/optimizing.html"), "id4")
    assert note.kind == "anchor" and note.title == "The chapter is available to read for free here."
    assert note.path[-2:] == ("Memory Usage", "The chapter is available to read for free here.")


def test_markers_opening_a_definition_start_their_section_at_its_terms() -> None:
    # texi2html's option tables: <dt>‘-c’</dt><dt>‘--check’</dt><dd><a name="IDX978"></a><a name="IDX979"></a><p>…
    # The index links to the markers; a section starting at them left "‘-c’ ‘--check’" to the section before and
    # quoted "Perform all the checks…" without the option it describes
    page = (FIXTURES / "texi2html_options.html").read_bytes()
    elsewhere = frozenset(f"IDX{n}" for n in range(926, 982))
    ex = extract(page, URL, elsewhere=elsewhere)
    heading = by_id(ex, "SEC183")  # the first entry, right below its heading, is the heading's section
    assert heading.title == "10.1.10 Input file interpretation" and "IDX979" in (*heading.aliases, *heading.inner_ids)
    assert heading.text.startswith("‘-c’\n\n‘--check’\n\nPerform all the checks implied by --check-format")
    entry = by_id(ex, "IDX980")
    assert (entry.kind, entry.title) == ("anchor", "‘--check-format’")
    assert entry.text.startswith("‘--check-format’\n\nCheck language dependent format strings.")
    assert "IDX981" in (*entry.aliases, *entry.inner_ids)
    assert not any("‘--check-format’" in s.text for s in ex.sections if s is not entry)


def test_a_definition_at_the_top_of_a_page_without_headings_is_a_section_of_its_own() -> None:
    # Doxygen's deprecated.html: <div class="title">Deprecated List</div> (no heading), then <dt>Class X</dt><dd><a
    # class="anchor" id="_deprecated000008"></a>Use …</dd>, linked from each class's page. The first entry started where
    # the page's text starts and went back to it, which is no section once another opens: its text was lost
    html = b"""<html><head><title>JsonCpp: Deprecated List</title></head><body><div class="PageDoc">
    <div class="header"><div class="headertitle"><div class="title">Deprecated List </div></div></div>
    <div class="contents"><div class="textblock"><dl class="reflist">
    <dt>Class <a class="el" href="class_json_1_1_fast_writer.html">Json::FastWriter</a></dt>
    <dd><a class="anchor" id="_deprecated000008"></a>Use StreamWriterBuilder, which writes any style.</dd>
    <dt>Class <a class="el" href="class_json_1_1_reader.html">Json::Reader</a></dt>
    <dd><a class="anchor" id="_deprecated000001"></a>Use CharReader and CharReaderBuilder instead.</dd>
    </dl></div></div></div></body></html>"""
    ex = extract(html, URL, elsewhere=frozenset({"_deprecated000008", "_deprecated000001"}))
    first, second = by_id(ex, "_deprecated000008"), by_id(ex, "_deprecated000001")
    assert (first.title, second.title) == ("Class Json::FastWriter", "Class Json::Reader")
    assert first.text == "Class Json::FastWriter\n\nUse StreamWriterBuilder, which writes any style."
