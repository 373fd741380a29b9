"""A section's text and level (crawlers.parse.section_text): a table of contents keeps only its prose, levels
count from the page's top heading."""

from __future__ import annotations

from crawlers.parse.extract import extract
from tests.crawlers.fixture_pages import URL


def test_page_starting_at_h2_is_normalised_to_level_one() -> None:
    html = "<title>Guide | Site</title><main><h2 id='guide'>Guide</h2><p>a</p><h3 id='sub'>Sub</h3><p>b</p></main>"
    ex = extract(html, URL)
    assert ex.title == "Guide"
    assert [(s.anchor, s.level, s.path) for s in ex.sections] == [
        ("guide", 1, ("Guide",)), ("sub", 2, ("Guide", "Sub")),
    ]


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
