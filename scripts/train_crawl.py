#!/usr/bin/env python3
"""Crawl the documentation sites a re-ranking model may be trained on into one data dir.

    .venv/bin/python scripts/train_crawl.py --data DATA_DIR [--packages a,b] [--install] [--max-pages 1500]

Reads ../shared/eval/train_sites.txt; takes its unlabelled packages (or the ones named, each of which must be on
the list), finds each installed package's HTML root (the shallowest directory with an index page, else the
largest page), serves it on 127.0.0.1 and runs ``docbot crawl`` on it as a user would. Writes
DATA_DIR/training_sites.json ({site: package}), which ``scripts/train_ranker_model.py`` reads. A package that is
not installed is skipped with the command that installs it (``--install`` runs apt-get for them).
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

from docbot.training.sites import MANIFEST, default_list, read_list

DOCBOT = Path(sys.executable).with_name("docbot")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


def installed(package: str) -> bool:
    return subprocess.run(["dpkg", "-s", package], capture_output=True, check=False).returncode == 0


def html_root(package: str) -> tuple[Path, str] | None:
    """(directory to serve, start page within it) of an installed package's HTML, or None when it has none."""
    listing = subprocess.run(["dpkg", "-L", package], capture_output=True, text=True, check=False).stdout.split("\n")
    pages = [Path(p) for p in listing if re.search(r"\.html?$", p) and Path(p).is_file()]
    if not pages:
        return None
    indexes = sorted((p for p in pages if p.name in ("index.html", "index.htm")), key=lambda p: len(p.parts))
    if indexes:
        return indexes[0].parent, indexes[0].name
    largest = max(pages, key=lambda p: p.stat().st_size)
    return largest.parent, largest.name


def site_name(package: str) -> str:
    name = re.sub(r"-doc$", "", package)
    name = re.sub(r"^(python3?|lib)-?", "", name) or package
    return re.sub(r"[^A-Za-z0-9._-]", "-", name)[:60]


def serve(root: Path) -> tuple[str, http.server.ThreadingHTTPServer]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(root)))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/", server


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--packages", default="", help="comma-separated packages (default: the unlabelled ones)")
    ap.add_argument("--train-sites", type=Path, default=None)
    ap.add_argument("--install", action="store_true", help="apt-get install the packages that are missing")
    ap.add_argument("--max-pages", type=int, default=1500, help="pages crawled per site at most")
    args = ap.parse_args(argv)
    allowed, labelled = read_list(args.train_sites or default_list())
    wanted = [p for p in args.packages.split(",") if p] or sorted(allowed - labelled)
    for package in wanted:
        if package not in allowed:
            raise SystemExit(f"train_crawl: {package} is not on the training list: docbot is measured on sites "
                             "outside it")
    missing = [p for p in wanted if not installed(p)]
    if missing and args.install:
        subprocess.run(["apt-get", "install", "-y", "-qq", *missing], check=False,
                       env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
        missing = [p for p in wanted if not installed(p)]
    if missing:
        print(f"skipped (not installed; `apt-get install {' '.join(missing)}` or --install): {', '.join(missing)}")
    args.data.mkdir(parents=True, exist_ok=True)
    manifest_path = args.data / MANIFEST
    manifest: dict[str, str] = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    env = {**os.environ, "DOCBOT_DATA_DIR": str(args.data), "DOCBOT_ANCHOR_MAPS": str(args.data / "anchor_maps")}
    for n, package in enumerate(p for p in wanted if p not in missing):
        found = html_root(package)
        if found is None:
            print(f"[{n + 1}] {package}: no HTML pages, skipped")
            continue
        root, start = found
        site = site_name(package)
        url, server = serve(root)
        started = time.monotonic()
        done = subprocess.run([str(DOCBOT), "crawl", url + start, "--site", site, "--max-pages", str(args.max_pages),
                               "--json"], env=env, capture_output=True, text=True, check=False)
        server.shutdown()
        if done.returncode != 0:
            print(f"[{n + 1}] {package}: crawl failed: {done.stderr.strip()[-300:]}")
            continue
        stats = json.loads(done.stdout).get("stats", {})
        manifest[site] = package
        manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
        print(f"[{n + 1}] {package} → {site}: {stats.get('fetched', '?')} pages in {time.monotonic() - started:.0f} s",
              flush=True)
    print(f"wrote {manifest_path} ({len(manifest)} sites)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
