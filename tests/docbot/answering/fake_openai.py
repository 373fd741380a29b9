"""A fake of the OpenAI chat completions API on 127.0.0.1: JSON or server-sent events, and the ways servers fail.

openai ≥ 3 sends requests through httpx2, which respx does not see; a tiny real HTTP server exercises the whole
client stack (retries, status codes, streams) instead.
"""

from __future__ import annotations

import http.server
import json
import threading
import time
from collections.abc import Iterator
from typing import ClassVar

import pytest


class FakeOpenAI(http.server.BaseHTTPRequestHandler):
    replies: ClassVar[list[tuple[int, str]]] = []
    seen: ClassVar[list[dict]] = []
    keys: ClassVar[list[str]] = []  # the Authorization header of each request
    delay = 0.0  # seconds before answering
    drip = 0.0  # seconds between streamed chunks
    die_after = -1  # streamed chunks before the connection is dropped (-1: never)
    closed_at: ClassVar[list[float]] = []  # when a streamed write found the client gone
    finish = "stop"  # the streamed answer's finish reason ("length": cut at max_tokens)
    epoch = 0  # one per test: a request a test gave up on must not take the next test's reply

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        FakeOpenAI.seen.append(body)
        FakeOpenAI.keys.append(self.headers.get("Authorization", ""))
        epoch = FakeOpenAI.epoch
        time.sleep(FakeOpenAI.delay)
        if epoch != FakeOpenAI.epoch:
            return
        status, content = FakeOpenAI.replies.pop(0) if FakeOpenAI.replies else (200, "Set MAX_CONTENT_LENGTH [1].")
        if status == 200 and body.get("stream"):  # docbot streams, to close a call it gives up on
            self.stream(body["model"], content)
            return
        payload = {"id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                   "choices": [{"index": 0, "finish_reason": "stop",
                                "message": {"role": "assistant", "content": content}}],
                   "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
        error = content if status == 400 else "boom"  # a 400's content is the server's own message
        data = json.dumps(payload if status == 200 else {"error": {"message": error}}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def stream(self, model: str, content: str) -> None:
        """``content`` as server-sent events, a few characters a chunk, as OpenAI streams."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        pieces = [content[i:i + 4] for i in range(0, len(content), 4)]
        for i, (piece, finish) in enumerate([*((p, None) for p in pieces), ("", FakeOpenAI.finish)]):
            if i == FakeOpenAI.die_after:
                self.connection.shutdown(2)  # the server process dies: no [DONE], no clean end
                return
            chunk = {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": model,
                     "choices": [{"index": 0, "delta": {"content": piece} if piece else {}, "finish_reason": finish}]}
            try:
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.flush()
            except OSError:
                FakeOpenAI.closed_at.append(time.monotonic())
                return
            time.sleep(FakeOpenAI.drip)
        self.wfile.write(b"data: [DONE]\n\n")


@pytest.fixture()
def fake_openai() -> Iterator[str]:
    """The base URL of a fake OpenAI-compatible server on 127.0.0.1."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FakeOpenAI)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    FakeOpenAI.replies, FakeOpenAI.seen, FakeOpenAI.keys, FakeOpenAI.delay = [], [], [], 0.0
    FakeOpenAI.drip, FakeOpenAI.die_after, FakeOpenAI.closed_at = 0.0, -1, []
    FakeOpenAI.epoch += 1
    FakeOpenAI.finish = "stop"
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()
