#!/usr/bin/env python3
"""Measure docbot on the JavaScript-rendered sites: serve, crawl (rendering), index, ask our questions, check links.

Each ``tests/fixtures/rendered/<dir>_questions.jsonl`` is asked of the site ``scripts/build_rendered_sites.sh`` built
in ``build/sites/<dir>`` (a third site is a third file), under the site name its questions give. The sites are
served on 127.0.0.1, crawled with ``render = "auto"`` and indexed as a user would (``docbot crawl``, ``docbot index``),
into a throwaway data directory; then ``docbot report`` asks every question (extractive, the shipped gate) and
re-checks every emitted link live, reading each application shell as the browser renders it. Prints the report's
figures per site, and exits 1 when a site's hit@3 is below ``--min-hit3`` or a link is not valid.

Usage: python scripts/measure_rendered.py [--site DIR ...] [--out DIR] [--min-hit3 PCT]
Needs Chromium (scripts/install.sh) and the built sites (scripts/build_rendered_sites.sh).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]

from serve_docs import start  # noqa: E402 - the scripts' own directory, put on the path above

QUESTIONS = ROOT / "tests" / "fixtures" / "rendered"
SITES = ROOT / "build" / "sites"
MIN_HIT3 = 80.0  # issue 33's bar: hit@3 at least 80 % on each rendered site


def question_sets(only: list[str]) -> dict[str, tuple[str, Path]]:
    """site directory → (site name its questions give, questions file), for every set (or those in ``only``)."""
    found = {}
    for path in sorted(QUESTIONS.glob("*_questions.jsonl")):
        directory = path.name.removesuffix("_questions.jsonl")
        if only and directory not in only:
            continue
        first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
        found[directory] = (str(first["site"]), path)
    missing = sorted(set(only) - set(found))
    if missing:
        raise SystemExit(f"measure_rendered: no questions for {', '.join(missing)} in {QUESTIONS}")
    for directory in found:
        if not (SITES / directory / "index.html").is_file():
            raise SystemExit(f"measure_rendered: {SITES / directory} is missing: run scripts/build_rendered_sites.sh")
    return found


def docbot(*args: str) -> None:
    """One docbot command, in this process, as the CLI runs it; stops the measurement when it fails."""
    from docbot.cli import main

    code = main(list(args))
    if code != 0:
        raise SystemExit(f"measure_rendered: `docbot {' '.join(args)}` exited {code}")


def figures(report: dict[str, Any], site: str, questions: list[dict[str, Any]]) -> dict[str, Any]:
    """One site's figures, as counts, from the report's JSON."""
    rows = [q for q in report["questions"] if q["site"] == site]
    answerable = [q for q in questions if q.get("kind") != "out_of_scope"]
    outside = len(questions) - len(answerable)
    rates = report["metrics"]["by_site"][site]
    links = [link for q in rows for link in q["links"]]

    def count(rate: float | None, of: int) -> int:
        return round((rate or 0.0) * of / 100)

    return {
        "answerable": len(answerable), "out_of_scope": outside,
        "hit3": count(rates["hit3"], len(answerable)), "hit1": count(rates["hit1"], len(answerable)),
        "page_hit3": count(rates["page_hit3"], len(answerable)),
        "refused": count(rates["refusal"], outside), "refused_or_flagged": count(rates["flagged"], outside),
        "answerable_refused": count(rates["false_refusal"], len(answerable)),
        "links": len(links), "valid_links": sum(1 for link in links if link["live_ok"]),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--site", action="append", default=[], metavar="DIR",
                        help="only the site built in build/sites/DIR (repeatable; default: every question set)")
    parser.add_argument("--out", help="keep the crawl, the index and the report here (default: a temporary directory)")
    parser.add_argument("--min-hit3", type=float, default=MIN_HIT3, help=f"per site, in %% (default {MIN_HIT3:g})")
    args = parser.parse_args(argv)
    sets = question_sets(args.site)
    work = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="docbot-rendered."))
    os.environ["DOCBOT_DATA_DIR"] = str(work / "data")
    os.environ["DOCBOT_ANCHOR_MAPS"] = str(work / "maps")
    urls, servers = start({directory: SITES / directory for directory in sets})
    started = time.monotonic()
    seconds: dict[str, float] = {}
    try:
        for directory, (site, _) in sets.items():
            t0 = time.monotonic()
            docbot("crawl", urls[directory], "--site", site, "--render", "auto")
            t1 = time.monotonic()
            docbot("index", "--site", site)
            seconds[f"{site} crawl"], seconds[f"{site} index"] = t1 - t0, time.monotonic() - t1
        asked = work / "questions.jsonl"
        asked.write_text("".join(path.read_text(encoding="utf-8") for _, path in sets.values()), encoding="utf-8")
        t0 = time.monotonic()
        from docbot.cli import main as run

        run(["report", "--questions", str(asked), "--out", str(work / "report"), "--no-held-out"])
        seconds["report"] = time.monotonic() - t0
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()
    report = json.loads((work / "report" / "report.json").read_text(encoding="utf-8"))
    failed = []
    print(f"\n{'site':<8} {'hit@3':>8} {'hit@1':>8} {'page@3':>8} {'refused':>8} {'ref|flag':>8} "
          f"{'ans ref':>8} {'links valid':>12}")
    for directory, (site, path) in sets.items():
        questions = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        f = figures(report, site, questions)
        n, o = f["answerable"], f["out_of_scope"]
        print(f"{site:<8} {f['hit3']:>5}/{n:<2} {f['hit1']:>5}/{n:<2} {f['page_hit3']:>5}/{n:<2} "
              f"{f['refused']:>5}/{o:<2} {f['refused_or_flagged']:>5}/{o:<2} {f['answerable_refused']:>5}/{n:<2} "
              f"{f['valid_links']:>8}/{f['links']:<3}  ({directory})")
        if 100 * f["hit3"] < args.min_hit3 * n:
            failed.append(f"{site}: hit@3 {f['hit3']}/{n} is below {args.min_hit3:g} %")
        if f["valid_links"] != f["links"]:
            failed.append(f"{site}: {f['links'] - f['valid_links']} of {f['links']} links not valid")
    print("seconds: " + ", ".join(f"{k} {v:.0f}" for k, v in seconds.items())
          + f"; total {time.monotonic() - started:.0f}")
    print(f"report: {work / 'report' / 'report.md'}")
    for failure in failed:
        print(f"measure_rendered: {failure}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
