"""Receiving HTTP requests without a thread per connection: the intake of the Slack HTTP server.

One thread reads every connection's request (headers and body) with a selector, so a client that sends slowly
holds a socket and its bytes, never a thread. A request must arrive whole within ``request_timeout`` of its
connection being accepted, or it gets 408 and is closed, however steadily it drips. At most
``max_connections`` are open at once; when one more arrives at the cap, the oldest request still arriving is
closed (408) to make room: Slack sends a request whole, so the connection that has waited longest is the slow
one, and a request already whole when its connection is taken in is handed on at once, out of reach. A body
declared larger than ``max_body`` gets 413 at once and is read and dropped (for at most :data:`DRAIN_S`) so the
client reads the 413. Only a request that has arrived is handed on (:class:`Arrived`) to be answered by a
bounded pool of threads.
"""

from __future__ import annotations

import json
import logging
import re
import selectors
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

log = logging.getLogger(__name__)

MAX_HEADER_BYTES = 64 * 1024  # the request line and headers; Slack's are well under 2 kB
DRAIN_S = 5.0  # after a 413 the rest of the body is read and dropped this long, so the client gets to read the 413
READ_CHUNK = 256 * 1024
_END_OF_HEAD = re.compile(rb"\r?\n\r?\n")


@dataclass(frozen=True, slots=True)
class Arrived:
    """A request read whole (or all the client sent before it stopped sending), for a worker to answer."""

    sock: socket.socket
    address: Any
    data: bytes


@dataclass(slots=True, eq=False)
class _Arriving:
    sock: socket.socket
    address: Any
    deadline: float  # time.monotonic() by which the whole request must be in
    data: bytearray = field(default_factory=bytearray)
    size: int | None = None  # headers + declared body, once the headers are in
    dropping: int = 0  # bytes of a refused (413) body still to read and drop


