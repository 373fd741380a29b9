"""The section walk (crawlers.parse.sections): API entries and their names, admonitions and entry parts,
page titles, broken HTML, per generator style."""

from __future__ import annotations

from crawlers.parse.extract import extract
from tests.crawlers.fixture_pages import URL, by_anchor, parse_fixture


def test_a_heading_with_no_text_over_api_entries_does_not_make_a_class_page_a_guide() -> None:
    # jsoup's ParseError (Javadoc 11): 4 entries under "Method Detail", which has no text of its own, beside "Class
    # ParseError", "Method Summary" and "Methods inherited from class java.lang.Object". Counting "Method Detail",
    # the page had as many headings as entries and was typed as a guide.
    ex = parse_fixture("javadoc11_class.html")
    assert sum(s.kind == "api" for s in ex.sections) == 4
    assert [s.title for s in ex.sections if s.kind == "heading"] == [
        "Class ParseError", "Method Summary", "Methods inherited from class java.lang.Object", "Method Detail"]
    assert ex.source_type_hint == "API reference"


def test_sphinx_api_entries_nest_under_classes_and_skip_footnotes() -> None:
    ex = parse_fixture("sphinx_api.html")
    assert ex.title == "API" and ex.source_type_hint == "API reference"
    assert by_anchor(ex, "api").anchor == "module-flask"
    cls = by_anchor(ex, "flask.Flask")
    assert (cls.kind, cls.title, cls.level) == ("api", "flask.Flask", 3)
    assert "Text of the class after its members." in cls.text and "Decorate" not in cls.text
    route = by_anchor(ex, "flask.Flask.route")
    assert (route.title, route.level) == ("Flask.route()", 4)
    assert route.path == ("API", "Application Object", "flask.Flask", "Flask.route()")
    assert route.text.startswith("route(rule, **options)")
    assert '```\n@app.route("/")\ndef index():\n    return "Hello, World!"\n```' in route.text
    assert by_anchor(ex, "flask.after_this_request").title == "flask.after_this_request()"
    assert by_anchor(ex, "SESSION_COOKIE_SECURE").title == "SESSION_COOKIE_SECURE"
    assert not any(s.anchor in ("id3", "id4") for s in ex.sections)
    assert {"id3", "id4"} <= ex.anchors


def test_rustdoc_sections_and_method_names() -> None:
    ex = parse_fixture("rustdoc.html")
    new = by_anchor(ex, "method.new")
    assert (new.kind, new.title) == ("api", "new()")
    assert new.path[-2:] == ("impl<T> Vec<T>", "new()")
    assert by_anchor(ex, "impl-Vec%3CT%3E").kind == "api"
    assert "source" not in new.text and "Constructs a new" in new.text


def test_broken_html_still_gives_sections() -> None:
    ex = parse_fixture("edge_broken.html")
    assert ex.title == "Broken page"
    assert by_anchor(ex, "after-broken").text == "cell one cell two\n\n- item one\n- item two"
    named = by_anchor(ex, "named-only")
    assert named.title == "Named anchor heading" and named.text == "```\n  keep   this\n     spacing\n```"


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
    assert "Statements with syntax errors are not logged." in by_anchor(ex, "GUC-LOG-STATEMENT").text
    assert all("Note" not in s.path for s in ex.sections)
    assert by_anchor(ex, "GUC-LOG-TIMEZONE").path[-2:] == ("20.8. Logging", "log_timezone (string)")
    assert by_anchor(ex, "PROCESS-TITLE").path[-2:] == ("20.8. Logging", "20.8.6. Process Title")


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
    steal = by_anchor(ex, "g-hash-table-steal")
    assert (steal.kind, steal.title) == ("api", "g_hash_table_steal()")
    assert "TRUE if the key was found and removed." in steal.text and "the key to remove" in steal.text
    assert not [s for s in ex.sections if s.title in ("Parameters", "Returns")]
    assert {"g-hash-table-steal.parameters", "g-hash-table-steal.returns"} <= ex.anchors  # still valid targets
    it = by_anchor(ex, "GHashTableIter")
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
    top = by_anchor(ex, "class-description")
    assert top.title == "Class BooleanUtils" and "Operations on boolean" in top.text
    assert by_anchor(ex, "method-summary").kind == "heading"  # not a rustdoc "method." item
    one = by_anchor(ex, "toBoolean(java.lang.String)")
    three = by_anchor(ex, "toBoolean(java.lang.String,java.lang.String,java.lang.String)")
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
    details = by_anchor(ex, "details")
    assert details.path[0] == "Json::Value Class Reference"
    assert "```\nJson::Value root;\n  root[\"key\"] = 1;\n```" in details.text
    assert all("Generated on" not in s.text and "project page" not in s.text for s in ex.sections)


