#!/usr/bin/env python3
"""Scheduler entry point: `docbot refresh` with the same options (for cron, systemd timers, CI).

Usage: refresh_anchor_maps.py [--data-dir D] [--anchor-maps D] [--config F] [--site NAME] [--force] [--json]
Exits non-zero when a site failed; that site's previous anchor map stays in place.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from docbot.cli import main

GLOBAL_OPTIONS = ("--data-dir", "--anchor-maps", "--config")


def split_args(argv: list[str]) -> list[str]:
    """Move global options in front of the `refresh` subcommand."""
    front: list[str] = []
    rest: list[str] = []
    it = iter(argv)
    for arg in it:
        name = arg.split("=", 1)[0]
        if name in GLOBAL_OPTIONS:
            front.append(arg)
            if "=" not in arg:
                front.append(next(it, ""))
        elif arg in ("-v", "-vv"):
            front.append(arg)
        else:
            rest.append(arg)
    return [*front, "refresh", *rest]


if __name__ == "__main__":
    sys.exit(main(split_args(sys.argv[1:])))
