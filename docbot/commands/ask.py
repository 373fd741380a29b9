"""`docbot ask`: answer a question (or a batch) with validated deep links, as text or JSON."""

from __future__ import annotations

import argparse
import io
import itertools
import json
import logging
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, cast

from crawlers.errors import BadSiteName
from crawlers.sitenames import check_site_name
from docbot.answer import Answer, Clarification, Status
from docbot.answering.question import clean_question
from docbot.commands.args import site_name
from docbot.config import Settings
from docbot.errors import SiteNotFound

if TYPE_CHECKING:
    from docbot.pipeline import Pipeline  # the type only: _answer imports it when the command runs

log = logging.getLogger(__name__)
SEPARATOR = "─" * 60


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser(
        "ask",
        help="answer a question from the indexed docs, with links that exist",
        description="Resolve explicit references, retrieve the best sections, then answer (LLM when "
        "OPENAI_API_KEY/OPENAI_BASE_URL or DOCBOT_LLM_MODEL=ollama:MODEL is set, else extractive) citing validated "
        "deep links.",
    )
    p.add_argument("question", nargs="*", help="the question (quote it)")
    p.add_argument("--site", type=site_name, help="answer only from this site")
    p.add_argument("--json", action="store_true", help="print one JSON object (the ask --json contract)")
    p.add_argument("--batch", metavar="FILE",
                   help="answer every question in FILE (one per line, or JSON lines with a 'question' field; '-' = stdin)")
    p.add_argument("-k", type=int, default=None, metavar="N", help="number of sources to answer from (default 5)")
    p.add_argument("--chroma-url", help="use a Chroma server (env CHROMA_URL)")
    p.set_defaults(func=run)


def clarification_lines(clarification: Clarification) -> list[str]:
    """The clarifying question and its numbered options, each with its link."""
    lines = [clarification.question]
    for i, option in enumerate(clarification.options, start=1):
        lines.append(f"  {i}. {option.label}")
        lines.append(f"     {option.url}")
    return lines


def render_text(answer: Answer) -> str:
    """The readable form: status line, answer, then sources grouped by type."""
    lines = []
    if answer.status != Status.ANSWERED:
        lines.append(f"[{answer.status.replace('_', ' ')}]")
    if answer.clarification:
        lines += clarification_lines(answer.clarification)
        lines.append("")
        lines.append("Best guess meanwhile:")
    lines.append(answer.answer)
    by_n = {r.n: r for r in answer.references}
    if answer.groups:
        lines.append("")
        lines.append("Sources")
        for group in answer.groups:
            lines.append(f"  {group.type}")
            for n in group.refs:
                ref = by_n[n]
                lines.append(f"    [{n}] {ref.path_label}")
                lines.append(f"        {ref.url}")
    if answer.status != Status.ERROR:
        lines.append("")
        lines.append(f"({answer.generator} answer, {answer.resolution} resolution, "
                     f"confidence {answer.confidence:.2f}, {answer.timings_ms.get('total', 0):.0f} ms)")
        if answer.fallback:
            lines.append(f"(LLM not used: {answer.fallback})")
    return "\n".join(lines)


def read_batch(stream: TextIO) -> Iterator[tuple[str, str | None, str | None]]:
    """(question, site or None, why the line cannot be asked or None) per non-blank line: plain text, or a JSON
    object with a string 'question' (and a 'site' name)."""
    for n, line in enumerate(stream, start=1):
        raw = line.rstrip("\n")
        if not raw.strip():
            continue
        if not raw.lstrip().startswith("{"):
            yield raw, None, None
            continue
        try:
            data = json.loads(raw)
        except json.JSONDecodeError:
            yield raw, None, None
            continue
        question, site = data.get("question", ""), data.get("site")
        if not isinstance(question, str):
            yield "", None, f"line {n}: \"question\" must be a string"
        elif site is not None and not isinstance(site, str):
            yield question, None, f"line {n}: \"site\" must be a site name (a string)"
        else:
            try:
                yield question, site if site is None else check_site_name(site), None
            except BadSiteName as exc:
                yield question, None, f"line {n}: {exc}"


def _answer_line(pipeline: Pipeline, question: str, site: str | None, problem: str | None, k: int | None) -> Answer:
    """The answer to one batch line; a line that cannot be asked, or fails, gets an error answer, not the batch's end."""
    if problem is None:
        try:
            return pipeline.ask(question, site=site, k=k)  # bad input is an error answer already
        except Exception as exc:  # one line must not stop the batch
            log.error("could not answer %r: %s", question[:200], exc, exc_info=log.isEnabledFor(logging.DEBUG))
            problem = f"could not answer ({type(exc).__name__}) — run with -vv for details"
    return Answer(question=clean_question(question)[0], status=Status.ERROR, answer=problem, error=problem)


