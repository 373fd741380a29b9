"""extract() on one hand-written fixture page per generator style, plus broken and hostile input."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from crawlers.extract import MAX_DEPTH, Extracted, ExtractedSection, extract, extract_anchors

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
URL = "https://docs.example.org/en/guide/page.html"


def _page(name: str) -> Extracted:
    return extract((FIXTURES / name).read_bytes(), URL)


def _by_anchor(ex: Extracted, fragment: str) -> ExtractedSection:
    found = [s for s in ex.sections if s.anchor == fragment or fragment in s.aliases]
    assert found, f"no section for #{fragment}: {[(s.anchor, s.title) for s in ex.sections]}"
    return found[0]


def test_sphinx_old_div_section_uses_headerlink_label_and_keeps_s_prefixed_alias() -> None:
    ex = _page("sphinx_old.html")
    assert ex.title == "Writing your first app, part 1"
    top = ex.sections[0]
    assert (top.anchor, top.level, top.path) == ("writing-your-first-app-part-1", 1, (ex.title,))
    assert "s-writing-your-first-app-part-1" in top.aliases
    project = _by_anchor(ex, "tutorial-project")
    assert project.anchor == "creating-a-project"
    assert set(project.aliases) == {"s-creating-a-project", "tutorial-project"}
    assert project.path == (ex.title, "Creating a project")
    assert "```\n$ django-admin startproject mysite\n$   cd mysite\n```" in project.text
    server = _by_anchor(ex, "s-the-development-server")
    assert server.level == 3 and "index-0" in server.inner_ids
    assert server.text == "- First item with a target.\n- Second item\n  - nested item"
    assert ex.canonical == "https://docs.example.org/en/4.2/intro/tutorial01/"


def test_sphinx_new_section_label_span_is_an_alias() -> None:
    ex = _page("sphinx_new.html")
    cookie = _by_anchor(ex, "security-cookie")
    assert cookie.anchor == "set-cookie-options" and cookie.aliases == ("security-cookie",)
    assert cookie.title == "Set-Cookie options"
    assert cookie.path == ("Security Considerations", "Security Headers", "Set-Cookie options")
    assert "- Secure limits cookies to HTTPS traffic only." in cookie.text
    assert "    SESSION_COOKIE_SECURE=True," in cookie.text
    assert [s.level for s in ex.sections] == [1, 2, 3, 2]
    assert all("Navigation" not in s.text and "Contents" not in s.text for s in ex.sections)


def test_sphinx_api_entries_nest_under_classes_and_skip_footnotes() -> None:
    ex = _page("sphinx_api.html")
    assert ex.title == "API" and ex.source_type_hint == "API reference"
    assert _by_anchor(ex, "api").anchor == "module-flask"
    cls = _by_anchor(ex, "flask.Flask")
    assert (cls.kind, cls.title, cls.level) == ("api", "flask.Flask", 3)
    assert "Text of the class after its members." in cls.text and "Decorate" not in cls.text
    route = _by_anchor(ex, "flask.Flask.route")
    assert (route.title, route.level) == ("Flask.route()", 4)
    assert route.path == ("API", "Application Object", "flask.Flask", "Flask.route()")
    assert route.text.startswith("route(rule, **options)")
    assert '```\n@app.route("/")\ndef index():\n    return "Hello, World!"\n```' in route.text
    assert _by_anchor(ex, "flask.after_this_request").title == "flask.after_this_request()"
    assert _by_anchor(ex, "SESSION_COOKIE_SECURE").title == "SESSION_COOKIE_SECURE"
    assert not any(s.anchor in ("id3", "id4") for s in ex.sections)
    assert {"id3", "id4"} <= ex.anchors


def test_mkdocs_drops_sidebar_and_search_modal() -> None:
    ex = _page("mkdocs.html")
    assert ex.title == "Serializers"
    assert [s.anchor for s in ex.sections] == [
        "serializers", "saving-instances", "passing-additional-attributes-to-save", "validation", "object-level-validation",
    ]
    save = _by_anchor(ex, "passing-additional-attributes-to-save")
    assert save.title == "Passing additional attributes to .save()"
    assert save.level == 4 and save.path == ("Serializers", "Saving instances", save.title)
    assert "myModalLabel" in ex.anchors  # anchors cover the whole page, sections only the main region
    assert "Documentation built with" not in "".join(s.text for s in ex.sections)


def test_docbook_upper_case_ids_wrappers_and_named_anchors() -> None:
    ex = _page("docbook.html")
    assert ex.title == "CREATE TABLE"
    assert ex.sections[0].anchor == "SQL-CREATETABLE" and ex.sections[0].path == ("CREATE TABLE",)
    temp = _by_anchor(ex, "SQL-CREATETABLE-TEMPORARY")
    assert temp.kind == "api" and temp.title == "TEMPORARY or TEMP"
    assert temp.path == ("CREATE TABLE", "Parameters", "TEMPORARY or TEMP")
    assert _by_anchor(ex, "SQL-CREATETABLE-UNLOGGED").title == "UNLOGGED"
    assert _by_anchor(ex, "SQL-CREATETABLE-NOTES").title == "Notes"
    examples = _by_anchor(ex, "SQL-CREATETABLE-EXAMPLES")
    assert examples.text.endswith("PRIMARY KEY\n);\n```")
    assert "sql-createtable-temporary" not in ex.anchors  # case-sensitive, never lower-cased


def test_docusaurus_hash_links_and_edit_chrome() -> None:
    ex = _page("docusaurus.html")
    assert ex.title == "Installation"
    assert [(s.anchor, s.title, s.level) for s in ex.sections] == [
        (None, "Installation", 1), ("requirements", "Requirements", 2), ("optional-tools", "Optional tools", 3),
    ]
    text = "\n".join(s.text for s in ex.sections)
    assert "Edit this page" not in text and "Previous" not in text and "Home" not in text
    assert "```\nnpm install widget\nnpx widget init\n```" in text


def test_rustdoc_sections_and_method_names() -> None:
    ex = _page("rustdoc.html")
    new = _by_anchor(ex, "method.new")
    assert (new.kind, new.title) == ("api", "new()")
    assert new.path[-2:] == ("impl<T> Vec<T>", "new()")
    assert _by_anchor(ex, "impl-Vec%3CT%3E").kind == "api"
    assert "source" not in new.text and "Constructs a new" in new.text


def test_javadoc_named_anchors_before_headings_and_latin1() -> None:
    ex = _page("javadoc.html")
    add = _by_anchor(ex, "add(E)")
    assert add.kind == "api" and add.title == "add(E)"  # overloads told apart by their parameter types
    assert "```\npublic boolean add(E e)\n```" in add.text
    assert _by_anchor(ex, "method_detail").title == "Method Detail"
    assert any("Café crème" in s.text for s in ex.sections)


def test_plain_html_preceding_a_name_and_links() -> None:
    ex = _page("plain.html")
    assert [(s.anchor, s.title) for s in ex.sections] == [
        (None, "Widget manual"), ("setup", "Setting up"), ("power", "Power"), (None, "Troubleshooting"),
    ]
    assert ex.sections[0].text == "Intro text. Spread over lines."
    assert ex.links == (
        "https://docs.example.org/", "https://docs.example.org/en/guide/other.html#wiring", URL + "#setup",
    )


def test_duplicate_unicode_and_encoded_ids_are_kept_verbatim() -> None:
    ex = _page("edge_duplicates_unicode.html")
    assert {"édition", "naïve-café", "caf%C3%A9-section", "Upper-Case-ID", "dup"} <= ex.anchors
    assert [s.title for s in ex.sections if s.anchor == "dup"] == ["First duplicate", "Second duplicate"]
    assert _by_anchor(ex, "naïve-café").title == "Naïve café"
    orphan = next(s for s in ex.sections if s.title == "Has no anchor")
    assert orphan.anchor is None and orphan.inner_ids == ("inner-target",)
    deep, shallower = _by_anchor(ex, "deep"), _by_anchor(ex, "shallower")
    assert deep.level == 4 and shallower.level == 3 and shallower.path[-2] == "Has no anchor"


def test_broken_html_still_gives_sections() -> None:
    ex = _page("edge_broken.html")
    assert ex.title == "Broken page"
    assert _by_anchor(ex, "after-broken").text == "cell one cell two\n\n- item one\n- item two"
    named = _by_anchor(ex, "named-only")
    assert named.title == "Named anchor heading" and named.text == "```\n  keep   this\n     spacing\n```"


@pytest.mark.parametrize(
    "html",
    [b"", b"   ", b"\x00\xff\xfe\x81garbage<<<>>>", b"<html", "<p>only text</p>", b"\x89PNG\r\n\x1a\n\x00\x00"],
)
def test_garbage_never_raises(html: bytes | str) -> None:
    ex = extract(html, URL)
    assert isinstance(ex, Extracted)
    assert extract_anchors(html) == ex.anchors


def test_encodings_meta_charset_given_and_undecodable() -> None:
    latin = '<html><head><meta charset="iso-8859-1"></head><body><h1 id="caf\xe9">Caf\xe9</h1></body></html>'
    assert extract(latin.encode("latin-1"), URL).title == "Café"
    assert extract_anchors(latin.encode("latin-1")) == frozenset({"café"})
    assert extract("<h1>Ünïcode</h1>".encode("cp1252"), URL, encoding="cp1252").title == "Ünïcode"
    bad = b'<meta charset="utf-8"><h1 id="ok">Good \xff\xfe bytes</h1>'
    ex = extract(bad, URL)
    assert ex.anchors == frozenset({"ok"}) and ex.title.startswith("Good")
    assert extract(b'<meta charset="no-such-codec"><h1>Fine</h1>', URL).title == "Fine"


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.glob("*.html")))
def test_utf8_bytes_read_as_is_give_what_the_decoded_text_gives(name: str) -> None:
    raw = (FIXTURES / name).read_bytes()
    charset = "iso-8859-1" if b"charset=ISO-8859-1" in raw else "utf-8"  # the one page that says so
    assert extract(raw, URL) == extract(raw.decode(charset), URL)


@pytest.mark.parametrize(
    "raw",
    [
        "\ufeff<h1 id='bom'>Café</h1><p>text</p>".encode("utf-8"),
        b"<?xml version='1.0' encoding='utf-8'?><html><body><h1 id='x'>Caf\xc3\xa9</h1></body></html>",
        b"<h1 id='nul'>Ca\x00f\xc3\xa9</h1><p>a\x00b</p>",
        b"<h1 id='bad'>Caf\xc3\xa9 \xff</h1>",
    ],
)
def test_bytes_that_are_not_plain_utf8_keep_the_decoding_rules(raw: bytes) -> None:
    ex = extract(raw, URL)
    assert ex.title.startswith("Caf") and "é" in ex.title and "\x00" not in ex.title
    assert len(ex.anchors) == 1


def test_very_deep_nesting_is_capped_without_recursion_errors() -> None:
    depth = 50_000
    html = "<html><body><h1 id='top'>Deep</h1>" + "<div>" * depth + "<p id='bottom'>x</p>" + "</div>" * depth
    ex = extract(html, URL)
    assert ex.title == "Deep" and "top" in ex.anchors


def test_links_resolve_against_base_and_skip_scripts() -> None:
    html = """<html><head><base href="https://other.example.com/docs/"><link rel="Canonical" href="/c.html"></head>
    <body><a href="a.html#x">a</a><a href=" a.html#x ">dup</a><a href="javascript:go()">j</a>
    <a href="MAILTO:me@example.com">m</a><a href="#frag">f</a><a href="../up/">u</a><a href="#">top</a></body></html>"""
    ex = extract(html, URL)
    assert ex.links == (
        "https://other.example.com/docs/a.html#x",
        "https://other.example.com/docs/#frag",
        "https://other.example.com/up/",
    )
    assert ex.canonical == "https://other.example.com/c.html"


def test_page_starting_at_h2_is_normalised_to_level_one() -> None:
    html = "<title>Guide | Site</title><main><h2 id='guide'>Guide</h2><p>a</p><h3 id='sub'>Sub</h3><p>b</p></main>"
    ex = extract(html, URL)
    assert ex.title == "Guide"
    assert [(s.anchor, s.level, s.path) for s in ex.sections] == [
        ("guide", 1, ("Guide",)), ("sub", 2, ("Guide", "Sub")),
    ]


def test_extract_anchors_matches_extract_on_every_fixture() -> None:
    for path in sorted(FIXTURES.glob("*.html")):
        data = path.read_bytes()
        assert extract_anchors(data) == extract(data, URL).anchors, path.name


@pytest.mark.parametrize("base", ["http://h/a/b.html", "http://h/a/b.html?x=1", "http://h", "http://h/a/",
                                  "https://h:8000/x/y.html?q=/z/w", "http://h?x=/y"])
def test_links_resolve_as_urljoin_does(base: str) -> None:
    """Links are joined against the page's directory, shared across pages: the same result as urljoin."""
    from urllib.parse import urljoin

    hrefs = ["c.html", "../d.html", "/e", "//o/p", "http://x/y", "./", "..", "../../../a", "x?y=1", "?q=2",
             "a;b", ".", "..//x", "#frag", "c.html#sec"]
    html = "<html><body>" + "".join(f'<a href="{h}">l</a>' for h in hrefs) + "</body></html>"
    assert list(extract(html, base).links) == list(dict.fromkeys(urljoin(base, h) for h in hrefs))


