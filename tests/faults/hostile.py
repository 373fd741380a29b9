"""A hostile documentation server on 127.0.0.1 that can switch how it fails while a test runs.

Modes: ``ok`` (ETag/304 like a real server), ``all500``, ``half500`` and ``half404`` (every
odd page), ``maintenance`` (200 with a "Down for maintenance" page everywhere), ``drip``
(one byte every ``drip_s`` seconds), ``redirect_loop`` (odd pages bounce between two URLs),
``huge`` (odd pages send ``huge_bytes``) and ``held`` (every request waits until the test sets ``released``, then
as ``ok``: a client stays inside its request for as long as the test needs, however slow the machine). ``extra``
pages (injection pages) are served as is.
"""

from __future__ import annotations

import hashlib
import http.server
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

MODES = ("ok", "all500", "half500", "half404", "maintenance", "drip", "redirect_loop", "huge", "held")
MAINTENANCE = ("<!doctype html><html><head><title>Down for maintenance</title></head><body>"
               "<h1>Down for maintenance</h1><p>We will be back soon.</p></body></html>")


def doc_page(i: int, links: str = "") -> str:
    """Page ``i``: a title, three anchored sections (one with code) and ``links``."""
    return (f"<!doctype html><html><head><title>Topic {i}</title></head><body>"
            f'<h1 id="topic-{i}">Topic {i}</h1><p>Topic {i} explains widget number {i}.</p>{links}'
            f'<h2 id="install-{i}">Installing widget {i}</h2><p>Install widget {i} with the installer.</p>'
            f'<h2 id="config-{i}">Configuring widget {i}</h2><p>Set WIDGET_{i}_LEVEL in the config.</p>'
            f'<pre>app.config["WIDGET_{i}_LEVEL"] = argv[2]\ntemplates[0].render()</pre>'
            f'<h2 id="faq-{i}">Widget {i} questions</h2><p>Widget {i} never sleeps.</p>'
            "</body></html>")


def make_pages(n: int) -> dict[str, str]:
    """index.html linking to p0…p{n-1}.html; each page links to the next one."""
    home = "".join(f'<a href="p{i}.html">Topic {i}</a> ' for i in range(n))
    pages = {"index.html": doc_page(-1, home).replace("Topic -1", "Widget docs")}
    for i in range(n):
        pages[f"p{i}.html"] = doc_page(i, f'<a href="p{(i + 1) % n}.html">next</a>')
    return pages


@dataclass
class Hostile:
    """The server's state; tests change ``mode`` (and ``pages``) between or during runs."""

    pages: dict[str, str]
    mode: str = "ok"
    drip_s: float = 0.5
    huge_bytes: int = 6_000_000
    hits: Counter[str] = field(default_factory=Counter)
    conditional: Counter[str] = field(default_factory=Counter)  # requests that carried If-None-Match
    url: str = ""
    released: threading.Event = field(default_factory=threading.Event)  # opens the gate of ``held``
    hold_after: int | None = None  # past this many requests, every request waits for ``released`` too

    def odd(self, path: str) -> bool:
        digits = "".join(ch for ch in path if ch.isdigit())
        return bool(digits) and int(digits) % 2 == 1


class _Handler(http.server.BaseHTTPRequestHandler):
    state: Hostile
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass

    def _send(self, status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        if body and self.command != "HEAD":
            self.wfile.write(body)

    def do_GET(self) -> None:
        s = self.state
        path = self.path.lstrip("/").partition("?")[0] or "index.html"
        s.hits[path] += 1
        if self.headers.get("If-None-Match"):
            s.conditional[path] += 1
        if s.mode == "held" or (s.hold_after is not None and sum(s.hits.values()) > s.hold_after):
            s.released.wait()
        html = {"Content-Type": "text/html; charset=utf-8"}
        if path == "robots.txt" or path.startswith("sitemap"):
            return self._send(500 if s.mode == "all500" else 404)
        if path not in s.pages:
            return self._send(404, b"not found")
        mode, odd = s.mode, s.odd(path)
        if mode == "all500" or (mode == "half500" and odd):
            return self._send(500, b"boom")
        if mode == "half404" and odd:
            return self._send(404, b"gone")
        if mode == "maintenance":
            return self._send(200, MAINTENANCE.encode(), html)
        if mode == "redirect_loop" and odd:
            target = path + "?loop" if "loop" not in self.path else path
            return self._send(302, headers={"Location": "/" + target})
        if mode == "drip":
            return self._drip(html)
        if mode == "huge" and odd:
            return self._huge(html)
        body = s.pages[path].encode("utf-8")
        etag = '"' + hashlib.sha1(body).hexdigest()[:16] + '"'
        if self.headers.get("If-None-Match") == etag:
            return self._send(304, headers={"ETag": etag})
        return self._send(200, body, {**html, "ETag": etag})

    def _drip(self, headers: dict[str, str]) -> None:
        self.send_response(200)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", "100000")
        self.end_headers()
        try:
            for _ in range(100000):
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(self.state.drip_s)
        except OSError:  # the client gave up: what a deadline is for
            return

    def _huge(self, headers: dict[str, str]) -> None:
        size = self.state.huge_bytes
        self.send_response(200)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(size))
        self.end_headers()
        chunk = b"<p>" + b"x" * 65530 + b"</p>"
        try:
            for _ in range(size // len(chunk)):
                self.wfile.write(chunk)
            self.wfile.write(b" " * (size % len(chunk)))
        except OSError:
            return


@contextmanager
def serve(pages: dict[str, str]) -> Iterator[Hostile]:
    """Run a hostile server over ``pages`` on 127.0.0.1; yields its state (``.url`` ends in '/')."""
    state = Hostile(pages)
    handler = type("Handler", (_Handler,), {"state": state})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        yield state
    finally:
        state.released.set()  # no handler stays held past the test
        server.shutdown()
        server.server_close()
