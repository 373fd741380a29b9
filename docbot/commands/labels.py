"""`docbot labels list|export|remove`: the labels in the reference log, and forgetting the users who gave them."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TextIO

from docbot.commands.args import site_name
from docbot.config import Settings
from docbot.errors import UsageError
from docbot.labels import StoredLabel, label_row

if TYPE_CHECKING:
    from docbot.reference_log import ReferenceLog

QUESTION_WIDTH = 48  # characters of a question shown in the table


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "labels",
        help="list, export or remove the labels in the reference log",
        description="The labels users and curators gave (question → section, or not covered), read from the "
        "reference log. `remove --user U` forgets those users entirely: their labels, their votes, and their "
        "questions in the answers they asked (docs/privacy.md).",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name, text in (("list", "print the labels as a table (--json: a JSON array)"),
                       ("export", "write the labels to stdout as JSON Lines, one label a line"),
                       ("remove", "delete the labels selected, or forget the users named")):
        action = actions.add_parser(name, help=text, description=text[0].upper() + text[1:] + ".")
        action.add_argument("--site", type=site_name, help="only this site's labels")
        action.add_argument("--user", action="extend", nargs="+", default=None, metavar="U",
                            help="only these users' labels (Slack user ids, or cli:<name> for a curator)"
                            + ("; remove forgets them on every site" if name == "remove" else ""))
        if name == "remove":
            action.add_argument("--id", action="extend", nargs="+", type=int, default=None, metavar="N",
                                help="the labels with these ids (as `labels list` shows them)")
            action.add_argument("--all", action="store_true", help="every label (needed when nothing else selects)")
        if name != "export":
            action.add_argument("--json", action="store_true", help="print JSON instead of text")
        action.set_defaults(func=run)


def run(args: argparse.Namespace, settings: Settings, stdout: TextIO | None = None) -> int:
    from docbot.reference_log import existing_log

    out = stdout or sys.stdout
    if args.action == "remove":
        _check_removal(args)
    log = existing_log(settings)
    if log is None:  # SQLite and nothing was ever logged: no labels, and none to remove
        return _show(args, [], out) if args.action != "remove" else _removed(args, None, out)
    with log:
        if args.action == "remove":
            return _removed(args, log, out)
        return _show(args, log.labels(site=args.site, users=args.user), out)


def _check_removal(args: argparse.Namespace) -> None:
    if args.user and (args.site or args.id):
        raise UsageError("--user forgets those users on every site (their labels, votes and questions): "
                         "drop --site and --id, or remove by --site/--id without --user")
    if not (args.user or args.site or args.id or args.all):
        raise UsageError("name the labels to remove: --site NAME, --id N …, --user U … (forgets those users), "
                         "or --all")


def _removed(args: argparse.Namespace, log: ReferenceLog | None, out: TextIO) -> int:
    """Delete what the arguments select; print what was deleted."""
    if args.user:
        from docbot.reference_log import ForgetReport

        report = log.forget_users(args.user) if log is not None else ForgetReport(tuple(sorted(set(args.user))), 0, 0, 0)
        if args.json:
            out.write(json.dumps(report.to_json()) + "\n")
        else:
            out.write(f"forgot {', '.join(report.users)}: {report.labels} label(s) and {report.votes} vote(s) "
                      f"deleted; {report.answers} answer(s) they asked kept without their question, text, user, "
                      "channel and thread\n")
        return 0
    removed = log.remove_labels(site=args.site, ids=args.id) if log is not None else 0
    out.write(json.dumps({"labels": removed}) + "\n" if args.json else f"removed {removed} label(s)\n")
    return 0


def _show(args: argparse.Namespace, found: list[StoredLabel], out: TextIO) -> int:
    if args.action == "export":
        for stored in found:
            out.write(json.dumps(label_row(stored.label), ensure_ascii=False) + "\n")
    elif args.json:
        out.write(json.dumps([_listed(s) for s in found], ensure_ascii=False, indent=1) + "\n")
    else:
        _table(found, out)
    return 0


def _listed(stored: StoredLabel) -> dict[str, Any]:
    """A label as ``list --json`` shows it: its id, its export row, and where it was given."""
    label = stored.label
    return {"id": stored.id, **label_row(label), "channel": label.channel, "answer_id": label.answer_id,
            "curator": label.curator}


def _table(found: list[StoredLabel], out: TextIO) -> None:
    if not found:
        print("docbot labels: no labels", file=sys.stderr)
        return
    out.write(f"{'id':>6}  {'given':<16}  {'site':<12} {'source':<14} {'±':<2} {'user':<12} "
              f"{'question':<{QUESTION_WIDTH}}  section\n")
    for stored in found:
        label = stored.label
        question = " ".join(label.question.split())
        if len(question) > QUESTION_WIDTH:
            question = question[:QUESTION_WIDTH - 1] + "…"
        when = datetime.fromtimestamp(label.created_at, UTC).strftime("%Y-%m-%d %H:%M")
        out.write(f"{stored.id:>6}  {when:<16}  {label.site:<12} {label.source:<14} "
                  f"{'+' if label.polarity > 0 else '-':<2} {label.user_id or '':<12} {question:<{QUESTION_WIDTH}}  "
                  f"{label.url or '(not covered)'}\n")
