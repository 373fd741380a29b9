"""Benchmark the Slack bot under load: N concurrent slash commands, their ack p50/p99 and answer latency.

    .venv/bin/python scripts/bench_slack.py                       # the index in --data-dir / DOCBOT_DATA_DIR / .docbot
    .venv/bin/python scripts/bench_slack.py --self-contained      # crawl + index the Flask docs served on 127.0.0.1
    .venv/bin/python scripts/bench_slack.py --self-contained --local-model --n 50 --json

The real Bolt HTTP server (``build_app`` + ``make_http_server``) listens on
127.0.0.1; a local fake plays Slack's Web API and every ``response_url``.
Each request is signed with a real signing secret and asks a different docs
question. Ack latency is the time to the HTTP 200 carrying the ack body;
answer latency is the time from sending the command to its answer reaching
its response_url. Target (the issue): all N acknowledged within 3 s and all
answered; the exit status is 1 otherwise. Nothing leaves 127.0.0.1, and the
pipeline answers extractively (no LLM) even when one is configured.
``--slow-clients 400`` runs it under issue 30's attack: 400 connections each
dripping a request a byte every 4 s (reconnecting when hung up on), and
reports the server's threads before, while they drip, and at the end.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import math
import os
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx

from docbot.pipeline import Pipeline
from docbot.reference_log import ReferenceLog
from docbot.slack.app import DocbotSlack, SlackSettings, build_app, web_client
from docbot.slack.blocks import SEARCHING
from docbot.slack.fake import BOT_TOKEN, SECRET, Call, FakeSlack, command_body, signed_headers
from docbot.slack.server import make_http_server

ACK_LIMIT_S = 3.0  # Slack shows the user an error when the ack takes longer
FLASK_DOCS = Path("/usr/share/doc/python-flask-doc/html")
FORM = "application/x-www-form-urlencoded"
WARM_UP_QUESTION = "getting started"  # as `docbot slack` does before it listens
DRIP_S = 4.0  # --slow-clients: each sends a byte this often (issue 30's attack)
SLOW_HEAD = b"POST /slack/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10000\r\n\r\n"
QUESTIONS = [
    "How do I limit the size of uploaded files?", "How do I return JSON error responses instead of HTML pages?",
    "What does Flask.route do?", "How do I set a cookie on a response?", "How do sessions work?",
    "How do I register a blueprint?", "How can I configure logging?", "How do I serve static files?",
    "What is the application context?", "How do I test my application with the test client?",
]


# -- the pipeline ------------------------------------------------------------------
@contextmanager
def serve_directory(root: Path) -> Iterator[str]:
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(root)))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def self_contained_pipeline(work: Path, local_model: bool, stack: ExitStack) -> tuple[Pipeline, str]:
    """Crawl the Flask docs served on 127.0.0.1 into ``work`` and index them (hash embedder unless ``local_model``)."""
    from crawlers.crawl import CrawlConfig
    from docbot.config import Settings, load_settings
    from docbot.indexing.embed import Embedder, HashEmbedder, embedder_from_spec
    from docbot.indexing.generations import Generations
    from docbot.indexing.index import Index
    from docbot.references.validator import ReferenceValidator
    from docbot.updating import index_site, update_site

    if not FLASK_DOCS.is_dir():
        raise SystemExit(f"bench_slack: {FLASK_DOCS} is missing — install python-flask-doc (scripts/install.sh)")
    started = time.perf_counter()
    settings = Settings(data_dir=work / "data", anchor_maps=work / "anchor_maps")
    with serve_directory(FLASK_DOCS) as base:  # `docbot crawl`, then `docbot index`
        amap = update_site(settings, CrawlConfig(site="flask", start_url=base))[0].map
    crawled = time.perf_counter()
    embedder: Embedder = embedder_from_spec("local", load_settings()) if local_model else HashEmbedder()
    index = stack.enter_context(Index.open(work / "data", embedder))
    with Generations(settings.data_dir, "flask").writing("index") as writer:
        stats = index_site(settings, index, writer)
    print(f"self-contained: crawled {len(amap.pages)} Flask pages in {crawled - started:.1f} s, indexed "
          f"{stats.chunks} chunks with {embedder.name} in {time.perf_counter() - crawled:.1f} s", file=sys.stderr)
    pipeline = Pipeline(index, {"flask": amap}, ReferenceValidator({"flask": amap}))
    return pipeline, f"self-contained: Flask docs crawled from 127.0.0.1, {stats.chunks} chunks, {embedder.name}"


def existing_pipeline(data_dir: Path, anchor_maps: str | None, stack: ExitStack) -> tuple[Pipeline, str]:
    from docbot.config import load_settings

    pipeline = Pipeline.from_settings(load_settings(data_dir=str(data_dir), anchor_maps=anchor_maps), generator=None)
    pipeline.generator = None  # extractive: an LLM endpoint would measure the LLM and may not be on 127.0.0.1
    stack.callback(pipeline.index.close)  # type: ignore[attr-defined]
    sites = pipeline.index.sites()
    chunks = sum(len(pipeline.index.chunks(s)) for s in sites)
    model = getattr(getattr(pipeline.index, "embedder", None), "name", "?")
    return pipeline, f"index in {data_dir}: {', '.join(sites)} ({chunks} chunks, {model})"


def has_index(data_dir: Path) -> bool:
    return any((data_dir / "index").glob("*.json"))


# -- the load ---------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Sent:
    """One slash command: when it was sent, how long its ack took, and whether the ack was the expected one."""

    name: str
    sent: float
    ack_s: float
    ok: bool
    problem: str = ""


def fire(url: str, slack: FakeSlack, n: int) -> list[Sent]:
    """N signed slash commands released together from N threads."""
    gate = threading.Barrier(n)
    limits = httpx.Limits(max_connections=n, max_keepalive_connections=n)

    def one(client: httpx.Client, i: int) -> Sent:
        name = f"cmd{i:04d}"
        body = command_body(QUESTIONS[i % len(QUESTIONS)], slack.response_url(name), user=f"U{i:05d}",
                            trigger=f"trigger-{i}")
        headers = signed_headers(body, FORM)
        gate.wait()
        sent = time.perf_counter()
        try:
            resp = client.post(url, content=body.encode("utf-8"), headers=headers)
        except httpx.HTTPError as exc:
            return Sent(name, sent, time.perf_counter() - sent, False, f"{type(exc).__name__}: {exc}")
        ack_s = time.perf_counter() - sent
        try:
            ok = resp.status_code == 200 and resp.json().get("text") == SEARCHING
        except ValueError:
            ok = False
        return Sent(name, sent, ack_s, ok, "" if ok else f"HTTP {resp.status_code}: {resp.text[:120]!r}")

    with httpx.Client(limits=limits, timeout=30.0) as client, ThreadPoolExecutor(max_workers=n) as pool:
        return list(pool.map(functools.partial(one, client), range(n)))


class SlowClients:
    """``n`` connections dripping a request a byte every :data:`DRIP_S`, each replaced when the server hangs up."""

    def __init__(self, url: str, n: int) -> None:
        host, port = url.split("//")[1].split("/")[0].split(":")
        self.address = (host, int(port))
        self.socks = [self._connect() for _ in range(n)]
        self.hung_up = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _connect(self) -> socket.socket:
        sock = socket.create_connection(self.address, timeout=5)
        sock.sendall(SLOW_HEAD)
        sock.settimeout(None)  # blocking, so that a recv with MSG_DONTWAIT says at once whether there is a reply
        return sock

    def _run(self) -> None:
        while not self._stop.wait(DRIP_S):
            for i, sock in enumerate(self.socks):
                try:
                    sock.recv(65536, socket.MSG_DONTWAIT)  # a reply (408) or the end: the server hung up
                except BlockingIOError:
                    sock.send(b"x")
                    continue
                except OSError:
                    pass
                sock.close()
                self.hung_up += 1
                self.socks[i] = self._connect()

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        for sock in self.socks:
            sock.close()


def nearest_rank(values: list[float], q: float) -> float:
    """The nearest-rank percentile (with 50 values, p99 is the maximum)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)] if ordered else float("nan")