def test_headings_nested_past_the_parser_limit_are_reported(caplog: pytest.LogCaptureFixture) -> None:
    deep = "<div>" * (MAX_DEPTH + 20) + '<h2 id="deep">Deep</h2><p>Deep text.</p>' + "</div>" * (MAX_DEPTH + 20)
    html = f'<html><head><title>T</title></head><body><h1 id="top">Top</h1>{deep}</body></html>'
    with caplog.at_level(logging.WARNING, logger="crawlers.extract"):
        ex = extract(html.encode(), "http://x.test/a.html")
    assert ex.too_deep and "deeper than 256 levels" in caplog.text and "http://x.test/a.html" in caplog.text
    assert not extract(b'<html><body><h1 id="top">Top</h1></body></html>', "http://x.test/b.html").too_deep


def test_docbook_note_boxes_are_text_of_their_section_not_sections() -> None:
    # DocBook titles its admonitions with headings (<div class="note"><h3 class="title">Note</h3>); taken as
    # sections, every later setting of the page nested under the last "Note" (paths 19 levels deep).
    html = b"""<html><head><title>Logging</title></head><body><div class="sect1" id="LOGGING">
    <h2 class="title">20.8. Logging</h2>
    <div class="variablelist"><dl>
      <dt id="GUC-LOG-STATEMENT"><span class="term">log_statement (enum)</span></dt>
      <dd><p>Controls which SQL statements are logged.</p>
        <div class="note"><h3 class="title">Note</h3><p>Statements with syntax errors are not logged.</p></div></dd>
      <dt id="GUC-LOG-TIMEZONE"><span class="term">log_timezone (string)</span></dt>
      <dd><p>Sets the time zone used for timestamps written in the server log.</p></dd>
    </dl></div>
    <div class="sect2" id="PROCESS-TITLE"><h3 class="title">20.8.6. Process Title</h3><p>Settings of the title.</p></div>
    </div></body></html>"""
    ex = extract(html, URL)
    assert "Note" not in [s.title for s in ex.sections]
    assert "Statements with syntax errors are not logged." in _by_anchor(ex, "GUC-LOG-STATEMENT").text
    assert all("Note" not in s.path for s in ex.sections)
    assert _by_anchor(ex, "GUC-LOG-TIMEZONE").path[-2:] == ("20.8. Logging", "log_timezone (string)")
    assert _by_anchor(ex, "PROCESS-TITLE").path[-2:] == ("20.8. Logging", "20.8.6. Process Title")