def test_a_site_name_heading_over_every_page_is_not_the_page_title() -> None:
    html = b"""<html><head><title>Model field reference | Django documentation</title></head><body>
    <div id="hd"><h1><a href="../../index.html">Django 3.2 documentation</a></h1></div>
    <div id="bd"><h1 id="model-field-reference">Model field reference<a class="headerlink" href="#model-field-reference">
    \xc2\xb6</a></h1><p>This document contains the technical reference of Field.</p>
    <h2 id="null">null</h2><p>If True, Django will store empty values as NULL.</p></div></body></html>"""
    ex = extract(html, URL)
    assert ex.title == "Model field reference"
    assert by_anchor(ex, "null").path == ("Model field reference", "null")
    assert all("Django 3.2 documentation" not in s.path for s in ex.sections)


def test_a_page_without_an_h1_is_named_by_its_first_heading_not_by_title_and_site_name() -> None:
    html = ("<html><head><title>What is Ownership? - The Example Book</title></head><body><main>"
            '<h2 id="what-is-ownership">What Is Ownership?</h2><p>Ownership is a set of rules.</p>'
            '<h3 id="rules">Ownership Rules</h3><p>Each value has an owner.</p></main></body></html>')
    ex = extract(html, "http://docs.test/ch04.html")
    assert ex.title == "What Is Ownership?"
    assert [s.path for s in ex.sections] == [("What Is Ownership?",), ("What Is Ownership?", "Ownership Rules")]


def test_code_laid_out_in_elements_is_a_code_block_and_inline_code_stays_in_its_sentence() -> None:
    # Redoc's JSON samples: <code> holding one <li> a member (as its jsonToHTML writes them), not a <pre>. Read as
    # inline code, the sample became one line of prose and its "sentences" were answered as facts.
    member = ('<li><div class="hoverable "><span class="property token string">"{}"</span>: '
              '<span class="token string">"{}"</span><span class="token punctuation">,</span></div></li>')
    members = "".join(member.format(k, v) for k, v in (("Id", "8dfafdbc3a40"), ("State", "running"), ("Status", "Up 2 hours")))
    html = f"""<html><head><title>Docker Engine API</title></head><body><main>
    <h2 id="operation/ContainerList">List containers</h2>
    <p>Returns a list of containers. Run <code>docker ps</code> for the same list.</p>
    <div>application/json</div>
    <div class="redoc-json"><code><button class="collapser" aria-label="collapse"></button>
    <span class="token punctuation">[</span><span class="ellipsis"></span><ul class="array collapsible">
    <li><div class="hoverable "><button class="collapser" aria-label="collapse"></button>
    <span class="token punctuation">{{</span><span class="ellipsis"></span><ul class="obj collapsible">{members}
    <li><div class="hoverable "><span class="property token string">"Labels"</span>: <span class="token punctuation">{{ }}</span></div></li>
    </ul><span class="token punctuation">}}</span></div></li></ul><span class="token punctuation">]</span></code></div>
    </main></body></html>"""
    text = by_anchor(extract(html, URL), "operation/ContainerList").text
    assert text.split("\n\n") == [
        "Returns a list of containers. Run docker ps for the same list.",
        "application/json",
        '```\n[\n  {\n    "Id": "8dfafdbc3a40",\n    "State": "running",\n    "Status": "Up 2 hours",\n'
        '    "Labels": { }\n  }\n]\n```',
    ]


