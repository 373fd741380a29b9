"""A local stand-in for Slack, so the real bot can be driven without a workspace (tests, scripts/bench_slack.py).

``FakeSlack`` is a real HTTP server on 127.0.0.1 that plays both Slack's Web
API (``/api/<method>``) and the ``response_url`` endpoints (``/response/<id>``),
recording every call with its arrival time. ``signed_headers`` and the
``*_body`` builders make requests signed with a real signing secret, as
Slack sends them to the Bolt HTTP server. Point the bot's WebClient at
``FakeSlack.api_url`` (``SLACK_API_URL``) and its response_urls at
``FakeSlack.response_url(name)``.
"""

from __future__ import annotations

import http.server
import json
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from slack_sdk.signature import SignatureVerifier

SECRET = "test-signing-secret"
BOT_TOKEN = "xoxb-test-token"
BOT_USER = "UBOT0001"
TEAM = "T0001"


@dataclass
class Call:
    path: str  # "/api/chat.postMessage" or "/response/<id>"
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    arrived: float = 0.0  # time.perf_counter() when the call arrived

    @property
    def method(self) -> str:
        return self.path.rsplit("/", 1)[-1]


class FakeSlack:
    """Records calls; ``fail`` maps a Web API method to an error code it answers with."""

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.fail: dict[str, str] = {}
        self._cond = threading.Condition()
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:  # noqa: A002
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode("utf-8")
                ctype = self.headers.get("Content-Type", "")
                if "json" in ctype:
                    body = json.loads(raw or "{}")
                else:
                    body = {k: v[0] for k, v in urllib.parse.parse_qs(raw).items()}
                call = Call(self.path, body, {k.lower(): v for k, v in self.headers.items()}, time.perf_counter())
                with fake._cond:
                    fake.calls.append(call)
                    fake._cond.notify_all()
                if self.path.startswith("/response/"):
                    self._send(200, "ok", "text/plain")
                else:
                    self._send(200, json.dumps(fake.reply(call.method, body)), "application/json")

            def _send(self, status: int, text: str, ctype: str) -> None:
                data = text.encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        self.base = f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def api_url(self) -> str:
        return self.base + "/api/"

    def response_url(self, name: str) -> str:
        return f"{self.base}/response/{name}"

    def reply(self, method: str, body: dict[str, Any]) -> dict[str, Any]:
        if method in self.fail:
            return {"ok": False, "error": self.fail[method]}
        if method == "auth.test":
            return {"ok": True, "user_id": BOT_USER, "bot_id": "B0001", "team_id": TEAM, "user": "docbot",
                    "url": "https://example.slack.com/"}
        if method == "chat.postMessage":
            return {"ok": True, "channel": body.get("channel"), "ts": f"{time.time():.6f}", "message": body}
        return {"ok": True}

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    # -- reading what the bot sent -------------------------------------------
    def matching(self, pred: Callable[[Call], bool]) -> list[Call]:
        with self._cond:
            return [c for c in self.calls if pred(c)]

    def wait_for(self, pred: Callable[[Call], bool], count: int = 1, timeout: float = 20.0) -> list[Call]:
        """The calls matching ``pred`` once there are ``count`` of them (AssertionError after ``timeout``)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                found = [c for c in self.calls if pred(c)]
                if len(found) >= count:
                    return found
                left = deadline - time.monotonic()
                if left <= 0:
                    seen = [c.path for c in self.calls]
                    raise AssertionError(f"expected {count} matching calls within {timeout}s; saw {seen}")
                self._cond.wait(left)

    def posts(self, name: str) -> list[dict[str, Any]]:
        return [c.body for c in self.matching(lambda c: c.path == f"/response/{name}")]


@contextmanager
def fake_slack() -> Iterator[FakeSlack]:
    fake = FakeSlack()
    try:
        yield fake
    finally:
        fake.close()


def signed_headers(body: str, content_type: str, timestamp: int | None = None, secret: str = SECRET) -> dict[str, str]:
    ts = str(int(time.time()) if timestamp is None else timestamp)
    signature = SignatureVerifier(secret).generate_signature(timestamp=ts, body=body)
    return {"Content-Type": content_type, "X-Slack-Request-Timestamp": ts, "X-Slack-Signature": signature or ""}


def command_body(text: str, response_url: str, user: str = "U0001", channel: str = "C0001",
                 command: str = "/docs", trigger: str = "t1") -> str:
    return urllib.parse.urlencode({
        "token": "legacy", "team_id": TEAM, "team_domain": "example", "channel_id": channel, "channel_name": "general",
        "user_id": user, "user_name": "ada", "command": command, "text": text, "api_app_id": "A0001",
        "response_url": response_url, "trigger_id": trigger,
    })


def event_body(event: dict[str, Any], event_id: str = "Ev0001") -> str:
    return json.dumps({
        "token": "legacy", "team_id": TEAM, "api_app_id": "A0001", "type": "event_callback", "event_id": event_id,
        "event_time": int(time.time()), "authorizations": [{"team_id": TEAM, "user_id": BOT_USER, "is_bot": True}],
        "event": event,
    })


def action_body(action_id: str, value: str, response_url: str, user: str = "U0002", channel: str = "C0001",
                message: dict[str, Any] | None = None) -> str:
    """A button click; on a private (ephemeral) message unless ``message`` (its ``ts``, ``thread_ts``) is given."""
    container: dict[str, Any] = {"type": "message", "message_ts": "1.2", "is_ephemeral": True}
    payload: dict[str, Any] = {
        "type": "block_actions", "team": {"id": TEAM, "domain": "example"}, "user": {"id": user, "name": "grace"},
        "api_app_id": "A0001", "channel": {"id": channel, "name": "general"}, "response_url": response_url,
        "trigger_id": "t2", "container": container,
        "actions": [{"action_id": action_id, "block_id": f"docbot_answer_{value}", "value": value, "type": "button",
                     "action_ts": f"{time.time():.6f}"}],
    }
    if message is not None:
        container.update(message_ts=message["ts"], channel_id=channel, is_ephemeral=False)
        if message.get("thread_ts"):
            container["thread_ts"] = message["thread_ts"]
        payload["message"] = {"type": "message", "user": BOT_USER, **message}
    return urllib.parse.urlencode({"payload": json.dumps(payload)})
