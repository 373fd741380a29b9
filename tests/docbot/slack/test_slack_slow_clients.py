"""The Slack HTTP endpoint under slow clients: connections that drip a request a byte at a time.

The real server runs in this process on 127.0.0.1 (so ``threading.active_count()`` counts its threads), against
the local fake Slack. A slow connection must cost no thread, must be closed with 408 once its whole request has
taken longer than the deadline, and must never keep a correctly signed slash command from its ack.
"""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import httpx

from docbot.slack.app import SlackSettings
from docbot.slack.fake import FakeSlack, command_body, signed_headers
from tests.docbot.slack.slack_bot import FORM, start_bot

DRIPPERS = 160
DRIP_S = 0.25  # a byte from every dripper this often: far under any per-read timeout
ACK_LIMIT_S = 3.0  # Slack shows the user an error when the ack takes longer
HEAD = b"POST /slack/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: " + FORM.encode()


class Drippers:
    """``n`` loopback connections, each sending a request one byte per :meth:`drip` (half in the headers, half in
    a promised 10 kB body); a connection the server has closed is left alone."""

    def __init__(self, url: str, n: int) -> None:
        host, port = url.split("//")[1].split("/")[0].split(":")
        self.socks: list[socket.socket] = []
        self.closed: set[int] = set()
        for i in range(n):
            sock = socket.create_connection((host, int(port)), timeout=10)
            sock.sendall(HEAD + (b"\r\nContent-Length: 10000\r\n\r\n" if i % 2 else b"\r\nX-Slow: "))
            self.socks.append(sock)

    def drip(self) -> None:
        for i, sock in enumerate(self.socks):
            if i not in self.closed:
                try:
                    sock.send(b"x")
                except OSError:  # the server hung up on it
                    self.closed.add(i)

    def reply(self, i: int, wait_s: float) -> bytes:
        """What the server sent on connection ``i`` before hanging up, dripping on the others meanwhile."""
        sock = self.socks[i]
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            sock.settimeout(DRIP_S)
            try:
                return sock.recv(65536)
            except TimeoutError:
                self.drip()
            except OSError:
                return b""
        raise AssertionError(f"connection {i} still open after {wait_s} s")

    def close(self) -> None:
        for sock in self.socks:
            sock.close()


def post_command(bot_url: str, slack: FakeSlack, name: str, results: list[tuple[int, float]]) -> None:
    body = command_body("How do I limit the upload size?", slack.response_url(name))
    started = time.monotonic()
    resp = httpx.post(bot_url, content=body.encode(), headers=signed_headers(body, FORM), timeout=10)
    results.append((resp.status_code, time.monotonic() - started))


def test_slow_clients_hold_no_threads_and_a_signed_command_is_acked_within_3s(tmp_path: Path, slack: FakeSlack) -> None:
    for bot in start_bot(tmp_path, slack, SlackSettings()):
        baseline = threading.active_count()
        drippers = Drippers(bot.url, DRIPPERS)
        try:
            peak, acked = baseline, list[tuple[int, float]]()
            sender = threading.Thread(target=post_command, args=(bot.url, slack, "under-attack", acked))
            for rounds in range(40):  # ~10 s at most; the command goes out once every dripper has started
                drippers.drip()
                peak = max(peak, threading.active_count())
                if rounds == 4:
                    sender.start()
                if rounds > 8 and not sender.is_alive():
                    break
                time.sleep(DRIP_S)
            sender.join(timeout=10)
            slack.wait_for(lambda c: c.path == "/response/under-attack", timeout=60)
        finally:
            drippers.close()
        print(f"threads {baseline} -> peak {peak} with {DRIPPERS} dripping connections; ack {acked}")
        assert peak - baseline < DRIPPERS // 4, f"{peak - baseline} threads for {DRIPPERS} slow connections"
        assert len(acked) == 1 and acked[0][0] == 200
        assert acked[0][1] < ACK_LIMIT_S, f"the ack took {acked[0][1]:.2f} s under attack"


def test_a_request_still_arriving_at_its_deadline_gets_408(tmp_path: Path, slack: FakeSlack) -> None:
    for bot in start_bot(tmp_path, slack, SlackSettings(), request_timeout=1.0):
        opened = time.monotonic()
        drippers = Drippers(bot.url, 20)
        try:
            replies = [drippers.reply(i, wait_s=15) for i in range(20)]  # dripping all along
            took = time.monotonic() - opened
        finally:
            drippers.close()
        assert all(r.startswith(b"HTTP/1.0 408 ") for r in replies), {r[:40] for r in replies}
        assert took < 1.0 + 5, f"slow requests were closed after {took:.1f} s, not about 1 s"


def test_at_the_connection_cap_the_oldest_request_still_arriving_makes_room(tmp_path: Path, slack: FakeSlack) -> None:
    for bot in start_bot(tmp_path, slack, SlackSettings(), max_connections=20, request_timeout=60):
        drippers = Drippers(bot.url, 20)
        try:
            acked: list[tuple[int, float]] = []
            post_command(bot.url, slack, "at-the-cap", acked)  # the 21st connection
            oldest = drippers.reply(0, wait_s=10)
            drippers.drip()
            assert drippers.closed == set()  # the others keep their slots (their deadline is a minute away)
        finally:
            drippers.close()
        assert acked[0][0] == 200
        assert oldest.startswith(b"HTTP/1.0 408 ")