def test_a_page_of_links_is_navigation_whose_anchors_count_but_whose_text_is_not_indexed() -> None:
    from crawlers.fetch import FetchResult
    from crawlers.pages import build_page
    from crawlers.sourcetype import classify

    entries = "".join(f'<dt id="ientry-{i}">term {i}, <a href="page{i}.html#s{i}">Section {i}.{i}</a></dt>'
                      for i in range(40))
    index = extract(f"<html><body><h1>Index</h1><dl>{entries}</dl></body></html>".encode(), URL)
    assert index.navigation
    assert classify("https://docs.example.org/bookindex.html", (), "Other") == "Other"
    result = FetchResult(url=URL, final_url=URL, status=200, body=b"x")
    page, texts = build_page("docs", URL, result, index, "Other", set())
    assert "ientry-3" in page.anchors and texts == []
    prose = extract(b"<html><body><h1>Guide</h1><p>" + b"Words about the thing, " * 40
                    + b'see <a href="other.html">the other page</a>.</p></body></html>', URL)
    assert not prose.navigation


def test_gtk_doc_functions_are_api_entries_holding_their_parameters_and_returns() -> None:
    html = b"""<html><head><title>Hash Tables: GLib Reference Manual</title></head><body>
    <div class="refsect1"><a name="glib-Hash-Tables.functions_details"></a><h2>Functions</h2>
    <div class="refsect2"><a name="g-hash-table-steal"></a><h3>g_hash_table_steal ()</h3>
    <pre class="programlisting">gboolean g_hash_table_steal (GHashTable *hash_table, gconstpointer key);</pre>
    <p>Removes a key and its associated value without calling the destroy functions.</p>
    <div class="refsect3"><a name="g-hash-table-steal.parameters"></a><h4>Parameters</h4>
    <table><tr><td class="parameter_name"><p>key</p></td><td><p>the key to remove</p></td></tr></table></div>
    <div class="refsect3"><a name="g-hash-table-steal.returns"></a><h4>Returns</h4>
    <p>TRUE if the key was found and removed.</p></div></div>
    <div class="refsect2"><a name="GHashTableIter"></a><h3>struct GHashTableIter</h3><p>An iterator.</p>
    <table class="listing_frame"><tr><td class="listing_lines"><pre>1
2</pre></td><td class="listing_code"><pre class="programlisting">GHashTableIter iter;
g_hash_table_iter_init (&amp;iter, table);</pre></td></tr></table></div>
    </div></body></html>"""
    ex = extract(html, URL)
    steal = _by_anchor(ex, "g-hash-table-steal")
    assert (steal.kind, steal.title) == ("api", "g_hash_table_steal()")
    assert "TRUE if the key was found and removed." in steal.text and "the key to remove" in steal.text
    assert not [s for s in ex.sections if s.title in ("Parameters", "Returns")]
    assert {"g-hash-table-steal.parameters", "g-hash-table-steal.returns"} <= ex.anchors  # still valid targets
    it = _by_anchor(ex, "GHashTableIter")
    assert (it.kind, it.title) == ("api", "GHashTableIter")
    assert "g_hash_table_iter_init" in it.text and "```\n1\n2\n```" not in it.text  # no line-number column