def kind(body: dict[str, Any]) -> str:
    text = json.dumps(body.get("blocks", []), ensure_ascii=False)
    if "something went wrong" in body.get("text", ""):
        return "failed"
    if ":warning:" in text:
        return "error"
    return "answered" if "*Sources*" in text else "not_covered"


def is_answer(call: Call) -> bool:
    return call.path.startswith("/response/")


def first_answers(slack: FakeSlack) -> dict[str, Call]:
    """The first post to each response_url, by command name."""
    found: dict[str, Call] = {}
    for call in slack.matching(is_answer):
        found.setdefault(call.method, call)
    return found


def figures(sent: list[Sent], slack: FakeSlack, wall_s: float, pipeline: str, warm_s: float | None) -> dict[str, Any]:
    acks = [s.ack_s for s in sent if s.ok]  # a request that never got its ack counts in acks_within_3s, not here
    arrived = first_answers(slack)
    answers = {s.name: arrived[s.name].arrived - s.sent for s in sent if s.name in arrived}
    kinds: dict[str, int] = {}
    for body in (call.body for call in arrived.values()):
        kinds[kind(body)] = kinds.get(kind(body), 0) + 1
    late = [s for s in sent if not s.ok or s.ack_s >= ACK_LIMIT_S]
    lat = list(answers.values())
    return {
        "n": len(sent),
        "acked_ok": sum(1 for s in sent if s.ok),
        "connection_errors": sum(1 for s in sent if s.problem and not s.problem.startswith("HTTP")),
        "acks_within_3s": sum(1 for s in sent if s.ok and s.ack_s < ACK_LIMIT_S),
        "ack_p50_ms": round(nearest_rank(acks, 0.50) * 1000, 1) if acks else None,
        "ack_p95_ms": round(nearest_rank(acks, 0.95) * 1000, 1) if acks else None,
        "ack_p99_ms": round(nearest_rank(acks, 0.99) * 1000, 1) if acks else None,
        "ack_max_ms": round(max(acks) * 1000, 1) if acks else None,
        "answers_received": len(answers),
        "answer_kinds": dict(sorted(kinds.items())),
        "answer_p50_s": round(nearest_rank(lat, 0.50), 3) if lat else None,
        "answer_p99_s": round(nearest_rank(lat, 0.99), 3) if lat else None,
        "answer_max_s": round(max(lat), 3) if lat else None,
        "wall_s": round(wall_s, 2),
        "warm_up_s": round(warm_s, 2) if warm_s is not None else None,
        "pipeline": pipeline,
        "ack_problems": [f"{s.name}: {s.problem or f'{s.ack_s:.2f} s'}" for s in late][:10],
        "missing_answers": sorted(s.name for s in sent if s.name not in answers)[:10],
        "passed": not late and len(answers) == len(sent),
    }