def test_a_table_row_whose_cells_hold_paragraphs_is_one_line_as_a_list_item_is() -> None:
    # Sphinx writes each cell as a paragraph: read as paragraphs, an answer quoted "Execute every minute (!) at
    # Sundays." without the expression it describes; a row is a record, read whole and never run into the next
    html = b"""<html><head><title>Periodic Tasks</title></head><body>
    <section id="crontab-schedules"><h2>Crontab schedules</h2><p>Some examples:</p>
    <table class="docutils"><tbody>
    <tr><td><p><strong>Example</strong></p></td><td><p><strong>Meaning</strong></p></td></tr>
    <tr><td><p><code>crontab(day_of_week='sunday')</code></p></td><td><p>Execute every minute (!) at Sundays.</p></td></tr>
    <tr><td><dl class="simple"><dt><code>crontab(minute='*/10',</code></dt><dd><p><code>hour='3,17,22')</code></p></dd></dl>
    </td><td><p>Execute every ten minutes,</p><ul><li>between 3-4 am</li><li>and 5-6 pm.</li></ul></td><td><p></p></td></tr>
    </tbody></table>
    <table><tr><td class="function_type">GArray *</td><td class="function_name"><a href="#new">g_array_new</a> ()</td></tr></table>
    <table><tr><td><p>A page laid out in a table.</p><p>""" + b"Its second paragraph is long. " * 30 + b"""</p></td></tr></table>
    <table><tr><td><p>Example</p></td><td><pre>crontab()</pre></td></tr></table>
    <p>After the tables.</p></section></body></html>"""
    text = by_anchor(extract(html, URL), "crontab-schedules").text
    lines = text.replace("\n\n", "\n").split("\n")
    assert "- Example — Meaning" in lines
    assert "- crontab(day_of_week='sunday') — Execute every minute (!) at Sundays." in lines
    # a cell's blocks are one stretch of it; an empty cell adds no separator
    assert "- crontab(minute='*/10', hour='3,17,22') — Execute every ten minutes, between 3-4 am and 5-6 pm." in lines
    assert "GArray * g_array_new ()" in lines  # bare cells were one line already, joined by spaces
    # a long row is a layout table's and a row holding code keeps its blocks: its paragraphs stay paragraphs
    assert "A page laid out in a table." in lines and "```" in lines and "crontab()" in lines
    assert lines[-1] == "After the tables."


def test_a_row_of_bare_cells_under_a_header_row_is_one_line_as_a_list_item_is() -> None:
    # Python-Markdown's extension API (MkDocs): read as words, the rows ran their cells together and an answer ran
    # one row into the next ("… and code highlighters amp_substitute built-in Convert ampersand substitutes …")
    html = b"""<html><head><title>Writing Extensions</title></head><body>
    <h4 id="usages_4">Usages</h4><p>Some postprocessors in the Markdown source tree include:</p>
    <table>
    <thead>
    <tr>
    <th>Class</th>
    <th>Kind</th>
    <th>Description</th>
    </tr>
    </thead>
    <tbody>
    <tr>
    <td><a href="https://github.com/Python-Markdown/markdown/blob/master/markdown/postprocessors.py"><code>raw_html</code></a></td>
    <td>built-in</td>
    <td>Restore raw html from <code>htmlStash</code>, stored by <code>HTMLBlockPreprocessor</code>, and code highlighters</td>
    </tr>
    <tr>
    <td><a href="https://github.com/Python-Markdown/markdown/blob/master/markdown/postprocessors.py"><code>amp_substitute</code></a></td>
    <td>built-in</td>
    <td>Convert ampersand substitutes to <code>&amp;</code>; used in links</td>
    </tr>
    </tbody>
    </table>
    <table><tr><th>Name</th><td>a row header and a data cell, in a table with no header row</td></tr></table>
    <p>After the tables.</p></body></html>"""
    text = by_anchor(extract(html, URL), "usages_4").text
    assert text.replace("\n\n", "\n").split("\n") == [
        "Some postprocessors in the Markdown source tree include:",
        "Class Kind Description",  # the header row names the columns: a label, no record
        "- raw_html — built-in — Restore raw html from htmlStash, stored by HTMLBlockPreprocessor, and code highlighters",
        "- amp_substitute — built-in — Convert ampersand substitutes to &; used in links",
        "Name a row header and a data cell, in a table with no header row",
        "After the tables.",
    ]