def test_javadoc_class_description_is_linkable_and_overloads_differ() -> None:
    html = b"""<html><head><title>BooleanUtils</title></head><body><main role="main">
    <div class="header"><h1 title="Class BooleanUtils" class="title">Class BooleanUtils</h1></div>
    <div class="inheritance">java.lang.Object</div>
    <section class="class-description" id="class-description"><div class="block"><p>Operations on boolean
    primitives and Boolean objects.</p></div></section>
    <section class="method-summary" id="method-summary"><h2>Method Summary</h2><p>All methods.</p></section>
    <section class="detail" id="toBoolean(java.lang.String)"><h3>toBoolean</h3><p>Converts a String.</p></section>
    <section class="detail" id="toBoolean(java.lang.String,java.lang.String,java.lang.String)"><h3>toBoolean</h3>
    <p>Converts a String, given the true and false strings.</p></section>
    </main></body></html>"""
    ex = extract(html, URL)
    top = _by_anchor(ex, "class-description")
    assert top.title == "Class BooleanUtils" and "Operations on boolean" in top.text
    assert _by_anchor(ex, "method-summary").kind == "heading"  # not a rustdoc "method." item
    one = _by_anchor(ex, "toBoolean(java.lang.String)")
    three = _by_anchor(ex, "toBoolean(java.lang.String,java.lang.String,java.lang.String)")
    assert (one.kind, one.title, three.title) == ("api", "toBoolean(String)", "toBoolean(String, String, String)")


