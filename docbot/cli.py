"""The `docbot` command: global options, then one module per subcommand.

Each subcommand lives in ``docbot/commands/<name>.py`` and exposes
``register(subparsers)`` (adds its parser, sets ``func``) and a
``run(args, settings) -> int``. Usage errors (an invalid docbot.toml among them) exit 2; other failures print
one line that says what to do next and exit 1 (never a traceback; ``-vv`` logs it).
SIGTERM unwinds like Ctrl-C, so parse workers are shut down and nothing half-written replaces a file
(:mod:`docbot.process.terminate`).
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence

from crawlers.errors import CrawlerError
from docbot.config import load_settings
from docbot.errors import DocbotError
from docbot.process.terminate import Terminated, catch_sigterm

COMMANDS = ("crawl", "index", "ask", "check_links", "report", "refresh", "slack", "labels")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="docbot",
        description="Answer questions from documentation sites with links that really exist.",
    )
    parser.add_argument("--data-dir", help="data directory (env DOCBOT_DATA_DIR, default ./.docbot)")
    parser.add_argument("--anchor-maps", help="anchor map directory (env DOCBOT_ANCHOR_MAPS, default ./anchor_maps)")
    parser.add_argument("--config", help="path to docbot.toml (env DOCBOT_CONFIG, default ./docbot.toml)")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more log output (-vv for debug)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"docbot.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"docbot.commands.{name}":
                continue  # subcommand not built yet
            raise
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    level = logging.WARNING - 10 * min(args.verbose, 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    restore = catch_sigterm()
    try:
        settings = load_settings(
            data_dir=args.data_dir,
            anchor_maps=args.anchor_maps,
            config_path=args.config,
            chroma_url=getattr(args, "chroma_url", None),
        )
        return int(args.func(args, settings) or 0)
    except (DocbotError, CrawlerError) as exc:
        for line in str(exc).splitlines() or [""]:  # an invalid docbot.toml: one line per problem
            print(f"docbot: {line}", file=sys.stderr)
        return getattr(exc, "exit_code", 1)
    except OSError as exc:  # an unwritable data dir, a full disk, a port in use
        logging.getLogger(__name__).debug("failed", exc_info=True)
        hint = f": {exc.filename} — check that path and its permissions" if exc.filename else ""
        print(f"docbot: {exc.strerror or exc}{hint} (-vv for details)", file=sys.stderr)
        return 1
    except Terminated:
        print("docbot: terminated; nothing was replaced", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print("docbot: interrupted; nothing was replaced", file=sys.stderr)
        return 130
    finally:
        restore()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
