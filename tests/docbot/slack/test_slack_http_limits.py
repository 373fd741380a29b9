"""The Slack HTTP endpoint under hostile clients: huge bodies, unsigned or malformed ones, idle connections.

``docbot slack`` runs in HTTP mode as a process of its own (the tiny site of ``test_slack_cli``, hash
embeddings, the local fake Slack). Nobody is trusted before the signature is checked: a body over the cap is
refused unread (413, memory flat), a bad signature gets 401 and a malformed body 400, never a 500 with a
traceback; a connection that sends nothing is closed when its request's time is up.
"""

from __future__ import annotations

import hashlib
import hmac
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from docbot.slack.app import SlackSettings
from docbot.slack.fake import SECRET, FakeSlack, command_body, fake_slack, signed_headers
from tests.docbot.slack.slack_bot import FORM, JSON, start_bot
from tests.docbot.slack.test_slack_cli import HASH_DOCBOT, bot_process, common, crawl, served_site  # noqa: F401

BIG = 100 * 1024 * 1024  # a hundred times docbot.slack.server.MAX_BODY_BYTES
CHUNK = b"x" * (1024 * 1024)


def peak_rss_mb(pid: int) -> float:
    """The process's peak resident memory (VmHWM) so far, in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM")


def post_big(url: str, results: list[object]) -> None:
    """POST a 100 MB body, streamed (the client holds 1 MB of it); the status, or the error if the server hung up."""
    def body() -> Iterator[bytes]:
        for _ in range(BIG // len(CHUNK)):
            yield CHUNK

    try:
        resp = httpx.post(url, content=body(), headers={"Content-Type": FORM, "Content-Length": str(BIG)}, timeout=60)
        results.append(resp.status_code)
    except httpx.HTTPError as exc:
        results.append(type(exc).__name__)


def signed(body: bytes, content_type: str, timestamp: str | None = None) -> dict[str, str]:
    stamp = timestamp or str(int(time.time()))
    sig = "v0=" + hmac.new(SECRET.encode(), b"v0:" + stamp.encode() + b":" + body, hashlib.sha256).hexdigest()
    return {"Content-Type": content_type, "X-Slack-Request-Timestamp": stamp, "X-Slack-Signature": sig}


def raw_request(url: str, head: bytes) -> bytes:
    """Send ``head`` as is over a socket, and nothing more; what the server answers."""
    host, port = url.split("//")[1].split("/")[0].split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(head)
        sock.shutdown(socket.SHUT_WR)
        return sock.recv(65536)


@pytest.fixture()
def running_bot(tmp_path: Path, served_site: str, capsys: pytest.CaptureFixture[str],  # noqa: F811
                monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[subprocess.Popen[str], str, FakeSlack]]:
    import docbot.indexing.embed
    from docbot.cli import main
    from docbot.indexing.embed import HashEmbedder

    monkeypatch.setattr(docbot.indexing.embed, "embedder_from_settings", lambda settings: HashEmbedder())
    crawl(tmp_path, served_site, capsys)
    assert main([*common(tmp_path), "index"]) == 0
    with fake_slack() as slack, bot_process(tmp_path, [sys.executable, "-c", HASH_DOCBOT], slack) as (proc, summary):
        yield proc, summary["url"], slack
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0


def test_a_huge_body_is_refused_unread_and_memory_stays_flat(
        running_bot: tuple[subprocess.Popen[str], str, FakeSlack], tmp_path: Path) -> None:
    proc, url, _ = running_bot
    assert httpx.get(url.replace("/slack/events", "/healthz"), timeout=10).text == "ok"
    before = peak_rss_mb(proc.pid)
    results: list[object] = []
    senders = [threading.Thread(target=post_big, args=(url, results)) for _ in range(4)]
    for t in senders:
        t.start()
    for t in senders:
        t.join()
    grown = peak_rss_mb(proc.pid) - before
    print(f"peak RSS {before:.0f} MB -> {before + grown:.0f} MB after four 100 MB POSTs")
    assert results == [413] * 4
    assert grown < 30, f"peak RSS grew by {grown:.0f} MB for 100 MB bodies"
    assert "Traceback" not in (tmp_path / "bot.stderr").read_text(encoding="utf-8")


def test_unsigned_and_malformed_bodies_get_401_and_400_without_a_traceback(
        running_bot: tuple[subprocess.Popen[str], str, FakeSlack], tmp_path: Path) -> None:
    _proc, url, slack = running_bot
    broken_json, not_utf8 = b'{"type": "event_callback", "event": ', b"text=\xff\xfe&command=/docs"
    cases = [
        (broken_json, {"Content-Type": JSON}, 401),  # unsigned and malformed: the signature decides first
        (not_utf8, {"Content-Type": FORM}, 401),
        (b"token=x", {"Content-Type": FORM, "X-Slack-Request-Timestamp": "soon", "X-Slack-Signature": "v0=1"}, 401),
        (b"token=x", {"Content-Type": FORM, "X-Slack-Request-Timestamp": "1", "X-Slack-Signature": b"v0=\xe9"}, 401),
        (broken_json, signed(broken_json, JSON), 400),  # signed, but no Slack payload
        (not_utf8, signed(not_utf8, FORM), 400),
        (b"payload=%7Bnot+json", signed(b"payload=%7Bnot+json", FORM), 400),
        (b"[1, 2]", signed(b"[1, 2]", JSON), 400),
    ]
    for body, headers, status in cases:
        assert httpx.post(url, content=body, headers=headers, timeout=10).status_code == status, (body, headers)
    assert raw_request(url, b"POST /slack/events HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n").startswith(
        b"HTTP/1.0 400")
    assert raw_request(url, b"POST /slack/events HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nshort").startswith(
        b"HTTP/1.0 400")

    body = command_body("How do I limit the upload size?", slack.response_url("still"))
    ok = httpx.post(url, content=body.encode(), headers=signed_headers(body, FORM), timeout=10)
    assert ok.status_code == 200 and ok.json()["text"] == "Searching the docs…"
    slack.wait_for(lambda c: c.path == "/response/still", timeout=60)
    assert "Traceback" not in (tmp_path / "bot.stderr").read_text(encoding="utf-8")


def test_idle_connections_are_closed_and_hold_no_thread(tmp_path: Path, slack: FakeSlack) -> None:
    for bot in start_bot(tmp_path, slack, SlackSettings(), request_timeout=0.5):
        host, port = bot.url.split("//")[1].split("/")[0].split(":")
        threads = threading.active_count()
        idle = [socket.create_connection((host, int(port)), timeout=10) for _ in range(10)]
        idle[0].sendall(b"POST /slack/events HTTP/1.1\r\nContent-Length: 100\r\n\r\nhalf a bo")  # then silence
        for sock in idle:
            started = time.monotonic()
            reply = sock.recv(65536)  # the server hangs up, with a 408
            assert time.monotonic() - started < 3 and (reply == b"" or reply.startswith(b"HTTP/1.0 408"))
            assert threading.active_count() <= threads  # none for a connection: one thread reads them all
            sock.close()
