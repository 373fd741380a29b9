"""Disk use over refreshes of a changing site: the data dir's files and bytes after each refresh.

    .venv/bin/python scripts/bench_disk.py                      # 30 refreshes of the Flask docs, hash embeddings
    .venv/bin/python scripts/bench_disk.py --keep-reports 2     # reports bounded at two refreshes' worth
    .venv/bin/python scripts/bench_disk.py --embeddings local   # the real model (slower; same vector size)

Serves a copy of the Debian Flask docs on 127.0.0.1, crawls and indexes it, then refreshes it ``--refreshes``
times, editing one page before each refresh so that every refresh embeds and commits a new generation. Prints,
per refresh, the data dir without its reports (generations and the Chroma store), the reports, and Chroma's
segment folders. Target: everything but the reports flat after the second refresh; the reports flat once
``keep_reports`` refreshes have run.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from serve_docs import start

import docbot.indexing.embed
from docbot.cli import main
from docbot.indexing.embed import HashEmbedder

DEFAULT_ROOT = Path("/usr/share/doc/python-flask-doc/html")
EDITED = "quickstart.html"
UUID = re.compile(r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}")


def measure(paths: list[Path]) -> tuple[int, int]:
    """(files, bytes) of every file under ``paths``, as ``find -type f`` lists them."""
    files = [p for root in paths if root.exists() for p in root.rglob("*") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


def run_docbot(work: Path, *args: str) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = main(["--data-dir", str(work / "data"), "--anchor-maps", str(work / "maps"),
                     "--config", str(work / "docbot.toml"), *args])
    if code != 0:
        raise SystemExit(f"docbot {' '.join(args)} exited {code}:\n{out.getvalue()[-2000:]}")


def run(root: Path, refreshes: int, keep_reports: int | None) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-disk-") as tmp:
        work, site = Path(tmp), Path(tmp) / "site"
        shutil.copytree(root, site)
        page = site / EDITED
        original = page.read_text(encoding="utf-8")
        urls, servers = start({"flask": site})
        try:
            url = urls["flask"]
            (work / "docbot.toml").write_text(f'[[sites]]\nname = "flask"\nurl = "{url}"\n', encoding="utf-8")
            run_docbot(work, "crawl", "--site", "flask")
            run_docbot(work, "index", "--site", "flask")
            data, totals = work / "data", []
            print(f"{'refresh':>7} {'files':>6} {'bytes':>11} {'segments':>8} {'report files':>12} {'report bytes':>12}")
            for n in range(1, refreshes + 1):
                page.write_text(original.replace("</h1>", f"</h1><p>Release {n} of these docs.</p>", 1),
                                encoding="utf-8")
                run_docbot(work, "refresh", "--site", "flask",
                           *(("--keep-reports", str(keep_reports)) if keep_reports else ()))
                rest = [p for p in data.iterdir() if p.name != "reports"]
                files, size = measure(rest)
                report_files, report_bytes = measure([data / "reports"])
                segments = sum(1 for p in (data / "chroma").iterdir() if UUID.fullmatch(p.name))
                print(f"{n:>7} {files:>6} {size:>11,} {segments:>8} {report_files:>12} {report_bytes:>12,}", flush=True)
                totals.append(measure([data]))
            if len(totals) > 2:
                (f2, b2), (fn, bn) = totals[1], totals[-1]
                print(f"data dir after refresh 2: {f2} files, {b2:,} bytes; after refresh {len(totals)}: {fn} files, "
                      f"{bn:,} bytes ({fn - f2:+} files, {(bn - b2) / b2:+.1%})")
        finally:
            for server in servers:
                server.shutdown()
                server.server_close()


def cli() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT, help="the docs to serve (HTML files)")
    parser.add_argument("--refreshes", type=int, default=30)
    parser.add_argument("--keep-reports", type=int, help="passed to refresh (default: its own)")
    parser.add_argument("--embeddings", choices=("hash", "local"), default="hash",
                        help="hash: 384-dimension hash vectors (the local model's size, no model run)")
    args = parser.parse_args()
    if args.embeddings == "hash":
        docbot.indexing.embed.embedder_from_spec = lambda spec, settings=None: HashEmbedder(dim=384)  # type: ignore[assignment]
    run(args.root, args.refreshes, args.keep_reports)


if __name__ == "__main__":
    cli()