def content_length(head: bytes) -> int | None:
    """The first Content-Length of a request head, if it is a plain number (anything else: the app refuses it)."""
    for line in head.splitlines()[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            value = value.strip()
            return int(value) if value.isdigit() else None
    return None


def canned(status: int, why: str) -> bytes:
    """A whole HTTP/1.0 response with a JSON ``{"error": why}`` body, as the WSGI app words its refusals."""
    body = json.dumps({"error": why}).encode()
    return (f"HTTP/1.0 {status} {HTTPStatus(status).phrase}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode() + body


class Intake:
    """Reads requests on one thread (:meth:`run`) and hands each whole one to ``hand_on``."""

    def __init__(self, hand_on: Callable[[Arrived], None], max_connections: int, request_timeout: float,
                 max_body: int) -> None:
        self.hand_on = hand_on
        self.max_connections = max_connections
        self.request_timeout = request_timeout
        self.max_body = max_body
        self._selector = selectors.DefaultSelector()
        self._wake_r, self._wake_w = socket.socketpair()
        for end in (self._wake_r, self._wake_w):
            end.setblocking(False)
        self._selector.register(self._wake_r, selectors.EVENT_READ)
        self._new: deque[tuple[socket.socket, Any]] = deque()
        self._arriving: dict[socket.socket, _Arriving] = {}  # in the order accepted: the first is the oldest
        self._lock = threading.Lock()
        self._answering = 0  # handed on and not yet finished: they count towards max_connections
        self._closing = False

    # -- called from other threads ---------------------------------------------
    def add(self, sock: socket.socket, address: Any) -> None:
        """Take a newly accepted connection (from the accepting thread)."""
        self._new.append((sock, address))
        self._wake()

    def finished(self) -> None:
        """A connection handed on has been answered and closed (from a worker)."""
        with self._lock:
            self._answering -= 1

    def close(self) -> None:
        """Stop :meth:`run`; the connections still arriving are closed."""
        self._closing = True
        self._wake()

    def _wake(self) -> None:
        try:
            self._wake_w.send(b"\0")
        except OSError:  # the wake-up pipe is full (run wakes anyway) or already closed
            pass

    # -- the intake thread -------------------------------------------------------
    def run(self) -> None:
        """Read until :meth:`close`."""
        try:
            while not self._closing:
                self._admit()
                self._expire(time.monotonic())
                for key, _ in self._selector.select(self._timeout()):
                    if key.fileobj is self._wake_r:
                        self._drain_wake()
                    else:
                        self._receive(key.data)
        finally:
            for conn in list(self._arriving.values()):
                self._close(conn)
            while self._new:
                self._new.popleft()[0].close()
            self._selector.close()
            self._wake_r.close()
            self._wake_w.close()

    def _timeout(self) -> float | None:
        if not self._arriving:
            return None
        return max(0.0, min(c.deadline for c in self._arriving.values()) - time.monotonic())

    def _drain_wake(self) -> None:
        try:
            while self._wake_r.recv(4096):
                pass
        except OSError:  # nothing more to read
            pass

    def _admit(self) -> None:
        while self._new:
            sock, address = self._new.popleft()
            with self._lock:
                full = len(self._arriving) + self._answering >= self.max_connections
            if full and self._arriving:
                self._refuse(next(iter(self._arriving.values())), 408, "the request did not arrive in time")
            elif full:  # every connection is being answered: nothing slow to evict
                self._send(sock, 503, "too many connections; try again")
                sock.close()
                continue
            sock.setblocking(False)
            conn = _Arriving(sock, address, time.monotonic() + self.request_timeout)
            self._arriving[sock] = conn
            self._selector.register(sock, selectors.EVENT_READ, conn)
            self._receive(conn)  # a request that came whole with its connection goes on now: it is never evicted

    def _expire(self, now: float) -> None:
        for conn in [c for c in self._arriving.values() if c.deadline <= now]:
            if conn.dropping:
                self._close(conn)  # the 413 went out when the headers came
            else:
                self._refuse(conn, 408, "the request did not arrive in time")

    def _receive(self, conn: _Arriving) -> None:
        try:
            chunk = conn.sock.recv(READ_CHUNK)
        except BlockingIOError:
            return
        except OSError:  # reset by the client
            self._close(conn)
            return
        if conn.dropping:
            conn.dropping -= len(chunk)
            if not chunk or conn.dropping <= 0:
                self._close(conn)
            return
        if not chunk:  # the client stopped sending: answer what came (the app refuses a short body)
            if conn.data:
                self._hand_on(conn)
            else:
                self._close(conn)
            return
        conn.data += chunk
        if conn.size is None and not self._read_head(conn):
            return
        if conn.size is not None and len(conn.data) >= conn.size:
            self._hand_on(conn)

    def _read_head(self, conn: _Arriving) -> bool:
        """Size the request once its headers are in; False while they are not, or when it has been refused."""
        end = _END_OF_HEAD.search(conn.data)
        if end is None:
            if len(conn.data) > MAX_HEADER_BYTES:
                self._refuse(conn, 431, f"request headers over {MAX_HEADER_BYTES} bytes are refused")
            return False
        declared = content_length(bytes(conn.data[:end.start()]))
        if declared is not None and declared > self.max_body:
            log.info("refused a request: 413 bodies over %s bytes are refused", self.max_body)
            self._send(conn.sock, 413, f"bodies over {self.max_body} bytes are refused")
            conn.dropping = declared - (len(conn.data) - end.end())
            conn.data = bytearray()
            conn.deadline = time.monotonic() + DRAIN_S
            if conn.dropping <= 0:
                self._close(conn)
            return False
        conn.size = end.end() + (declared or 0)
        return True

    def _hand_on(self, conn: _Arriving) -> None:
        self._forget(conn)
        with self._lock:
            self._answering += 1
        try:
            self.hand_on(Arrived(conn.sock, conn.address, bytes(conn.data)))
        except Exception:  # noqa: BLE001 - the pool is shut down: the server is closing
            self.finished()
            conn.sock.close()

    def _refuse(self, conn: _Arriving, status: int, why: str) -> None:
        log.debug("%s: %s %s", conn.address, status, why)
        self._send(conn.sock, status, why)
        self._close(conn)

    @staticmethod
    def _send(sock: socket.socket, status: int, why: str) -> None:
        try:
            sock.send(canned(status, why))  # a few hundred bytes: the socket's buffer takes them whole
        except OSError:
            pass

    def _close(self, conn: _Arriving) -> None:
        self._forget(conn)
        try:
            conn.sock.recv(READ_CHUNK)  # unread bytes would turn the close into a reset, losing the reply
        except OSError:
            pass
        conn.sock.close()

    def _forget(self, conn: _Arriving) -> None:
        del self._arriving[conn.sock]
        self._selector.unregister(conn.sock)