def test_doxygen_title_code_fragments_and_footer() -> None:
    html = b"""<html><head></head><body>
    <div id="titlearea">JsonCpp project page Classes Namespace</div>
    <div class="header"><div class="headertitle"><div class="title">Json::Value Class Reference</div></div></div>
    <div class="contents"><a name="details" id="details"></a><h2 class="groupheader">Detailed Description</h2>
    <p>Represents a JSON value.</p>
    <div class="fragment"><div class="line"><a id="l00001" name="l00001"></a><span class="lineno">    1</span>Json::Value root;</div>
    <div class="line"><span class="lineno">    2</span>  root["key"] = 1;</div></div>
    </div>
    <hr class="footer"/><address class="footer"><small>Generated on Wed Mar 30 2022 by doxygen 1.9.1</small></address>
    </body></html>"""
    ex = extract(html, URL)
    details = _by_anchor(ex, "details")
    assert details.path[0] == "Json::Value Class Reference"
    assert "```\nJson::Value root;\n  root[\"key\"] = 1;\n```" in details.text
    assert all("Generated on" not in s.text and "project page" not in s.text for s in ex.sections)


def test_an_anchorless_heading_does_not_take_the_id_of_a_section_that_has_its_own_heading() -> None:
    html = b"""<html><body><main role="main"><h1>Class Pair</h1><p>A pair of elements.</p>
    <section id="method-summary"><h2>Method Summary</h2><p>All methods.</p></section></main></body></html>"""
    ex = extract(html, URL)
    assert [(s.anchor, s.title) for s in ex.sections] == [(None, "Class Pair"), ("method-summary", "Method Summary")]