def test_the_colon_after_a_term_is_no_part_of_its_title() -> None:
    # Python-Markdown's reference (MkDocs): the source was titled "markdown.markdown(…) › output_format:"
    html = b"""<html><head><title>Library Reference</title></head><body><h1 id="ref">Library Reference</h1><dl>
    <dt><strong id="extension_configs">extension_configs</strong></dt><dd><p>A dictionary of settings.</p></dd>
    <dt><strong id="output_format">output_format</strong>:</dt>
    <dd><p>Format of output.</p></dd>
    <dt><strong id="std">std::</strong></dt><dd><p>A namespace.</p></dd>
    </dl></body></html>"""
    ex = extract(html, URL)
    assert [by_anchor(ex, a).title for a in ("extension_configs", "output_format", "std")] == [
        "extension_configs", "output_format", "std::"]
    assert by_anchor(ex, "output_format").text.startswith("output_format:")  # the text is as the page writes it
def test_a_chapter_heading_that_links_to_its_contents_entry_titles_the_page() -> None:
    # texi2html writes <h1 class="chapter"><a href="gettext_toc.html#TOC166">10. Producing Binary MO Files</a></h1>:
    # taken for a site banner, the page was titled "GNU gettext utilities: 10. …" and its first paragraph's marker
    # started a section titled by that paragraph
    ex = parse_fixture("texi2html_options.html")
    assert ex.title == "10. Producing Binary MO Files"
    chapter = by_anchor(ex, "SEC172")
    assert (chapter.kind, chapter.path) == ("heading", ("10. Producing Binary MO Files",))
    assert by_anchor(ex, "SEC173").path == ("10. Producing Binary MO Files", "10.1 Invoking the msgfmt Program")


def test_a_line_break_in_a_heading_parts_its_words() -> None:
    # Javadoc 11's package-use pages: <h1 title="Uses of Package org.jsoup" class="title">Uses of Package<br>org.jsoup
    # </h1> titled the page and every section under it "Uses of Packageorg.jsoup"
    html = ('<html><head><title>Uses of Package org.jsoup (jsoup API)</title></head><body><main>'
            '<h1 class="title">Uses of Package<br>org.jsoup</h1><p>Classes used by org.jsoup.</p>'
            '<h2 id="used">Classes in org.jsoup<br/>used by org.jsoup.nodes</h2><p>Jsoup</p></main></body></html>')
    ex = extract(html, "http://docs.test/org/jsoup/package-use.html")
    assert ex.title == "Uses of Package org.jsoup"
    assert by_anchor(ex, "used").path == ("Uses of Package org.jsoup", "Classes in org.jsoup used by org.jsoup.nodes")


def test_an_h1_that_says_the_site_name_the_title_gives_is_a_banner() -> None:
    # Node.js 18's API docs: every page's <h1> is "Node.js v18.20.4 documentation", the name its <title> gives after the
    # page's; taken as the page's title, it led every section's path and titled every page alike
    html = b"""<html><head><title>HTTP | Node.js v18.20.4 Documentation</title></head><body>
    <div id="column1"><header class="header"><h1>Node.js v18.20.4 documentation</h1></header>
    <div id="apicontent"><h2 id="http">HTTP</h2><p>To use the HTTP server and client one must require it.</p>
    <h3 id="class-httpagent">Class: http.Agent</h3><p>An Agent is responsible for managing connections.</p>
    </div></div></body></html>"""
    ex = extract(html, URL)
    assert ex.title == "HTTP"
    assert by_anchor(ex, "class-httpagent").path == ("HTTP", "Class: http.Agent")
    assert not any("Node.js v18.20.4" in s.text or "Node.js v18.20.4" in s.title for s in ex.sections)
    # the site's name as a page's own title is kept: an <h1> that is the whole <title>, or what comes before its separator
    home = extract(b"<html><head><title>Node.js v18.20.4 documentation</title></head><body><h1>Node.js v18.20.4 "
                   b"documentation</h1><p>About this documentation.</p></body></html>", URL)
    assert home.title == "Node.js v18.20.4 documentation"
    guide = extract(b"<html><head><title>HTTP | Node.js</title></head><body><h1>HTTP</h1><p>About HTTP.</p>"
                    b"<h2 id='x'>Node.js</h2><p>The runtime.</p></body></html>", URL)
    assert guide.title == "HTTP" and by_anchor(guide, "x").path == ("HTTP", "Node.js")
