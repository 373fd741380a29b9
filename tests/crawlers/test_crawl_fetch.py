"""Fetcher: retries with backoff and Retry-After, size cap, conditional GET, redirects — over respx."""

from __future__ import annotations

import asyncio
import gzip

import httpx
import respx

from crawlers.crawl.robots import fetch_robots, parse_robots
from crawlers.crawl.sitemap import discover, parse_sitemap
from crawlers.fetch import Fetcher, parse_retry_after

BASE = "http://docs.test/"
HTML = {"content-type": "text/html; charset=utf-8"}


def fetch(router: respx.MockRouter, url: str, **kwargs: object) -> tuple[object, list[float]]:
    delays: list[float] = []

    async def sleep(seconds: float) -> None:
        delays.append(seconds)

    async def go() -> object:
        async with (httpx.AsyncClient(transport=httpx.MockTransport(router.async_handler)) as client,
                    Fetcher(client=client, sleep=sleep, backoff=0.5, **kwargs) as fetcher):  # type: ignore[arg-type]
            return await fetcher.get(url)

    return asyncio.run(go()), delays


def test_429_with_retry_after_then_200_waits_as_told() -> None:
    router = respx.MockRouter(assert_all_called=False)
    router.get(BASE + "a.html").mock(
        side_effect=[httpx.Response(429, headers={"Retry-After": "3"}), httpx.Response(200, headers=HTML, text="<p>ok")]
    )
    result, delays = fetch(router, BASE + "a.html")
    assert result.ok and result.body == b"<p>ok" and result.attempts == 2  # type: ignore[attr-defined]
    assert delays == [3.0]


def test_retry_after_is_capped() -> None:
    router = respx.MockRouter(assert_all_called=False)
    router.get(BASE + "a.html").mock(
        side_effect=[httpx.Response(429, headers={"Retry-After": "86400"}), httpx.Response(200, headers=HTML, text="x")]
    )
    result, delays = fetch(router, BASE + "a.html", max_retry_after=7.0)
    assert result.ok and delays == [7.0]  # type: ignore[attr-defined]


def test_503_retried_with_exponential_backoff_then_gives_up() -> None:
    router = respx.MockRouter(assert_all_called=False)
    route = router.get(BASE + "a.html").mock(return_value=httpx.Response(503))
    result, delays = fetch(router, BASE + "a.html", retries=3)
    assert result.error == "server_error" and result.status == 503  # type: ignore[attr-defined]
    assert route.call_count == 4 and delays == [0.5, 1.0, 2.0]


def test_connect_error_then_success() -> None:
    router = respx.MockRouter(assert_all_called=False)
    router.get(BASE + "a.html").mock(side_effect=[httpx.ConnectError("refused"), httpx.Response(200, headers=HTML, text="x")])
    result, _ = fetch(router, BASE + "a.html")
    assert result.ok  # type: ignore[attr-defined]


def test_huge_page_is_capped_and_non_html_not_downloaded() -> None:
    router = respx.MockRouter(assert_all_called=False)
    router.get(BASE + "big.html").mock(return_value=httpx.Response(200, headers=HTML, content=b"<p>" + b"a" * 50_000))
    router.get(BASE + "file.pdf").mock(return_value=httpx.Response(200, headers={"content-type": "application/pdf"}, content=b"%PDF"))
    big, _ = fetch(router, BASE + "big.html", max_bytes=1000)
    assert big.truncated and len(big.body) == 1000  # type: ignore[attr-defined]
    pdf, _ = fetch(router, BASE + "file.pdf")
    assert pdf.error == "not_html" and pdf.body == b""  # type: ignore[attr-defined]


