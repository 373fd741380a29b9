"""extract() at page level: every anchor, links resolved against the base, the canonical URL, pages that
are navigation, and the report of elements nested past the parser's limit."""

from __future__ import annotations

import logging

import pytest

from crawlers.parse.extract import extract, extract_anchors
from crawlers.parse.html import MAX_DEPTH
from tests.crawlers.fixture_pages import FIXTURES, URL


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


def test_a_link_after_the_closing_html_tag_is_a_link() -> None:
    # a template that appends to a finished page: a browser shows the link at the end of the body, and libxml2 puts it
    # in a second <html> beside the root, where a walk of the root alone missed it (the crawl never reached the page)
    html = "<html><head><title>T</title></head><body><p>x</p></body></html><a href='portal.html'>portal</a>"
    assert extract(html, URL).links == (URL.rsplit("/", 1)[0] + "/portal.html",)


def test_the_frames_of_a_frameset_page_are_its_links() -> None:
    # gettext's C# and Java API docs (gettext-doc) open with a frameset: <frame src> was no link, and the crawl never
    # reached a page of either; an <iframe> embeds into a page that has text of its own, and is not followed
    html = b"""<HTML><HEAD><TITLE>-</TITLE></HEAD><FRAMESET COLS="150,*"><FRAMESET ROWS="50%,50%">
    <FRAME SRC="namespaces.html" NAME="namespaces"><FRAME SRC="GNU_Gettext.html" NAME="members"></FRAMESET>
    <FRAME SRC="begin.html" NAME="contents"><NOFRAMES><a href="begin.html">Start</a></NOFRAMES></FRAMESET></HTML>"""
    base = URL.rsplit("/", 1)[0] + "/"
    assert extract(html, URL).links == (base + "namespaces.html", base + "GNU_Gettext.html", base + "begin.html")
    embed = b"<html><body><p>Watch:</p><iframe src='demo.html'></iframe><a href='a.html'>a</a></body></html>"
    assert extract(embed, URL).links == (base + "a.html",)


def test_a_title_that_starts_with_a_separator_is_the_rest() -> None:
    # gettext's Javadoc (no -doctitle): <TITLE>: Class  GettextResource</TITLE>, the page's only title (its heading is
    # an <H2>); a name that starts with a dash is no separator
    page = "<html><head><title>\n: Class  GettextResource\n</title></head><body><p>Text.</p></body></html>"
    assert extract(page, URL).title == "Class GettextResource"
    assert extract("<html><head><title>-fPIC - GCC</title></head><body><p>x</p></body></html>", URL).title == "-fPIC - GCC"


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
    with caplog.at_level(logging.WARNING, logger="crawlers.parse.extract"):
        ex = extract(html.encode(), "http://x.test/a.html")
    assert ex.too_deep and "deeper than 256 levels" in caplog.text and "http://x.test/a.html" in caplog.text
    assert not extract(b'<html><body><h1 id="top">Top</h1></body></html>', "http://x.test/b.html").too_deep


def test_a_page_of_links_is_navigation_whose_anchors_count_but_whose_text_is_not_indexed() -> None:
    from crawlers.crawl.pages import build_page
    from crawlers.fetch import FetchResult
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