def _emit(answer: Answer, as_json: bool, out: TextIO) -> None:
    text = json.dumps(answer.to_json(), ensure_ascii=False) if as_json else render_text(answer)
    out.write(text.encode("utf-8", "replace").decode("utf-8") + "\n")  # a lone surrogate cannot be written
    out.flush()


def unindexed_note(known: list[str], indexed: list[str]) -> str | None:
    """What a question across all sites does not search: sites configured (or crawled) but not indexed."""
    missing = [site for site in known if site not in indexed]
    if not missing:
        return None
    return (f"not searched, configured but not indexed: {', '.join(missing)} — run `docbot index --site {missing[0]}` "
            f"(after `docbot crawl URL --site {missing[0]}` if it was never crawled)")


def run(args: argparse.Namespace, settings: Settings) -> int:
    if args.k is not None and args.k < 1:
        print("docbot ask: -k must be at least 1", file=sys.stderr)
        return 2
    question = " ".join(args.question)
    if args.batch is None and not question:
        print('docbot ask: give a question, e.g. docbot ask "How do I set a cookie?" (or --batch FILE)', file=sys.stderr)
        return 2
    batch: Iterator[tuple[str, str | None, str | None]] = iter(())
    stream, problem = open_batch(args.batch) if args.batch is not None else (None, None)
    if stream is not None:
        lines = read_batch(stream)
        first = next(lines, None)  # before the model loads
        if first is None:
            _close_batch(stream, args.batch)
            where = "the batch on standard input" if args.batch == "-" else f"batch file {args.batch}"
            problem = (f"{where} has no questions — put one question a line in it (or JSON lines with a 'question' "
                       "field)")
        else:
            batch = itertools.chain([first], lines)
    if problem is not None:
        print(f"docbot ask: {problem}", file=sys.stderr)
        return 2
    try:
        return _answer(args, settings, question, batch)
    finally:
        _close_batch(stream, args.batch)


def _answer(args: argparse.Namespace, settings: Settings, question: str,
            batch: Iterator[tuple[str, str | None, str | None]]) -> int:
    """Answer the question, or every line of the batch (``--batch``)."""
    from docbot.pipeline import Pipeline

    pipeline = Pipeline.from_settings(settings)
    indexed = pipeline.index.sites()
    if args.site is not None and args.site not in indexed:
        raise SiteNotFound(f"Site {args.site!r} is not indexed (indexed: {', '.join(indexed) or 'none'}) — run `docbot "
                           f"crawl URL --site {args.site}` and `docbot index --site {args.site}`, or pick another --site")
    if args.site is None and (note := unindexed_note(settings.site_names(), indexed)):
        print(f"docbot ask: {note}", file=sys.stderr)
    if args.batch is None:
        answer = pipeline.ask(question, site=args.site, k=args.k)
        if answer.status == Status.ERROR and not args.json:
            print(f"docbot: {answer.error or answer.answer}", file=sys.stderr)
            return 1
        _emit(answer, args.json, sys.stdout)
        return 1 if answer.status == Status.ERROR else 0
    for i, (text, site, problem) in enumerate(batch):
        if i and not args.json:
            print(SEPARATOR)
        _emit(_answer_line(pipeline, text, args.site or site, problem, args.k), args.json, sys.stdout)
    return 0


def open_batch(name: str) -> tuple[TextIO | None, str | None]:
    """The batch ``name`` ('-': standard input) open for reading, or None and why it cannot be read."""
    path = Path(name)
    if name != "-" and path.is_dir():
        return None, f"batch file {name} is a directory — pass a file with one question a line"
    if name != "-" and not path.exists():
        return None, f"batch file {name} does not exist"
    # Bytes that are not UTF-8 are read as U+FFFD (stdin too), never a crash halfway through a batch.
    if name == "-":
        return io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace"), None
    try:
        return open(name, encoding="utf-8", errors="replace"), None
    except OSError as exc:
        hint = " — check its permissions" if isinstance(exc, PermissionError) else ""
        return None, f"cannot read batch file {name} ({exc.strerror or exc}){hint}"


def _close_batch(stream: TextIO | None, name: str | None) -> None:
    """Close a batch opened by :func:`open_batch` (standard input itself stays open)."""
    if stream is None:
        return
    if name == "-":
        cast(io.TextIOWrapper, stream).detach()  # sys.stdin's buffer stays open
    else:
        stream.close()