def report(fig: dict[str, Any]) -> None:
    print(f"pipeline: {fig['pipeline']}" + (f" (warm-up ask {fig['warm_up_s']:.2f} s)" if fig["warm_up_s"] else ""))
    print(f"slash commands: {fig['n']} concurrent; acknowledged within 3 s: {fig['acks_within_3s']}/{fig['n']}")
    if fig["connection_errors"]:
        print(f"connection errors: {fig['connection_errors']} (refused or reset before the server read the request)")
    if fig["ack_p50_ms"] is not None:
        over = "" if fig["acked_ok"] == fig["n"] else f" (of the {fig['acked_ok']} acknowledged)"
        print(f"ack latency{over}: p50 {fig['ack_p50_ms']:.1f} ms, p95 {fig['ack_p95_ms']:.1f} ms, "
              f"p99 {fig['ack_p99_ms']:.1f} ms, max {fig['ack_max_ms']:.1f} ms")
    kinds = ", ".join(f"{k} {v}" for k, v in fig["answer_kinds"].items())
    print(f"answers received: {fig['answers_received']}/{fig['n']} ({kinds or 'none'})")
    if fig["answer_p50_s"] is not None:
        print(f"answer latency: p50 {fig['answer_p50_s']:.2f} s, p99 {fig['answer_p99_s']:.2f} s, "
              f"max {fig['answer_max_s']:.2f} s")
    print(f"wall time: {fig['wall_s']:.2f} s")
    if "slow_clients" in fig:
        before, dripping, end = fig["threads"]
        print(f"slow clients: {fig['slow_clients']} dripping a byte every {DRIP_S:.0f} s ({fig['slow_hung_up']} hung up "
              f"on and replaced); threads {before} before, {dripping} while they drip, {end} at the end")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=50, help="concurrent slash commands (default 50)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds to wait for every answer (default 300)")
    parser.add_argument("--data-dir", type=Path, help="an existing docbot index (default: DOCBOT_DATA_DIR, docbot.toml, .docbot)")
    parser.add_argument("--anchor-maps", help="its anchor maps (default: DOCBOT_ANCHOR_MAPS, docbot.toml, anchor_maps)")
    parser.add_argument("--self-contained", action="store_true",
                        help=f"crawl and index {FLASK_DOCS} served on 127.0.0.1 (also the fallback when there is no index)")
    parser.add_argument("--local-model", action="store_true", help="self-contained with all-MiniLM-L6-v2, not the hash embedder")
    parser.add_argument("--cold", action="store_true", help="skip the warm-up question `docbot slack` asks before listening")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--slow-clients", type=int, default=0, metavar="N",
                        help=f"N connections dripping a request a byte every {DRIP_S:.0f} s throughout (default 0)")
    args = parser.parse_args()
    if not 1 <= args.n <= 1000:
        parser.error("--n must be between 1 and 1000")

    from docbot.config import load_settings

    data_dir = Path(args.data_dir) if args.data_dir else load_settings(anchor_maps=args.anchor_maps).data_dir
    with ExitStack() as stack:
        work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench_slack_")))
        if args.self_contained or not has_index(data_dir):
            if not args.self_contained:
                print(f"bench_slack: no index in {data_dir}/ — falling back to --self-contained", file=sys.stderr)
            pipeline, described = self_contained_pipeline(work, args.local_model, stack)
        else:
            pipeline, described = existing_pipeline(data_dir, args.anchor_maps, stack)
        warm_s = None
        if not args.cold:
            t0 = time.perf_counter()
            pipeline.ask(WARM_UP_QUESTION)
            warm_s = time.perf_counter() - t0

        slack = FakeSlack()
        stack.callback(slack.close)
        bot = DocbotSlack(pipeline, ReferenceLog(work / "docbot.sqlite"), SlackSettings())  # never the real log
        stack.callback(bot.shutdown, wait=True)
        server = make_http_server(build_app(bot, web_client(BOT_TOKEN, slack.api_url), SECRET), "127.0.0.1", 0,
                                  signing_secret=SECRET)
        stack.callback(server.server_close)
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        stack.callback(server.shutdown)  # runs before server_close, bot.shutdown and slack.close (LIFO)

        url = f"http://127.0.0.1:{server.server_port}/slack/events"
        threads = [threading.active_count()]
        if args.slow_clients:
            slow = SlowClients(url, args.slow_clients)
            stack.callback(slow.close)
            time.sleep(1.0)  # the server takes them all in
            threads.append(threading.active_count() - 1)  # not the drip thread
        started = time.perf_counter()
        sent = fire(url, slack, args.n)
        try:
            slack.wait_for(is_answer, count=sum(1 for s in sent if s.ok), timeout=args.timeout)
        except AssertionError:
            pass  # the figures count what arrived; missing answers fail the run below
        fig = figures(sent, slack, time.perf_counter() - started, described, warm_s)
        if args.slow_clients:
            time.sleep(max(0.0, 2 * DRIP_S - (time.perf_counter() - started)))  # two drips at least
            threads.append(threading.active_count() - 1)
            fig.update(slow_clients=args.slow_clients, slow_hung_up=slow.hung_up, threads=threads)

    if args.json:
        print(json.dumps(fig))
    else:
        report(fig)
    if not fig["passed"]:
        slow = fig["n"] - fig["acks_within_3s"]
        missing = fig["n"] - fig["answers_received"]
        print(f"FAIL: {slow} of {fig['n']} slash commands not acknowledged within {ACK_LIMIT_S:.0f} s "
              f"({fig['n'] - fig['acked_ok']} never acknowledged); {missing} answers missing "
              f"(waited up to {args.timeout:.0f} s for those acknowledged)", file=sys.stderr)
        for line in fig["ack_problems"] + [f"no answer: {m}" for m in fig["missing_answers"]]:
            print(f"  {line}", file=sys.stderr)
        return 1
    print(f"PASS: all {fig['n']} acknowledged within {ACK_LIMIT_S:.0f} s and answered", file=sys.stderr)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    sys.exit(main())
