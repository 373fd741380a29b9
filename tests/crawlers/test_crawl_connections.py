"""Connections are reused: a recrawl of unchanged pages does not open one connection per 304."""

from __future__ import annotations

import functools
import http.server
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from crawlers.crawl import CrawlConfig
from tests.crawling import crawl_as_cli

PAGES = 30


class _CountingHandler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as real documentation hosts do
    connections = 0
    lock = threading.Lock()

    def setup(self) -> None:  # once per TCP connection
        with _CountingHandler.lock:
            _CountingHandler.connections += 1
        super().setup()

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@pytest.fixture
def site(tmp_path: Path) -> Iterator[str]:
    root = tmp_path / "site"
    root.mkdir()
    links = "".join(f'<a href="p{i}.html">page {i}</a> ' for i in range(PAGES))
    (root / "index.html").write_text(f"<html><head><title>Home</title></head><body><h1 id='home'>Home</h1>{links}</body></html>")
    for i in range(PAGES):
        (root / f"p{i}.html").write_text(
            f"<html><head><title>P{i}</title></head><body><h1 id='p{i}'>Page {i}</h1>"
            f"<h2 id='usage-{i}'>Usage</h2><p>Text {i}.</p></body></html>")
    for path in root.iterdir():  # older than the second they are served in, so Last-Modified is a usable validator
        os.utime(path, (1_600_000_000, 1_600_000_000))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_CountingHandler, directory=str(root)))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def test_a_recrawl_of_unchanged_pages_reuses_its_connections(site: str, tmp_path: Path) -> None:
    config = CrawlConfig(site="demo", start_url=site, concurrency=4, sitemaps=False)
    first, _ = crawl_as_cli(config, tmp_path / "maps", tmp_path / "data")
    assert len(first.map.pages) == PAGES + 1
    _CountingHandler.connections = 0
    second, _ = crawl_as_cli(config, tmp_path / "maps", tmp_path / "data")
    assert second.stats.not_modified == PAGES + 1
    # robots.txt (a 404 with a small body) and the pages share at most a few connections per worker
    assert _CountingHandler.connections <= 2 * config.concurrency, _CountingHandler.connections