def test_a_site_name_heading_over_every_page_is_not_the_page_title() -> None:
    html = b"""<html><head><title>Model field reference | Django documentation</title></head><body>
    <div id="hd"><h1><a href="../../index.html">Django 3.2 documentation</a></h1></div>
    <div id="bd"><h1 id="model-field-reference">Model field reference<a class="headerlink" href="#model-field-reference">
    \xc2\xb6</a></h1><p>This document contains the technical reference of Field.</p>
    <h2 id="null">null</h2><p>If True, Django will store empty values as NULL.</p></div></body></html>"""
    ex = extract(html, URL)
    assert ex.title == "Model field reference"
    assert _by_anchor(ex, "null").path == ("Model field reference", "null")
    assert all("Django 3.2 documentation" not in s.path for s in ex.sections)


def test_a_table_of_contents_section_keeps_its_anchor_and_only_its_prose() -> None:
    toc = "".join(f'<li><a href="#part-{i}">Part {i}: configuring the reader and the writer</a></li>' for i in range(12))
    html = ("<html><body><main>"
            f'<header><h1 id="site">Example Docs v2 documentation</h1><ul>{toc}</ul></header>'
            f'<h2 id="guide">User guide</h2><p>This part of the documentation explains each component in turn.</p>'
            f"<ul>{toc}</ul>"
            '<h2 id="part-1">Part 1</h2><p>The reader opens the file and yields one <a href="api.html#read">record</a> '
            "at a time; see <a href=\"api.html\">the API</a> for every option.</p>"
            "</main></body></html>")
    sections = {s.anchor: s for s in extract(html, "http://docs.test/guide.html").sections}
    assert sections["site"].text == ""  # the header's table of contents: no answer, anchor kept
    assert sections["guide"].text == "This part of the documentation explains each component in turn."
    assert "yields one record at a time" in sections["part-1"].text  # prose with a few links is untouched