def test_conditional_get_sends_validators_and_reports_304() -> None:
    router = respx.MockRouter(assert_all_called=False)
    route = router.get(BASE + "a.html").mock(return_value=httpx.Response(304))

    async def go() -> object:
        async with (httpx.AsyncClient(transport=httpx.MockTransport(router.async_handler)) as client,
                    Fetcher(client=client) as fetcher):
            return await fetcher.get(BASE + "a.html", etag='"abc"', last_modified="Mon, 01 Jan 2024 00:00:00 GMT")

    result = asyncio.run(go())
    assert result.not_modified  # type: ignore[attr-defined]
    sent = route.calls.last.request.headers
    assert sent["if-none-match"] == '"abc"' and sent["if-modified-since"].startswith("Mon, 01 Jan 2024")
    assert sent["user-agent"] == "docbot/0.1 (+docs crawler)"


def test_redirect_chain_recorded_and_loop_detected() -> None:
    router = respx.MockRouter(assert_all_called=False)
    router.get(BASE + "old").mock(return_value=httpx.Response(301, headers={"Location": "/new/"}))
    router.get(BASE + "new/").mock(return_value=httpx.Response(200, headers=HTML, text="<p>new"))
    router.get(BASE + "a").mock(return_value=httpx.Response(302, headers={"Location": BASE + "b"}))
    router.get(BASE + "b").mock(return_value=httpx.Response(302, headers={"Location": BASE + "a"}))
    moved, _ = fetch(router, BASE + "old")
    assert moved.ok and moved.final_url == BASE + "new/" and moved.redirects == (BASE + "old",)  # type: ignore[attr-defined]
    loop, _ = fetch(router, BASE + "a")
    assert loop.error == "redirect_loop"  # type: ignore[attr-defined]


def test_retry_after_http_date() -> None:
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0) == 10.0
    assert parse_retry_after("soon") is None


def test_robots_rules_and_crawl_delay() -> None:
    robots = parse_robots("User-agent: *\nDisallow: /private/\nCrawl-delay: 2\nSitemap: http://docs.test/s.xml\n", "docbot/0.1")
    assert not robots.allowed(BASE + "private/x.html") and robots.allowed(BASE + "guide.html")
    assert robots.crawl_delay == 2.0 and robots.sitemaps == ("http://docs.test/s.xml",)
    router = respx.MockRouter(assert_all_called=False)
    router.get(BASE + "robots.txt").mock(return_value=httpx.Response(404))

    async def go() -> object:
        async with (httpx.AsyncClient(transport=httpx.MockTransport(router.async_handler)) as client,
                    Fetcher(client=client) as fetcher):
            return await fetch_robots(fetcher, BASE)

    assert asyncio.run(go()).allowed(BASE + "anything")  # type: ignore[attr-defined]


SITEMAP = b"""<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>http://docs.test/a.html</loc></url><url><loc> http://docs.test/b.html </loc></url></urlset>"""
INDEX = b"""<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<sitemap><loc>http://docs.test/part.xml.gz</loc></sitemap></sitemapindex>"""


def test_sitemap_index_and_gzip_discovery() -> None:
    assert parse_sitemap(SITEMAP).urls == ("http://docs.test/a.html", "http://docs.test/b.html")
    assert parse_sitemap(b"<not xml").urls == ()
    bomb = b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e "boom">]><urlset><url><loc>&e;</loc></url></urlset>'
    assert parse_sitemap(bomb).urls == ()  # entities are not expanded
    router = respx.MockRouter(assert_all_called=False)
    router.get(BASE + "sitemap.xml").mock(return_value=httpx.Response(200, content=INDEX))
    router.get(BASE + "part.xml.gz").mock(return_value=httpx.Response(200, content=gzip.compress(SITEMAP)))

    async def go() -> list[str]:
        async with (httpx.AsyncClient(transport=httpx.MockTransport(router.async_handler)) as client,
                    Fetcher(client=client) as fetcher):
            return await discover(fetcher, [BASE + "sitemap.xml"])

    assert asyncio.run(go()) == ["http://docs.test/a.html", "http://docs.test/b.html"]
