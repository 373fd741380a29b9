"""Serving the Bolt app: HTTP mode (Bolt's WSGI adapter on a threaded server) or Socket Mode.

HTTP mode listens at Bolt's usual ``/slack/events`` for commands, events and
interactions, and answers ``GET /healthz`` for load balancers. The WSGI
callable from :func:`wsgi_app` also runs under gunicorn for production
deployments; ``docbot slack`` serves it with the standard library's threaded
WSGI server so nothing more needs installing.

Nothing from the network is trusted before its signature is checked: a body over
:data:`MAX_BODY_BYTES` is refused (413) without being read into memory, a bad or
missing signature gets 401 and a malformed signed body 400 (Bolt itself would parse an
unsigned body first and answer 500 with a traceback), and a connection that sends
nothing for :data:`IDLE_TIMEOUT_S` is closed, its thread freed.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import logging
import time
from collections.abc import Callable, Iterable
from http import HTTPStatus
from socketserver import ThreadingMixIn
from typing import Any, BinaryIO
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from slack_bolt import App, BoltRequest
from slack_bolt.adapter.wsgi import SlackRequestHandler
from slack_bolt.adapter.wsgi.http_request import WsgiHttpRequest

log = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"
HEALTH_PATH = "/healthz"
DEFAULT_PORT = 3000
DEFAULT_HOST = "0.0.0.0"  # Slack must reach it; put it behind your TLS proxy

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

MAX_BODY_BYTES = 1_000_000  # Slack's payloads are a few KB; anything larger is refused before it is read
IDLE_TIMEOUT_S = 10.0  # a connection silent this long (while sending its request) is closed
DRAIN_S = 5.0  # after a 413 the rest of the body is read and dropped this long, so the client gets to read the 413
DRAIN_CHUNK = 64 * 1024
SIGNATURE_WINDOW_S = 300  # Slack's own rule: a request signed longer ago than this is refused


LISTEN_BACKLOG = 128  # socketserver's default of 5 resets connections when a burst of Slack requests arrives


class _ThreadingWSGIServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = LISTEN_BACKLOG


class _QuietHandler(WSGIRequestHandler):
    timeout = IDLE_TIMEOUT_S  # socket timeout of every read and write (StreamRequestHandler.setup)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        log.debug("%s - %s", self.address_string(), format % args)

    def handle(self) -> None:
        try:
            super().handle()
        except (TimeoutError, ConnectionError) as exc:  # an idle or vanished client: hang up, free the thread
            log.debug("%s: connection closed (%s)", self.address_string(), exc)


def wsgi_app(app: App, path: str = EVENTS_PATH, signing_secret: str | None = None,
             max_body: int = MAX_BODY_BYTES) -> WSGIApp:
    """The WSGI callable: Slack requests at ``path``, a health check at ``/healthz``.

    With ``signing_secret`` (give it: Bolt's own check runs only after it has parsed the body) a request is
    signature-checked before its body is parsed.
    """
    bolt = SlackRequestHandler(app, path)

    def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("PATH_INFO") == HEALTH_PATH and environ.get("REQUEST_METHOD") == "GET":
            start_response("200 OK", [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", "2")])
            return [b"ok"]
        if environ.get("PATH_INFO") != path or environ.get("REQUEST_METHOD") != "POST":
            return bolt(environ, start_response)  # type: ignore[arg-type]  # 404: no body is read
        body, refusal = _read_body(environ, max_body, signing_secret)
        if refusal is not None:
            status, why = refusal
            log.info("refused a request to %s: %s %s", path, status, why)
            return _reply(start_response, status, why)
        return bolt({**environ, "wsgi.input": io.BytesIO(body), "CONTENT_LENGTH": str(len(body))},  # type: ignore[arg-type]
                    start_response)

    return application


def _read_body(environ: dict[str, Any], max_body: int, secret: str | None) -> tuple[bytes, tuple[int, str] | None]:
    """The request's body, or why it is refused: (HTTP status, reason)."""
    declared = str(environ.get("CONTENT_LENGTH") or "")
    if not declared:
        return b"", (411, "a Content-Length is required")
    if not (declared.isascii() and declared.isdigit()):
        return b"", (400, "invalid Content-Length")
    length = int(declared)
    stream: BinaryIO = environ["wsgi.input"]
    if length > max_body:
        _drain(stream, length)
        return b"", (413, f"bodies over {max_body} bytes are refused")
    try:
        body = stream.read(length)
    except OSError:  # the client went quiet (the idle timeout) or away
        return b"", (408, "the body did not arrive in time")
    if len(body) < length:
        return b"", (400, "the body is shorter than its Content-Length")
    if secret and not _signed(body, environ, secret):
        return b"", (401, "invalid or missing signature")
    try:
        request = WsgiHttpRequest(environ)
        BoltRequest(body=body.decode("utf-8"), query=request.query_string, headers=request.get_headers())
    except Exception:  # noqa: BLE001 - whatever Bolt cannot read is not a Slack payload
        return b"", (400, "not a Slack payload")
    return body, None


def _signed(body: bytes, environ: dict[str, Any], secret: str) -> bool:
    """Slack's v0 signature over the raw body (sound for any bytes: Bolt's check decodes them first)."""
    stamp = str(environ.get("HTTP_X_SLACK_REQUEST_TIMESTAMP", ""))
    given = str(environ.get("HTTP_X_SLACK_SIGNATURE", "")).encode("utf-8", "replace")
    if not (stamp.isascii() and stamp.isdigit()) or abs(time.time() - int(stamp)) > SIGNATURE_WINDOW_S:
        return False
    digest = hmac.new(secret.encode(), b"v0:" + stamp.encode() + b":" + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(f"v0={digest}".encode(), given)


def _drain(stream: BinaryIO, length: int) -> None:
    """Read and drop up to ``length`` bytes for at most :data:`DRAIN_S` (memory flat): a client that is still
    sending when the server hangs up never reads the 413."""
    deadline = time.monotonic() + DRAIN_S
    try:
        while length > 0 and time.monotonic() < deadline:
            chunk = stream.read(min(length, DRAIN_CHUNK))
            if not chunk:
                return
            length -= len(chunk)
    except OSError:
        return


def _reply(start_response: Callable[..., Any], status: int, why: str) -> list[bytes]:
    body = json.dumps({"error": why}).encode()
    start_response(f"{status} {HTTPStatus(status).phrase}",
                   [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
    return [body]


def make_http_server(app: App, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, path: str = EVENTS_PATH,
                     signing_secret: str | None = None, idle_timeout: float = IDLE_TIMEOUT_S) -> WSGIServer:
    """A threaded HTTP server for ``app`` (port 0 picks a free port: see ``server.server_port``)."""
    handler = type("Handler", (_QuietHandler,), {"timeout": idle_timeout})
    return make_server(host, port, wsgi_app(app, path, signing_secret), server_class=_ThreadingWSGIServer,
                       handler_class=handler)


def start_socket_mode(app: App, app_token: str) -> None:
    """Connect to Slack over Socket Mode (no public URL needed) and serve until interrupted."""
    from slack_bolt.adapter.socket_mode import SocketModeHandler

    SocketModeHandler(app, app_token).start()
