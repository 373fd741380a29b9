"""Pages laid out lazily (``content-visibility: auto``): found in a page's own styles and in the style sheets it links
(imports followed), each sheet read once a crawl, and a page whose sheets cannot be read is not known to be safe."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from crawlers.crawl import CrawlConfig, crawl, styles
from crawlers.model import PageText
from crawlers.parse.extract import extract
from crawlers.parse.styles import read_sheet
from tests.conftest import serve_directory
from tests.crawlers.test_crawl_incremental import conditional_site
from tests.crawlers.test_crawl_loop import BASE, page, site

LAZY_CSS = "main > section { content-visibility: auto; contain-intrinsic-size: 1px auto 5000px; }"


def _page(title: str, head: str = "", body: str = "") -> str:
    return (f"<!doctype html><html><head><title>{title}</title>{head}</head><body><h1 id='top-{title}'>{title}</h1>"
            f"<p>What {title} says, at some length so that the page has text of its own.</p>{body}</body></html>")


def test_the_sheets_a_page_links_for_the_screen_in_order() -> None:
    head = ('<link rel="stylesheet" href="_static/theme.css"><link rel="StyleSheet" href="/abs.css#x">'
            '<link rel="alternate stylesheet" href="dark.css"><link rel="ALTERNATE StyleSheet" href="dark2.css">'
            '<link rel="stylesheet" media="print" href="print.css"><link rel="stylesheet\tpreload" href="tab.css">'
            '<link rel="stylesheet" media="screen and (min-width: 600px)" href="wide.css">'
            '<link rel="icon" href="favicon.css"><link rel="stylesheet" href="_static/theme.css">'
            '<style>@import url("_static/more.css"); @import "print2.css" print;</style>')
    ex = extract(_page("A", head), "http://h.test/docs/a.html")
    assert ex.styles == ("http://h.test/docs/_static/theme.css", "http://h.test/abs.css", "http://h.test/docs/tab.css",
                         "http://h.test/docs/wide.css", "http://h.test/docs/_static/more.css")
    assert not ex.lazy_here


def test_a_page_own_style_element_or_attribute_lays_it_out_lazily() -> None:
    assert extract(_page("A", f"<style>{LAZY_CSS}</style>"), "http://h.test/a.html").lazy_here
    assert extract(_page("A", body='<section style="content-visibility:auto"><p>x</p></section>'),
                   "http://h.test/a.html").lazy_here
    # a comment, a print style, another value, or prose about the property are not
    for head, body in ((f"<style>/* {LAZY_CSS} */</style>", ""), (f'<style media="print">{LAZY_CSS}</style>', ""),
                       ("<style>section { content-visibility: visible }</style>", ""),
                       ("", "<p>Set content-visibility: auto on long sections.</p>")):
        assert not extract(_page("A", head, body), "http://h.test/a.html").lazy_here, (head, body)


def test_a_sheet_says_whether_it_is_lazy_and_what_it_imports_for_the_screen() -> None:
    css = ('@import url("basic.css");\n@import \'fonts.css\' screen;\n@import url(print.css) print;\n'
           '/* content-visibility: auto */ body { margin: 0 }')
    sheet = read_sheet(css, lambda href: "http://h.test/_static/" + href)
    assert sheet == (False, ("http://h.test/_static/basic.css", "http://h.test/_static/fonts.css"))
    assert read_sheet("a{content-visibility:AUTO}", str).lazy


def _crawl_local(root: Path) -> dict[str, PageText]:
    with serve_directory(root) as base:
        async def go():
            return await crawl(CrawlConfig(site="t", start_url=base + "index.html", sitemaps=False, retries=0))
        result = asyncio.run(go())
    return {text.url.rsplit("/", 1)[1]: text for text in result.page_texts}


def test_a_crawl_reads_each_sheet_once_and_marks_the_pages_it_lays_out_lazily(tmp_path: Path) -> None:
    (tmp_path / "_static").mkdir()
    (tmp_path / "_static/theme.css").write_text('@import url("layout.css");\nbody { color: #222 }')
    (tmp_path / "_static/layout.css").write_text(LAZY_CSS)
    (tmp_path / "_static/plain.css").write_text('@import "theme-free.css"; p { margin: 0 }')
    (tmp_path / "_static/theme-free.css").write_text("h1 { font-size: 2em }")
    links = "".join(f'<a href="{name}.html">{name}</a>' for name in ("lazy", "plain", "inline", "missing", "cdn"))
    (tmp_path / "index.html").write_text(_page("index", '<link rel="stylesheet" href="_static/plain.css">', links))
    (tmp_path / "lazy.html").write_text(_page("lazy", '<link rel="stylesheet" href="_static/theme.css">'))
    (tmp_path / "plain.html").write_text(_page("plain", '<link rel="stylesheet" href="_static/plain.css">'))
    (tmp_path / "inline.html").write_text(_page("inline", f"<style>{LAZY_CSS}</style>"))
    (tmp_path / "missing.html").write_text(_page("missing", '<link rel="stylesheet" href="_static/gone.css">'))
    (tmp_path / "cdn.html").write_text(_page("cdn", '<link rel="stylesheet" href="https://cdn.invalid/bootstrap.css">'))
    texts = _crawl_local(tmp_path)
    assert {name: text.lazy for name, text in texts.items()} == {
        "index.html": False, "lazy.html": True, "plain.html": False, "inline.html": True,
        "missing.html": False,  # a sheet the server does not have styles nothing
        "cdn.html": False,  # another origin's sheet is not fetched
    }
    # the theme changed, the pages did not: the next crawl sees it
    (tmp_path / "_static/layout.css").write_text("main > section { margin: 0 }")
    assert _crawl_local(tmp_path)["lazy.html"].lazy is False


def test_pages_kept_unchanged_by_a_recrawl_are_judged_by_their_sheets_as_served_now() -> None:
    def pages(css: str | httpx.Response) -> dict[str, object]:
        sheet = httpx.Response(200, headers={"content-type": "text/css"}, text=css) if isinstance(css, str) else css
        return {"index.html": page("Home", '<link rel="stylesheet" href="s.css"><a href="a.html">a</a>'),
                "a.html": page("A", '<link rel="stylesheet" href="s.css">'), "s.css": sheet}

    async def go(css: str | httpx.Response, previous=None):
        router = conditional_site(pages(css))
        async with httpx.AsyncClient(transport=httpx.MockTransport(router.async_handler)) as client:
            cfg = CrawlConfig(site="t", start_url=BASE, backoff=0.0, retries=1, sitemaps=False)
            if previous is None:
                return await crawl(cfg, client=client), router
            return await crawl(cfg, previous.map, previous.texts, client=client,
                               previous_pages=previous.page_texts), router

    first, _ = asyncio.run(go("p { margin: 0 }"))
    assert [text.lazy for text in first.page_texts] == [False, False]
    second, router = asyncio.run(go(LAZY_CSS, first))
    assert second.stats.not_modified == 2 and second.stats.fetched == 0
    assert [text.lazy for text in second.page_texts] == [True, True]
    assert sum(call.request.url.path.endswith("s.css") for call in router.calls) == 1  # once for both pages
    # the sheet's server fails: not known, so no directive on either page until a crawl reads it
    third, _ = asyncio.run(go(httpx.Response(503), second))
    assert [text.lazy for text in third.page_texts] == [None, None]


def test_a_page_read_again_keeps_what_the_crawl_knew_of_its_sheets_while_it_links_the_same() -> None:
    stored = PageText("u", "x", (0,), styles=("s.css",), lazy=True)
    assert PageText("u", "y", (0,), styles=("s.css",), lazy=None).laid_out_as(stored).lazy is True
    assert PageText("u", "y", (0,), styles=("t.css",), lazy=None).laid_out_as(stored).lazy is None
    inline = PageText("u", "x", (0,), styles=("s.css",), lazy_here=True, lazy=True)  # its own style decided before
    assert PageText("u", "y", (0,), styles=("s.css",), lazy=None).laid_out_as(inline).lazy is None
    assert PageText("u", "y", (0,), lazy_here=True, lazy=True).laid_out_as(stored).lazy is True


def test_a_page_text_stored_before_styles_were_read_is_not_known_to_be_safe() -> None:
    data = PageText("u", "x", (0,)).to_json()
    assert PageText.from_json(data).lazy is False
    del data["lazy"], data["styles"], data["lazy_here"]
    assert PageText.from_json(data).lazy is None


def test_sheets_past_the_crawl_bounds_are_not_known(monkeypatch: pytest.MonkeyPatch) -> None:
    css = httpx.Response(200, headers={"content-type": "text/css"}, text="p { margin: 0 }")
    content = {"index.html": page("Home", '<link rel="stylesheet" href="a.css"><link rel="stylesheet" href="b.css">'),
               "a.css": css, "b.css": css}

    def lazies() -> list[bool | None]:
        router = site(content)

        async def go():
            async with httpx.AsyncClient(transport=httpx.MockTransport(router.async_handler)) as client:
                return await crawl(CrawlConfig(site="t", start_url=BASE + "index.html", sitemaps=False), client=client)
        return [text.lazy for text in asyncio.run(go()).page_texts]

    assert lazies() == [False]
    monkeypatch.setattr(styles, "MAX_SHEETS", 1)  # b.css is not read: the page may be laid out lazily
    assert lazies() == [None]
    monkeypatch.setattr(styles, "MAX_SHEETS", 64)
    monkeypatch.setattr(styles, "MAX_SECONDS", -1.0)  # the time for sheets is spent before the first
    assert lazies() == [None]
