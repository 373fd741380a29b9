"""Every request of a crawl stays in the site's scope, and credentials go to the site's origin only.

Two real servers on 127.0.0.1 (two ports: two origins): the docs site under ``/docs/`` and somewhere else.
Each records what it was asked and with which headers.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Iterator

import pytest

from crawlers.crawl import CrawlConfig, CrawlResult, crawl
from tests.crawlers.recording_server import Recorder, page, recording_server, redirect

SITEMAP = '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{}</urlset>'
INDEX = '<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{}</sitemapindex>'


def urls(*locs: str) -> str:
    return SITEMAP.format("".join(f"<url><loc>{loc}</loc></url>" for loc in locs))


def children(*locs: str) -> str:
    return INDEX.format("".join(f"<sitemap><loc>{loc}</loc></sitemap>" for loc in locs))


@pytest.fixture()
def servers() -> Iterator[tuple[Recorder, Recorder]]:
    with recording_server() as site, recording_server() as elsewhere:
        yield site, elsewhere


def run(site: Recorder, **config: object) -> CrawlResult:
    cfg = CrawlConfig(site="s", start_url=site.origin + "/docs/", backoff=0.0, retries=0, **config)  # type: ignore[arg-type]
    return asyncio.run(crawl(cfg))


def test_sitemaps_named_by_robots_txt_or_an_index_on_another_origin_are_not_fetched(
        servers: tuple[Recorder, Recorder]) -> None:
    site, elsewhere = servers
    site.routes.update({
        "/robots.txt": (200, {}, f"User-agent: *\nSitemap: {elsewhere.origin}/sitemap.xml\n"),
        "/docs/index.html": page("Home"),
        "/docs/sitemap.xml": (200, {}, children(elsewhere.origin + "/child.xml", site.origin + "/docs/child.xml")),
        "/docs/child.xml": (200, {}, urls(site.origin + "/docs/orphan.html")),
        "/docs/orphan.html": page("Orphan"),
    })
    elsewhere.routes.update({"/sitemap.xml": (200, {}, urls(site.origin + "/docs/planted.html")),
                             "/child.xml": (200, {}, urls(site.origin + "/docs/planted.html"))})
    result = run(site)
    assert elsewhere.requests == []
    assert sorted(result.map.pages) == [site.origin + "/docs/index.html", site.origin + "/docs/orphan.html"]
    assert result.report.errors.get("offsite_sitemap") == 2


def test_sitemaps_on_an_allowed_origin_are_fetched_but_their_pages_stay_in_scope(
        servers: tuple[Recorder, Recorder]) -> None:
    site, elsewhere = servers
    site.routes.update({"/robots.txt": (200, {}, f"Sitemap: {elsewhere.origin}/sitemap.xml\n"),
                        "/docs/index.html": page("Home"), "/docs/orphan.html": page("Orphan")})
    elsewhere.routes["/sitemap.xml"] = (200, {}, urls(site.origin + "/docs/orphan.html", elsewhere.origin + "/x.html"))
    result = run(site, allow_origins=(elsewhere.origin,))
    assert elsewhere.paths() == ["/sitemap.xml"]
    assert sorted(result.map.pages) == [site.origin + "/docs/index.html", site.origin + "/docs/orphan.html"]


def test_a_robots_txt_that_redirects_to_another_origin_is_not_followed(servers: tuple[Recorder, Recorder]) -> None:
    site, elsewhere = servers
    site.routes.update({"/robots.txt": redirect(elsewhere.origin + "/robots.txt"), "/docs/index.html": page("Home")})
    elsewhere.routes["/robots.txt"] = (200, {}, "User-agent: *\nDisallow: /docs/\n")
    result = run(site)
    assert elsewhere.requests == []
    assert list(result.map.pages) == [site.origin + "/docs/index.html"]


@pytest.mark.parametrize("target", ["/docs/%2e%2e/admin/secret.html", "/docs/%2E%2E/admin/secret.html",
                                    "/docs/.%2e/admin/secret.html", "/docs/sub/%2e%2e/%2e%2e/admin/secret.html"])
def test_a_redirect_up_through_encoded_dots_is_out_of_scope(servers: tuple[Recorder, Recorder], target: str) -> None:
    site, _ = servers
    site.routes.update({"/docs/index.html": page("Home", '<a href="go.html">go</a>'),
                        "/docs/go.html": redirect(target), target: page("Secret"), "/admin/secret.html": page("Secret")})
    result = run(site)
    assert list(result.map.pages) == [site.origin + "/docs/index.html"]
    assert target not in site.paths() and "/admin/secret.html" not in site.paths()
    assert result.report.errors.get("offsite_redirect") == 1


def test_credentials_in_a_redirect_are_never_sent(servers: tuple[Recorder, Recorder]) -> None:
    site, _ = servers
    with_password = site.origin.replace("http://", "http://admin:hunter2@")
    site.routes.update({"/docs/index.html": page("Home", '<a href="a.html">a</a>'),
                        "/docs/a.html": redirect(with_password + "/docs/b.html"), "/docs/b.html": page("B")})
    result = run(site)
    assert site.authorized() == [] and "/docs/b.html" in site.paths()
    assert "hunter2" not in result.map.dumps() and "hunter2" not in repr(result.report.to_json())


def test_credentials_in_the_start_url_are_neither_sent_nor_written(servers: tuple[Recorder, Recorder],
                                                                   caplog: pytest.LogCaptureFixture) -> None:
    site, _ = servers
    site.routes["/docs/index.html"] = page("Home")
    cfg = CrawlConfig(site="s", start_url=site.origin.replace("http://", "http://admin:hunter2@") + "/docs/")
    result = asyncio.run(crawl(cfg))
    assert site.authorized() == [] and cfg.start_url == site.origin + "/docs/"
    assert result.map.base_url == site.origin + "/docs/" and "hunter2" not in result.map.dumps()
    assert "credentials" in caplog.text and "auth" in caplog.text and "hunter2" not in caplog.text


def test_configured_credentials_go_to_the_sites_origin_only(servers: tuple[Recorder, Recorder]) -> None:
    site, elsewhere = servers
    site.routes.update({"/robots.txt": (200, {}, f"Sitemap: {elsewhere.origin}/sitemap.xml\n"),
                        "/docs/index.html": page("Home", '<a href="a.html">a</a>'),
                        "/docs/a.html": redirect(elsewhere.origin + "/a.html")})
    elsewhere.routes["/sitemap.xml"] = (200, {}, urls())
    cfg = CrawlConfig(site="s", start_url=site.origin + "/docs/", auth=("docbot", "hunter2"),
                      allow_origins=(elsewhere.origin,))
    asyncio.run(crawl(cfg))
    expected = "Basic " + base64.b64encode(b"docbot:hunter2").decode()
    assert {"/robots.txt", "/docs/index.html", "/docs/a.html"} <= set(site.paths())
    assert site.authorized() == site.paths()
    assert all(headers["authorization"] == expected for _, headers in site.requests)
    assert elsewhere.paths() == ["/sitemap.xml"] and elsewhere.authorized() == []
    assert "hunter2" not in repr(cfg)
