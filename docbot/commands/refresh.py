"""`docbot refresh`: recrawl sites incrementally, re-index changes, re-check logged links, write a change report."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys

from docbot.commands.args import positive_int, site_name
from docbot.config import KEEP_REPORTS, Settings
from docbot.disk import disk_usage
from docbot.refresh import refresh, render_markdown, write_report


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser(
        "refresh",
        help="recrawl sites, update anchor maps and the index, re-check logged links",
        description="Incrementally recrawl every configured site (or --site), update anchor_maps/, re-index the "
        "changed sections, re-validate every logged link, and write a change report to <data-dir>/reports/.",
    )
    p.add_argument("--site", action="append", default=[], type=site_name, help="refresh only this site (repeatable)")
    p.add_argument("--force", action="store_true", help="refetch every page (no conditional requests); the loss guard still applies")
    p.add_argument("--no-index", action="store_true", help="update anchor maps only; leave the index alone")
    p.add_argument("--keep-reports", type=positive_int, metavar="N",
                   help="keep the reports of the newest N refreshes, delete older ones (default: docbot.toml's "
                   f"keep_reports, else {KEEP_REPORTS})")
    p.add_argument("--json", action="store_true", help="print the JSON report instead of Markdown")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, settings: Settings) -> int:
    progress = (lambda site: print(f"refreshing {site}…", file=sys.stderr)) if sys.stderr.isatty() else None
    report = refresh(settings, args.site, force=args.force, reindex=not args.no_index, progress=progress)
    md_path, json_path = write_report(report, settings.data_dir, args.keep_reports or settings.keep_reports)
    disk = disk_usage(settings.data_dir)  # what stays on disk, this report included
    report = dataclasses.replace(report, disk=disk)
    print(json.dumps(report.to_json(), indent=1, ensure_ascii=False) if args.json else render_markdown(report), end="\n" if args.json else "")
    print(f"docbot refresh: change report written to {md_path} and {json_path}", file=sys.stderr)
    print(f"docbot refresh: on disk: {disk.describe()}", file=sys.stderr)
    for s in report.sites:
        if not s.ok:
            print(f"docbot refresh: {s.site}: {s.error}", file=sys.stderr)
    return 0 if report.ok else 1
