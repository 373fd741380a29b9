#!/usr/bin/env python3
"""Crawl benchmark: the Python 3.11 docs served on 127.0.0.1, a full crawl then an unchanged recrawl.

The site is served by a threaded HTTP/1.1 server in a subprocess (so it does not
share the crawler's GIL); each crawl phase runs in its own subprocess so its
peak RSS is its own. Prints pages, anchors, seconds, pages/s and peak RSS per
phase (``--json`` for one JSON object). Targets on a 2-core machine: full crawl
≥ 150 pages/s; unchanged recrawl ≥ 5× faster than the full crawl.

``--render auto|always|never`` crawls with that render setting (default auto, as docbot does); a crawl that renders
also reports the browser's peak memory (the PSS of every process under the phase's, Chromium's renderers included,
sampled every 0.1 s). ``--site build/sites/redoc --start index.html`` is the Redoc site.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SITE = Path("/usr/share/doc/python3.11-doc/html")
SERVER = """
import functools, http.server, sys
class H(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args): pass
class S0(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address): pass  # clients closing keep-alive connections
class S(S0):
    request_queue_size = 256
    daemon_threads = True
s = S(("127.0.0.1", 0), functools.partial(H, directory=sys.argv[1]))
print(s.server_address[1], flush=True)
s.serve_forever()
"""


def descendants_pss_mb(pid: int) -> float:
    """The proportional set size (shared pages split between their users, so Chromium's processes add up) of every
    process below ``pid``: chromedriver, Chromium and its renderers, in MB."""
    below: set[int] = set()
    todo = [pid]
    while todo:  # down the process tree by each thread's children (cheap: no scan of every process)
        parent = todo.pop()
        try:
            tasks = list(Path(f"/proc/{parent}/task").iterdir())
        except OSError:
            continue
        for task in tasks:
            try:
                children = [int(c) for c in (task / "children").read_text().split()]
            except (OSError, ValueError):
                continue
            for child in children:
                if child not in below:
                    below.add(child)
                    todo.append(child)
    total_kb = 0
    for p in below:
        try:
            total_kb += sum(int(line.split()[1]) for line in Path(f"/proc/{p}/smaps_rollup").read_text().splitlines()
                            if line.startswith("Pss:"))
        except (OSError, ValueError, IndexError):
            continue
    return total_kb / 1024


def phase(base: str, out: Path, concurrency: int, render: str) -> dict[str, object]:
    """One crawl against whatever map is already in ``out`` (run in a child process)."""
    sys.path.insert(0, str(ROOT))
    from crawlers.crawl import CrawlConfig
    from docbot.config import Settings
    from docbot.updating import update_site

    settings = Settings(data_dir=out / "data", anchor_maps=out / "maps")
    peak = [0.0]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.1):
            peak[0] = max(peak[0], descendants_pss_mb(os.getpid()))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started = time.perf_counter()  # as `docbot crawl` runs it: into the site's next generation
    config = CrawlConfig(site="python", start_url=base, concurrency=concurrency, render=render)  # type: ignore[arg-type]
    result, _ = update_site(settings, config)
    seconds = time.perf_counter() - started
    done.set()
    sampler.join()
    pages = len(result.map.pages)
    own, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "pages": pages,
        "anchors": result.map.anchor_count(),
        "sections": result.map.section_count(),
        "seconds": round(seconds, 3),
        "pages_per_s": round(pages / seconds, 1),
        "parsed": result.stats.fetched,
        "not_modified": result.stats.not_modified,
        "errors": result.report.errors,
        "peak_rss_mb": round(own.ru_maxrss / 1024, 1),
        "children_peak_pss_mb": round(peak[0], 1),  # the browser's, when pages were rendered (parse workers too)
        # CPU seconds of the crawler and its parse workers (the phase process also imports and starts up):
        # on a noisy host a steadier figure than the wall clock, and the budget that pages/s is bound by.
        "cpu_s": round(own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime, 2),
    }


def run_phase(base: str, out: Path, concurrency: int, render: str) -> dict[str, object]:
    cmd = [sys.executable, __file__, "--phase", "--base", base, "--out", str(out), "--concurrency", str(concurrency),
           "--render", render]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"bench_crawl: crawl phase failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=DEFAULT_SITE, help="HTML root to serve")
    parser.add_argument("--start", default="", help="the start page under the site's root (default: the root)")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--render", choices=("auto", "always", "never"), default="auto")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--phase", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--base", help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase:
        print(json.dumps(phase(args.base, args.out, args.concurrency, args.render)))
        return 0
    if not args.site.is_dir():
        raise SystemExit(f"bench_crawl: {args.site} is missing — install python3.11-doc (scripts/install.sh)")
    server = subprocess.Popen([sys.executable, "-c", SERVER, str(args.site)], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        base = f"http://127.0.0.1:{server.stdout.readline().strip()}/{args.start}"
        with tempfile.TemporaryDirectory() as tmp:
            full = run_phase(base, Path(tmp), args.concurrency, args.render)
            recrawl = run_phase(base, Path(tmp), args.concurrency, args.render)
    finally:
        server.terminate()
        server.wait(timeout=10)
    speedup = round(float(full["seconds"]) / max(float(recrawl["seconds"]), 1e-9), 1)  # type: ignore[arg-type]
    report = {"site": str(args.site), "render": args.render, "full": full, "recrawl": recrawl,
              "recrawl_speedup": speedup}
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print(f"site: {args.site} (render = {args.render})")
    for name in ("full", "recrawl"):
        r = report[name]
        print(f"{name:8} {r['pages']} pages, {r['anchors']} anchors, {r['seconds']} s, "  # type: ignore[index]
              f"{r['pages_per_s']} pages/s, {r['cpu_s']} CPU-s, peak RSS {r['peak_rss_mb']} MB "  # type: ignore[index]
              f"(processes under it: peak PSS {r['children_peak_pss_mb']} MB), "  # type: ignore[index]
              f"errors {r['errors']}")  # type: ignore[index]
    print(f"recrawl speed-up: {speedup}x (targets: full >= 150 pages/s, recrawl >= 5x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
