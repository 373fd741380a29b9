"""Serving the Bolt app: HTTP mode (Bolt's WSGI adapter on a threaded server) or Socket Mode.

HTTP mode listens at Bolt's usual ``/slack/events`` for commands, events and
interactions, and answers ``GET /healthz`` for load balancers. The WSGI
callable from :func:`wsgi_app` also runs under gunicorn for production
deployments; ``docbot slack`` serves it with the standard library's threaded
WSGI server so nothing more needs installing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from slack_bolt import App
from slack_bolt.adapter.wsgi import SlackRequestHandler

log = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"
HEALTH_PATH = "/healthz"
DEFAULT_PORT = 3000
DEFAULT_HOST = "0.0.0.0"  # Slack must reach it; put it behind your TLS proxy

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


LISTEN_BACKLOG = 128  # socketserver's default of 5 resets connections when a burst of Slack requests arrives


class _ThreadingWSGIServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = LISTEN_BACKLOG


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        log.debug("%s - %s", self.address_string(), format % args)


def wsgi_app(app: App, path: str = EVENTS_PATH) -> WSGIApp:
    """The WSGI callable: Slack requests at ``path``, a health check at ``/healthz``."""
    bolt = SlackRequestHandler(app, path)

    def application(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("PATH_INFO") == HEALTH_PATH and environ.get("REQUEST_METHOD") == "GET":
            start_response("200 OK", [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", "2")])
            return [b"ok"]
        return bolt(environ, start_response)  # type: ignore[arg-type]

    return application


def make_http_server(app: App, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, path: str = EVENTS_PATH) -> WSGIServer:
    """A threaded HTTP server for ``app`` (port 0 picks a free port: see ``server.server_port``)."""
    return make_server(host, port, wsgi_app(app, path), server_class=_ThreadingWSGIServer, handler_class=_QuietHandler)


def start_socket_mode(app: App, app_token: str) -> None:
    """Connect to Slack over Socket Mode (no public URL needed) and serve until interrupted."""
    from slack_bolt.adapter.socket_mode import SocketModeHandler

    SocketModeHandler(app, app_token).start()
