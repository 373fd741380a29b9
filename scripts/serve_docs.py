#!/usr/bin/env python3
"""Serve one or more documentation site roots on 127.0.0.1 until interrupted.

Usage: serve_docs.py --site flask=/usr/share/doc/python-flask-doc/html [--site NAME=ROOT ...] [--port-base N]
Prints one JSON line {site: base_url} on stdout once every server listens, then serves (threaded).
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import signal
import sys
import threading
from pathlib import Path
from types import FrameType


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


def parse_sites(pairs: list[str]) -> dict[str, Path]:
    sites: dict[str, Path] = {}
    for pair in pairs:
        name, sep, root = pair.partition("=")
        if not sep or not name or not root:
            raise SystemExit(f"serve_docs: --site expects NAME=ROOT, got {pair!r}")
        path = Path(root)
        if not path.is_dir():
            raise SystemExit(f"serve_docs: {path} is not a directory — install the docs package (scripts/install.sh)")
        sites[name] = path
    return sites


def start(sites: dict[str, Path], port_base: int = 0) -> tuple[dict[str, str], list[http.server.ThreadingHTTPServer]]:
    """Start one threaded server per site; returns ({site: base_url}, servers)."""
    urls: dict[str, str] = {}
    servers = []
    for i, (name, root) in enumerate(sites.items()):
        handler = functools.partial(QuietHandler, directory=str(root))
        server = http.server.ThreadingHTTPServer(("127.0.0.1", port_base + i if port_base else 0), handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True, name=f"serve-{name}").start()
        servers.append(server)
        urls[name] = f"http://127.0.0.1:{server.server_address[1]}/"
    return urls, servers


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", action="append", required=True, metavar="NAME=ROOT", help="site name and root dir")
    parser.add_argument("--port-base", type=int, default=0, help="first port (default: any free port per site)")
    args = parser.parse_args(argv)
    urls, servers = start(parse_sites(args.site), args.port_base)
    stop = threading.Event()

    def _stop(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    print(json.dumps(urls), flush=True)
    stop.wait()
    for server in servers:
        server.shutdown()
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
