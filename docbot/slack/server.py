"""Serving the Bolt app: HTTP mode (Bolt's WSGI adapter on a bounded threaded server) or Socket Mode.

HTTP mode listens at Bolt's usual ``/slack/events`` for commands, events and
interactions, and answers ``GET /healthz`` for load balancers. The WSGI
callable from :func:`wsgi_app` also runs under gunicorn for production
deployments; ``docbot slack`` serves it with the standard library's WSGI
server so nothing more needs installing.

Nothing from the network is trusted before its signature is checked, nor given a thread before it has arrived:
one thread reads every request (:mod:`docbot.slack.intake`), and only a whole one is answered, by one of
:data:`WORKERS` threads. A request that takes longer than :data:`REQUEST_TIMEOUT_S` to arrive gets 408, at most
:data:`MAX_CONNECTIONS` are open at once (the oldest still arriving makes room for a new one), a body over
:data:`MAX_BODY_BYTES` is refused (413) without being kept in memory, a bad or missing signature gets 401 and a
malformed signed body 400 (Bolt itself would parse an unsigned body first and answer 500 with a traceback).
"""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import logging
import socket
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from http import HTTPStatus
from typing import Any, BinaryIO
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer

from slack_bolt import App, BoltRequest
from slack_bolt.adapter.wsgi import SlackRequestHandler
from slack_bolt.adapter.wsgi.http_request import WsgiHttpRequest

from docbot.slack.intake import DRAIN_S, Arrived, Intake

log = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"
HEALTH_PATH = "/healthz"
DEFAULT_PORT = 3000
DEFAULT_HOST = "0.0.0.0"  # Slack must reach it; put it behind your TLS proxy

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

MAX_BODY_BYTES = 1_000_000  # Slack's payloads are a few KB; anything larger is refused before it is read
REQUEST_TIMEOUT_S = 5.0  # a request (headers and body) must arrive whole this soon after its connection opens
MAX_CONNECTIONS = 256  # open at once; each costs a socket and its bytes so far, not a thread
WORKERS = 16  # threads answering whole requests (an ack is milliseconds: the answers run in DocbotSlack's pool)
DRAIN_CHUNK = 64 * 1024
SIGNATURE_WINDOW_S = 300  # Slack's own rule: a request signed longer ago than this is refused
LISTEN_BACKLOG = 128  # socketserver's default of 5 resets connections when a burst of Slack requests arrives


class _Writer(io.BufferedIOBase):
    """The response goes out with ``sendall`` (bounded by the socket's timeout)."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        self._sock.sendall(data)
        return len(data)


class _QuietHandler(WSGIRequestHandler):
    """Answers an :class:`Arrived` request from its buffered bytes."""

    def setup(self) -> None:
        arrived: Arrived = self.request
        self.connection = arrived.sock
        self.connection.settimeout(self.server.request_timeout)  # type: ignore[attr-defined]  # for the reply
        self.rfile = io.BytesIO(arrived.data)
        self.wfile = _Writer(self.connection)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        log.debug("%s - %s", self.address_string(), format % args)

    def handle(self) -> None:
        try:
            super().handle()
        except (TimeoutError, ConnectionError) as exc:  # a client that does not read its reply, or went away
            log.debug("%s: connection closed (%s)", self.address_string(), exc)


class _BoundedWSGIServer(WSGIServer):
    """A WSGI server whose connections cost a thread only while a whole request is being answered."""

    allow_reuse_address = True
    request_queue_size = LISTEN_BACKLOG

    def __init__(self, address: tuple[str, int], max_connections: int, request_timeout: float) -> None:
        self.request_timeout = request_timeout
        self._workers = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="docbot-http")
        self._intake = Intake(self._answer, max_connections, request_timeout, MAX_BODY_BYTES)
        self._reader = threading.Thread(target=self._intake.run, name="docbot-http-intake", daemon=True)
        self._reader.start()
        super().__init__(address, _QuietHandler)  # binds; when that fails it calls server_close, which stops these

    def process_request(self, request: Any, client_address: Any) -> None:
        self._intake.add(request, client_address)  # the accepting thread never waits on a client

    def _answer(self, arrived: Arrived) -> None:
        self._workers.submit(self._work, arrived)

    def _work(self, arrived: Arrived) -> None:
        try:
            self.finish_request(arrived, arrived.address)  # type: ignore[arg-type]
        except Exception:  # noqa: BLE001 - as socketserver does: report it, keep serving
            self.handle_error(arrived.sock, arrived.address)
        finally:
            self.shutdown_request(arrived.sock)
            self._intake.finished()

    def server_close(self) -> None:
        super().server_close()
        self._intake.close()
        self._reader.join(timeout=10)
        self._workers.shutdown(wait=True)


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
            return bolt(environ, start_response)  # 404: no body is read
        body, refusal = _read_body(environ, max_body, signing_secret)
        if refusal is not None:
            status, why = refusal
            log.info("refused a request to %s: %s %s", path, status, why)
            return _reply(start_response, status, why)
        return bolt({**environ, "wsgi.input": io.BytesIO(body), "CONTENT_LENGTH": str(len(body))},
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
    except OSError:  # the client went quiet (the WSGI server's timeout) or away
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
                     signing_secret: str | None = None, max_connections: int = MAX_CONNECTIONS,
                     request_timeout: float = REQUEST_TIMEOUT_S) -> WSGIServer:
    """An HTTP server for ``app`` (port 0 picks a free port: see ``server.server_port``); close it with
    ``server_close()``, which finishes the requests being answered."""
    server = _BoundedWSGIServer((host, port), max_connections, request_timeout)
    server.set_app(wsgi_app(app, path, signing_secret))
    return server


def start_socket_mode(app: App, app_token: str) -> None:
    """Connect to Slack over Socket Mode (no public URL needed) and serve until interrupted."""
    from slack_bolt.adapter.socket_mode import SocketModeHandler

    SocketModeHandler(app, app_token).start()