def test_a_page_without_an_h1_is_named_by_its_first_heading_not_by_title_and_site_name() -> None:
    html = ("<html><head><title>What is Ownership? - The Example Book</title></head><body><main>"
            '<h2 id="what-is-ownership">What Is Ownership?</h2><p>Ownership is a set of rules.</p>'
            '<h3 id="rules">Ownership Rules</h3><p>Each value has an owner.</p></main></body></html>')
    ex = extract(html, "http://docs.test/ch04.html")
    assert ex.title == "What Is Ownership?"
    assert [s.path for s in ex.sections] == [("What Is Ownership?",), ("What Is Ownership?", "Ownership Rules")]


TEXINFO = """<html><head><title>Shell Manual</title></head><body>
<h1 class="settitle">Shell Manual</h1>
<div class="top" id="Top"><div class="header"><p>Next: <a href="#Quoting" rel="next">Quoting</a>,
Up: <a href="dir.html#Top" rel="up">(dir)</a></p></div>
<span id="Shell-Features-1"></span><h1 class="top">Shell Features</h1>
<p>This manual describes the features of the shell.</p>
<div class="Contents_element" id="SEC_Contents"><h2 class="contents-heading">Table of Contents</h2>
<div class="contents"><ul>""" + "".join(
    f'<li><a id="toc-{n}-1" href="#{n}">{i} {n} and everything the chapter explains about it</a></li>'
    for i, n in enumerate(["Quoting", "Expansions", "Redirections", "Functions", "Aliases", "Arrays", "Jobs"],
                          start=1)) + """</ul></div></div>
<div class="chapter" id="Quoting"><div class="header"><p>Next: <a href="#Expansions" rel="next">Expansions</a>,
Up: <a href="#Top" rel="up">Shell Features</a></p></div>
<span id="Quoting-1"></span><h2 class="chapter">1 Quoting</h2>
<p>Quoting removes the special meaning of characters to the shell.</p></div>
</div></body></html>"""


def test_texinfo_the_table_of_contents_is_not_the_page_and_node_navigation_is_chrome() -> None:
    ex = extract(TEXINFO, "http://docs.test/manual.html")
    quoting = next(s for s in ex.sections if s.title == "1 Quoting")
    assert quoting.anchor == "Quoting" and "Quoting-1" in quoting.aliases  # the id the manual's own links use
    assert quoting.text == "Quoting removes the special meaning of characters to the shell."  # no "Next: …, Up: …"
    assert any(s.text.startswith("This manual describes") for s in ex.sections)


def test_an_empty_sidebar_before_the_title_lends_it_no_anchor() -> None:
    html = ('<html><body><div class="main"><div class="sidebar"><div class="sidebar-content" id="sidebar-content">'
            '</div></div><h1 class="title">Timers</h1><p>QObject provides the basic timer support.</p>'
            '<h2 id="accuracy">Accuracy</h2><p>Timers are as accurate as the operating system allows.</p></div>'
            '</body></html>')
    sections = extract(html, "http://docs.test/timers.html").sections
    assert [(s.anchor, s.title) for s in sections] == [(None, "Timers"), ("accuracy", "Accuracy")]
