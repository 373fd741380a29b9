"""A scripted HTTP server on 127.0.0.1 that records every request it gets (path as sent, and its headers).

``routes`` maps a raw request path (query included) to ``(status, headers, body)``; anything else is 404. A route
with an ``ETag`` answers ``304 Not Modified`` to a request whose ``If-None-Match`` names it, as a real server does.
Shared by the scope and cross-page tests of the crawler and by the CLI's.
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

HTML = {"Content-Type": "text/html; charset=utf-8"}
Route = tuple[int, dict[str, str], str]


def page(title: str, body: str = "") -> Route:
    anchor = title.lower().replace(" ", "-")
    return 200, HTML, (f"<!doctype html><html><head><title>{title}</title></head><body>"
                       f'<h1 id="{anchor}">{title}</h1><p>About {title}.</p>{body}</body></html>')


def redirect(location: str, status: int = 302) -> Route:
    return status, {"Location": location}, ""


@dataclass
class Recorder:
    """One server's routes and the requests it got: (path as sent, lower-cased headers)."""

    routes: dict[str, Route] = field(default_factory=dict)
    requests: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    origin: str = ""  # http://127.0.0.1:PORT

    def paths(self) -> list[str]:
        return [path for path, _ in self.requests]

    def authorized(self) -> list[str]:
        """Paths of the requests that carried an Authorization header."""
        return [path for path, headers in self.requests if "authorization" in headers]


class _Handler(http.server.BaseHTTPRequestHandler):
    recorder: Recorder
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass

    def do_GET(self) -> None:
        self.recorder.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
        status, headers, body = self.recorder.routes.get(self.path, (404, {}, "not found"))
        if status == 200 and "ETag" in headers and self.headers.get("If-None-Match") == headers["ETag"]:
            status, headers, body = 304, {"ETag": headers["ETag"]}, ""
        data = body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Length", str(len(data)))
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)


@contextmanager
def recording_server() -> Iterator[Recorder]:
    recorder = Recorder()
    handler = type("Handler", (_Handler,), {"recorder": recorder})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    recorder.origin = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield recorder
    finally:
        server.shutdown()
        server.server_close()
