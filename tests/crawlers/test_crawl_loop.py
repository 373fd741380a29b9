"""The crawl loop over respx: scope, redirects, aliases, caps, bad input, robots and sitemaps."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

import httpx
import pytest
import respx

from crawlers.crawl import CrawlConfig, CrawlResult, crawl
from crawlers.errors import StartURLError
from crawlers.model import AnchorMap, SectionText

BASE = "http://docs.test/docs/"
HTML = {"content-type": "text/html; charset=utf-8"}


def page(title: str, body: str = "", anchor: str | None = None) -> str:
    anchor = anchor or title.lower().replace(" ", "-")
    return (f"<!doctype html><html><head><title>{title}</title></head><body>"
            f'<h1 id="{anchor}">{title}</h1><p>About {title}.</p>{body}</body></html>')


def site(pages: Mapping[str, object], robots: str | None = None) -> respx.MockRouter:
    """A mock host: ``pages`` maps paths under BASE to HTML, responses or handlers; everything else is 404."""
    router = respx.MockRouter(assert_all_called=False)
    origin = BASE.split("/docs/")[0]
    router.get(origin + "/robots.txt").mock(
        return_value=httpx.Response(200, text=robots) if robots else httpx.Response(404)
    )
    for path, content in pages.items():
        if callable(content):
            router.get(BASE + path).mock(side_effect=content)
            continue
        response = content if isinstance(content, httpx.Response) else httpx.Response(200, headers=HTML, text=content)
        router.get(BASE + path).mock(return_value=response)
    router.route().mock(return_value=httpx.Response(404))
    return router


def run_crawl(
    router: respx.MockRouter,
    previous: AnchorMap | None = None,
    texts: tuple[SectionText, ...] | list[SectionText] = (),
    **config: object,
) -> CrawlResult:
    async def go() -> CrawlResult:
        async with httpx.AsyncClient(transport=httpx.MockTransport(router.async_handler)) as client:
            cfg = CrawlConfig(site="t", start_url=BASE, backoff=0.0, retries=1, **config)  # type: ignore[arg-type]
            return await crawl(cfg, previous, texts, client=client)

    return asyncio.run(go())


def test_follows_links_in_scope_only_and_records_sections() -> None:
    router = site({
        "index.html": page("Home", '<a href="guide.html#setup">g</a> <a href="http://other.test/x.html">o</a>'
                           '<a href="/elsewhere.html">up</a> <a href="mailto:a@b">m</a>'),
        "guide.html": page("Guide", '<h2 id="setup">Setup</h2><p>Install it.</p>'),
    })
    result = run_crawl(router)
    assert sorted(result.map.pages) == [BASE + "guide.html", BASE + "index.html"]
    assert result.map.has_anchor(BASE + "guide.html#setup")
    guide = result.map.pages[BASE + "guide.html"]
    assert [s.anchor for s in guide.sections] == ["guide", "setup"] and guide.content_hash
    assert any(t.anchor == "setup" and "Install it." in t.text for t in result.texts)
    requested = {str(c.request.url) for c in router.calls}
    assert "http://other.test/x.html" not in requested and "http://docs.test/elsewhere.html" not in requested
    assert result.report.pages_added == (BASE + "guide.html", BASE + "index.html")


def test_directory_page_has_dir_alias_and_redirect_is_an_alias() -> None:
    router = site({
        "index.html": page("Home", '<a href="api/">api</a> <a href="old.html">old</a> <a href="api">bare</a>'),
        "api/index.html": page("API"),
        "api/": page("API"),
        "api": httpx.Response(301, headers={"Location": BASE + "api/"}),
        "old.html": httpx.Response(301, headers={"Location": BASE + "new.html"}),
        "new.html": page("New"),
    })
    result = run_crawl(router)
    api = result.map.pages[BASE + "api/index.html"]
    assert BASE + "api/" in api.aliases and BASE + "api" in api.aliases
    assert result.map.pages[BASE + "new.html"].aliases == (BASE + "old.html",)
    assert result.map.has_anchor(BASE + "old.html#new") and result.map.has_anchor(BASE + "api/#api")
    assert BASE + "old.html" not in result.map.pages


def test_redirect_loop_and_offsite_redirect_do_not_stop_the_crawl() -> None:
    router = site({
        "index.html": page("Home", '<a href="a.html">a</a> <a href="out.html">out</a> <a href="ok.html">ok</a>'),
        "a.html": httpx.Response(302, headers={"Location": BASE + "b.html"}),
        "b.html": httpx.Response(302, headers={"Location": BASE + "a.html"}),
        "out.html": httpx.Response(302, headers={"Location": "http://other.test/"}),
        "ok.html": page("Ok"),
    })
    result = run_crawl(router)
    assert sorted(result.map.pages) == [BASE + "index.html", BASE + "ok.html"]
    assert result.report.errors["redirect_loop"] >= 1 and result.report.errors["offsite_redirect"] == 1


def test_non_html_skipped_broken_deep_and_undecodable_pages_survive() -> None:
    router = site({
        "index.html": page("Home", '<a href="f.pdf">pdf</a> <a href="broken.html">b</a> <a href="bytes.html">x</a>'
                           '<a href="deep.html">d</a>'),
        "f.pdf": httpx.Response(200, headers={"content-type": "application/pdf"}, content=b"%PDF-1.4"),
        "broken.html": "<html><head><title>Broken</title><body><h2 id='x'>Half<div><p>unclosed <b>",
        "bytes.html": httpx.Response(200, headers=HTML, content=b"<title>Bytes</title><h1 id='b'>\xff\xfe\x80 ok</h1>"),
        "deep.html": "<title>Deep</title><h1 id='deep'>Deep</h1>" + "<div>" * 20_000 + "x" + "</div>" * 20_000,
    })
    result = run_crawl(router)
    assert result.map.has_anchor(BASE + "deep.html#deep")
    assert BASE + "f.pdf" not in result.map.pages and result.report.errors["not_html"] == 1
    assert result.map.has_anchor(BASE + "broken.html#x") and result.map.has_anchor(BASE + "bytes.html#b")


def test_huge_page_is_capped_not_dropped() -> None:
    filler = "<p>" + "lorem ipsum " * 20_000 + "</p>"
    router = site({"index.html": page("Home", '<h2 id="early">Early</h2>' + filler + '<h2 id="late">Late</h2>')})
    result = run_crawl(router, max_bytes=100_000)
    assert result.map.has_anchor(BASE + "index.html#early") and not result.map.has_anchor(BASE + "index.html#late")
    assert result.report.errors["truncated"] == 1


def test_calendar_like_query_space_is_bounded() -> None:
    def calendar(request: httpx.Request) -> httpx.Response:
        n = int(request.url.params.get("day", "0"))
        return httpx.Response(200, headers=HTML, text=page(f"Day {n}", f'<a href="cal.html?day={n + 1}">next</a>'))

    router = site({"index.html": page("Home", '<a href="cal.html?day=1">calendar</a>'), "cal.html": calendar})
    result = run_crawl(router, max_query_variants=5, max_pages=1000)
    assert sum(1 for url in result.map.pages if "cal.html" in url) == 5


def test_max_pages_caps_the_crawl() -> None:
    links = "".join(f'<a href="p{i}.html">{i}</a>' for i in range(30))
    router = site({"index.html": page("Home", links), **{f"p{i}.html": page(f"P{i}") for i in range(30)}})
    assert len(run_crawl(router, max_pages=10).map.pages) == 10


def test_robots_disallow_of_start_url_is_a_clear_error() -> None:
    router = site({"index.html": page("Home")}, robots="User-agent: *\nDisallow: /docs/\n")
    with pytest.raises(StartURLError, match=r"robots\.txt"):
        run_crawl(router)


def test_robots_disallowed_pages_are_skipped() -> None:
    router = site({"index.html": page("Home", '<a href="secret/x.html">s</a> <a href="g.html">g</a>'),
                   "g.html": page("G"), "secret/x.html": page("Secret")},
                  robots="User-agent: *\nDisallow: /docs/secret/\n")
    result = run_crawl(router)
    assert sorted(result.map.pages) == [BASE + "g.html", BASE + "index.html"]


def test_unreachable_start_url_is_a_clear_error() -> None:
    router = respx.MockRouter(assert_all_called=False)
    router.route().mock(side_effect=httpx.ConnectError("connection refused"))
    with pytest.raises(StartURLError, match="Cannot reach"):
        run_crawl(router)


def test_start_url_404_is_a_clear_error() -> None:
    with pytest.raises(StartURLError, match="not_found"):
        run_crawl(site({}))


def test_sitemap_finds_unlinked_pages() -> None:
    sitemap = (f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
               f"<url><loc>{BASE}orphan.html</loc></url><url><loc>http://other.test/x.html</loc></url></urlset>")
    router = site({"index.html": page("Home"), "orphan.html": page("Orphan"),
                   "sitemap.xml": httpx.Response(200, content=sitemap.encode())})
    result = run_crawl(router)
    assert sorted(result.map.pages) == [BASE + "index.html", BASE + "orphan.html"]


def test_same_site_crawled_twice_serialises_identically() -> None:
    links = "".join(f'<a href="p{i}.html">{i}</a>' for i in range(20))
    pages = {"index.html": page("Home", links),
             **{f"p{i}.html": page(f"P{i}", f'<a href="p{(i * 7) % 20}.html">x</a><h2 id="s{i}">S</h2>') for i in range(20)}}
    a = run_crawl(site(pages), concurrency=8)
    b = run_crawl(site(pages), concurrency=3)
    a.map.crawled_at = b.map.crawled_at = ""
    assert a.map.dumps() == b.map.dumps() and a.texts == b.texts


def test_start_url_redirect_moves_the_scope() -> None:
    router = respx.MockRouter(assert_all_called=False)
    router.get("http://docs.test/robots.txt").mock(return_value=httpx.Response(404))
    router.get(BASE + "index.html").mock(return_value=httpx.Response(301, headers={"Location": "http://docs.test/v2/"}))
    router.get("http://docs.test/v2/").mock(return_value=httpx.Response(200, headers=HTML, text=page("V2", '<a href="g.html">g</a>')))
    router.get("http://docs.test/v2/g.html").mock(return_value=httpx.Response(200, headers=HTML, text=page("G")))
    router.route().mock(return_value=httpx.Response(404))
    result = run_crawl(router)
    assert sorted(result.map.pages) == ["http://docs.test/v2/g.html", "http://docs.test/v2/index.html"]
    assert BASE + "index.html" in result.map.pages["http://docs.test/v2/index.html"].aliases


def test_a_page_nested_past_the_parser_limit_is_counted_in_the_report() -> None:
    deep = "<div>" * 300 + '<h2 id="deep">Deep</h2>' + "</div>" * 300
    result = run_crawl(site({"index.html": page("Home", '<a href="deep.html">d</a>'), "deep.html": page("Deep", deep)}))
    assert result.report.errors == {"too_deep": 1} and result.report.error_samples["too_deep"] == (BASE + "deep.html",)


def test_an_all_in_one_copy_of_other_pages_keeps_its_anchors_but_not_its_texts() -> None:
    topics = {f"t{i}.html": (f"Topic {i}", f"Topic {i} explains how the module number {i} reads its configuration "
                                           f"file, which options it accepts and what it does when one is missing.")
              for i in range(6)}
    copy = "".join(f'<h2 id="all-{n[:-5]}-s">{title} setup</h2><p>{text}</p>' for n, (title, text) in topics.items())
    router = site({
        "index.html": page("Home", "".join(f'<a href="{n}">x</a>' for n in topics) + '<a href="all.html">all</a>'),
        **{n: page(title, f'<h2 id="{n[:-5]}-s">{title} setup</h2><p>{text}</p>') for n, (title, text) in topics.items()},
        "all.html": page("All", copy),
    })
    result = run_crawl(router)
    everything = result.map.pages[BASE + "all.html"]
    assert everything.source_type == "Other" and "all-t2-s" in everything.anchors  # links to it still resolve
    assert all(t.url != BASE + "all.html" for t in result.texts)
    assert {t.url for t in result.texts if "module number 2" in t.text} == {BASE + "t2.html"}
    assert result.map.pages[BASE + "t2.html"].source_type != "Other"


def test_pages_that_share_a_few_sections_are_not_copies() -> None:
    shared = "<h2 id=\"note\">Note</h2><p>" + "Every command reads the same configuration file before it starts. " * 3 + "</p>"
    router = site({
        "index.html": page("Home", "".join(f'<a href="c{i}.html">x</a>' for i in range(4))),
        **{f"c{i}.html": page(f"Command {i}", shared + f'<h2 id="use{i}">Usage</h2><p>Command {i} copies files '
                              f"from one directory to another and reports how many it copied in the end.</p>")
           for i in range(4)},
    })
    result = run_crawl(router)
    assert all(p.source_type != "Other" for p in result.map.pages.values())
