"""Benchmark the freshness check a quoted source's link costs at answer time (docbot.freshness.LivePages).

Serves a real docs site on 127.0.0.1 (default: Flask's docs from python-flask-doc), optionally with a delay before
every response (a remote docs host's round trip), crawls it, then asks each page once as an answer would:
- unchanged: a conditional request answered 304 (the common case);
- changed: every page touched after the crawl, so the server answers 200 and the page is read again with the
  crawler's extractor (the worst case);
- cached: the same pages again within the TTL (no request).
An answer quotes at most three sources, asked one after another: its cost is up to three times a page's, once per
page per TTL (5 minutes).

Usage: python scripts/bench_fresh.py [--root DIR] [--delay-ms 100] [--pages 60]
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import http.server
import os
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from crawlers.crawl import CrawlConfig
from docbot.config import Settings
from docbot.freshness import LivePages
from docbot.updating import update_site

ROOT = Path("/usr/share/doc/python-flask-doc/html")


class _Handler(http.server.SimpleHTTPRequestHandler):
    delay_s = 0.0

    def handle_one_request(self) -> None:
        time.sleep(self.delay_s)
        super().handle_one_request()

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def timed(calls: list[Callable[[], object]]) -> list[float]:
    out = []
    for call in calls:
        start = time.perf_counter()
        call()
        out.append((time.perf_counter() - start) * 1000)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=ROOT, help="a docs site's root directory")
    parser.add_argument("--delay-ms", type=float, default=0.0, help="wait before each response (a remote host)")
    parser.add_argument("--pages", type=int, default=60, help="pages asked")
    args = parser.parse_args()
    if not args.root.is_dir():
        raise SystemExit(f"{args.root} is missing — run scripts/install.sh (it installs the Debian docs packages)")
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        os.symlink(args.root.resolve(), site)
        handler = type("Handler", (_Handler,), {"delay_s": 0.0})
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(site)))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{server.server_address[1]}/"
        result, crawled = update_site(Settings(data_dir=Path(tmp) / "data", anchor_maps=Path(tmp) / "maps"),
                                      CrawlConfig(site="docs", start_url=base + "index.html", sitemaps=False,
                                                  max_pages=args.pages))
        amap, texts = result.map, {p.url: p for p in crawled.load_pages()}
        entries = [amap.pages[url] for url in sorted(texts) if url in amap.pages][: args.pages]
        handler.delay_s = args.delay_ms / 1000
        live = LivePages()
        unchanged = timed([functools.partial(live.check, e, texts[e.url]) for e in entries])
        cached = timed([functools.partial(live.check, e, texts[e.url]) for e in entries])
        asked = live.requests
        # every page changed since the crawl: a validator that no longer matches, as after an edit
        changed_live = LivePages()
        stale = [dataclasses.replace(e, etag=None, last_modified=None, content_hash="0" * 64) for e in entries]
        changed = timed([functools.partial(changed_live.check, e, texts[e.url]) for e in stale])
        live.close()
        changed_live.close()
        server.shutdown()
    print(f"{len(entries)} pages of {args.root} served on 127.0.0.1, {args.delay_ms:g} ms before each response")
    for name, values in (("unchanged (304)", unchanged), ("changed (200, read again)", changed),
                         ("cached (within the TTL)", cached)):
        print(f"{name:<28} p50 {statistics.median(values):7.1f} ms  p95 {percentile(values, 0.95):7.1f} ms  "
              f"max {max(values):7.1f} ms")
    print(f"requests for {2 * len(entries)} unchanged checks: {asked}; an answer quoting three new pages pays "
          f"p95 {3 * percentile(unchanged, 0.95):.0f} ms unchanged, {3 * percentile(changed, 0.95):.0f} ms changed")


if __name__ == "__main__":
    main()
