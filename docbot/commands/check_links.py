"""`docbot check-links`: check and repair URLs (one per line on stdin) against the anchor maps."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from crawlers.model import AnchorMap, map_path
from docbot.answer import LinkOutcome
from docbot.commands.args import site_name
from docbot.config import Settings
from docbot.errors import DocbotError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "check-links",
        help="check and repair documentation URLs read from stdin",
        description="Read URLs one per line on stdin; print what the ReferenceValidator does to each, in order.",
    )
    parser.add_argument("--site", type=site_name, help="only this site's anchor map (needed for relative URLs)")
    parser.add_argument("--json", action="store_true", help="one JSON object per line: input, output, action, reason")
    parser.add_argument("--live", action="store_true", help="also fetch each output page: the fragment is in the live HTML and a text directive still lands in its section")
    parser.set_defaults(func=run)


def load_maps(settings: Settings, site: str | None) -> dict[str, AnchorMap]:
    """The anchor maps to check against; a missing map names the command that makes it."""
    if site:
        return {site: AnchorMap.load(map_path(settings.anchor_maps, site))}
    names = settings.site_names()
    maps = {n: AnchorMap.load(map_path(settings.anchor_maps, n)) for n in names}
    if not maps:
        raise DocbotError(
            f"No anchor maps in {settings.anchor_maps} — run `docbot crawl URL --site NAME` first"
        )
    return maps


def live_checks(urls: list[str]) -> dict[str, tuple[bool, str]]:
    """URL -> (it lands: the page answers 200, the fragment is in its live HTML and a text directive still lands in
    its section by docbot's own rule; why not, or "ok")."""
    from docbot.report.live import check_links_sync

    out = {}
    for url, check in check_links_sync(urls).items():
        if check.landed:
            out[url] = (True, "ok")
        else:
            out[url] = (False, check.reason if not check.ok else f"text directive stale: {check.own_directive}")
    return out


def render_table(rows: list[dict[str, Any]], out: TextIO) -> None:
    for row in rows:
        live = "" if "live" not in row else ("  live: ok" if row["live"] else f"  live: FAILED ({row['live_reason']})")
        out.write(f"{row['action']:<17} {row['input']}\n")
        if row["output"] != row["input"]:
            out.write(f"{'':<17} → {row['output'] or '(removed)'}\n")
        out.write(f"{'':<17}   {row['reason']}{live}\n")


def run(args: argparse.Namespace, settings: Settings, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    from docbot.reading import latest_page_texts
    from docbot.references.validator import ReferenceValidator

    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    validator = ReferenceValidator(load_maps(settings, args.site), allow_hosts=settings.allow_hosts,
                                   page_texts=latest_page_texts(settings))
    outcomes: list[LinkOutcome] = [validator.check_url(line.strip(), args.site) for line in stdin if line.strip()]
    rows = [o.to_json() for o in outcomes]
    if args.live:
        checked = live_checks([o.output for o in outcomes if o.output])
        for row in rows:
            row["live"], row["live_reason"] = checked.get(row["output"], (False, "removed")) if row["output"] else (
                False, "removed")
    if args.json:
        for row in rows:
            stdout.write(json.dumps(row, ensure_ascii=False) + "\n")
    else:
        render_table(rows, stdout)
    return 0

