"""The main region and the chrome around it (crawlers.parse.chrome): sidebars, search modals, "edit this page"
links and node navigation stay out of sections; a table of contents is not the page."""

from __future__ import annotations

from crawlers.parse.extract import extract
from tests.crawlers.fixture_pages import by_anchor, parse_fixture


def test_mkdocs_drops_sidebar_and_search_modal() -> None:
    ex = parse_fixture("mkdocs.html")
    assert ex.title == "Serializers"
    assert [s.anchor for s in ex.sections] == [
        "serializers", "saving-instances", "passing-additional-attributes-to-save", "validation", "object-level-validation",
    ]
    save = by_anchor(ex, "passing-additional-attributes-to-save")
    assert save.title == "Passing additional attributes to .save()"
    assert save.level == 4 and save.path == ("Serializers", "Saving instances", save.title)
    assert "myModalLabel" in ex.anchors  # anchors cover the whole page, sections only the main region
    assert "Documentation built with" not in "".join(s.text for s in ex.sections)


def test_docusaurus_hash_links_and_edit_chrome() -> None:
    ex = parse_fixture("docusaurus.html")
    assert ex.title == "Installation"
    assert [(s.anchor, s.title, s.level) for s in ex.sections] == [
        (None, "Installation", 1), ("requirements", "Requirements", 2), ("optional-tools", "Optional tools", 3),
    ]
    text = "\n".join(s.text for s in ex.sections)
    assert "Edit this page" not in text and "Previous" not in text and "Home" not in text
    assert "```\nnpm install widget\nnpx widget init\n```" in text


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


def test_sphinx_viewcode_source_links_are_chrome() -> None:
    # Celery's API reference: the signature read "class celery.chain(*tasks, **kwargs)[source]" in answers
    html = b"""<html><head><title>celery</title></head><body><div role="main">
    <h1 id="celery">celery</h1><dl class="py class"><dt class="sig sig-object py" id="celery.chain">
    <em class="property"><span class="pre">class</span> </em><span class="sig-prename descclassname">
    <span class="pre">celery.</span></span><span class="sig-name descname"><span class="pre">chain</span></span>
    <span class="sig-paren">(</span><em class="sig-param"><span class="pre">*tasks</span></em><span class="sig-paren">)</span>
    <a class="reference internal" href="_modules/celery/canvas.html#chain"><span class="viewcode-link">
    <span class="pre">[source]</span></span></a></dt><dd><p>Chain tasks together.</p></dd></dl></div></body></html>"""
    chain = by_anchor(extract(html, "http://127.0.0.1:8000/reference/celery.html"), "celery.chain")
    assert "[source]" not in chain.text and "Chain tasks together." in chain.text
