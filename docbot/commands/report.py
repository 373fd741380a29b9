"""`docbot report`: reference accuracy over an eval set, links re-checked live, exit 1 below thresholds."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from crawlers.model import load_maps
from docbot.config import Settings
from docbot.errors import ConfigError
from docbot.report.llm_figures import llm_figures, render_llm
from docbot.report.metrics import Thresholds
from docbot.report.render import ReportData, render_html, render_json, render_markdown
from docbot.report.run import build_report, load_cases, load_questions


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser(
        "report",
        help="measure reference accuracy on an eval set (links re-checked live)",
        description="Ask every eval question, re-check every emitted link against the served HTML, "
        "replay link-repair cases, and write report.md, report.json and report.html.",
    )
    p.add_argument("--questions", required=True, help="eval questions (JSON Lines)")
    p.add_argument("--cases", help="link-repair cases (JSON Lines)")
    p.add_argument("--out", default="report", help="output directory (default ./report)")
    p.add_argument(
        "--base-url", action="append", default=[], metavar="SITE=URL",
        help="served base URL of an eval site (default: the anchor map's base_url); repeatable",
    )
    p.add_argument("--min-link-validity", type=float, default=100.0, help="minimum %% of live-valid links (default 100)")
    p.add_argument("--min-hit3", type=float, help="minimum gold-section hit@3 %%")
    p.add_argument("--min-hit1", type=float, help="minimum gold-section hit@1 %%")
    p.add_argument("--min-refusal", type=float, help="minimum %% of out-of-scope questions refused")
    p.add_argument("--max-false-refusal", type=float, help="maximum %% of in-scope questions refused")
    p.add_argument("--min-flagged", type=float, help="minimum %% of out-of-scope questions refused or flagged")
    p.add_argument("--max-false-flag", type=float, help="maximum %% of in-scope questions flagged")
    p.add_argument("--min-repair", type=float, help="minimum link-repair accuracy %%")
    p.add_argument("--min-facts", type=float,
                   help="minimum %% of the questions' answer_facts the answers cover (a crude word-overlap rule)")
    p.add_argument("--min-directives", type=float,
                   help="minimum %% of the sources an answer quotes whose link carries a text directive (#id:~:text=…)")
    p.add_argument("--min-directive-validity", type=float,
                   help="minimum %% of text directives valid by docbot's check and by the independent one")
    p.add_argument("--max-ece", type=float,
                   help="maximum expected calibration error of confidence, 0-1 (held out when measured)")
    p.add_argument(
        "--all-sites", action="store_true",
        help="ask every question across all indexed sites instead of its own, as the Slack bot does with no site set",
    )
    p.add_argument(
        "--no-held-out", action="store_true",
        help="skip the held-out figures (each site's questions answered by a gate fitted without that site)",
    )
    p.add_argument(
        "--llm", action="store_true",
        help="answer with the configured LLM (DOCBOT_LLM_MODEL, [llm]) and add its figures: answers it wrote, "
        "fallbacks and why, [n] markers mapped, time; implies --no-held-out (one LLM call a question)",
    )
    p.add_argument("--json", action="store_true", help="print the JSON report instead of Markdown")
    p.set_defaults(func=run)


def parse_base_urls(pairs: Iterable[str]) -> dict[str, str]:
    out = {}
    for pair in pairs:
        site, sep, url = pair.partition("=")
        if not sep or not site or not url:
            raise ConfigError(f"--base-url expects SITE=URL, got {pair!r}")
        out[site] = url
    return out


def _progress(items: Iterable[Any], total: int, desc: str) -> Iterable[Any]:
    if not sys.stderr.isatty():
        return items
    from tqdm import tqdm

    bar: Iterable[Any] = tqdm(items, total=total, desc=desc, unit="q", file=sys.stderr)  # tqdm ships no types
    return bar


def write_outputs(data: ReportData, out: Path, extra: str = "", summary: str | None = None) -> str:
    """Write report.md/json/html into ``out`` (``extra`` Markdown after the report's) and append the Markdown to
    the file ``summary`` names (CI's job summary, ``Settings.github_step_summary``); returns the Markdown."""
    out.mkdir(parents=True, exist_ok=True)
    markdown = render_markdown(data) + (f"\n{extra}" if extra else "")
    (out / "report.md").write_text(markdown, encoding="utf-8")
    (out / "report.json").write_text(render_json(data), encoding="utf-8")
    (out / "report.html").write_text(render_html(data), encoding="utf-8")
    if summary:
        with open(summary, "a", encoding="utf-8") as fh:
            fh.write(markdown)
    return markdown


def run(args: argparse.Namespace, settings: Settings) -> int:
    from docbot.pipeline import Pipeline
    from docbot.reading import latest_page_texts
    from docbot.references.validator import ReferenceValidator

    maps = load_maps(settings.anchor_maps)
    base_urls = {**{site: m.base_url for site, m in maps.items()}, **parse_base_urls(args.base_url)}
    questions = load_questions(args.questions)
    cases = load_cases(args.cases) if args.cases else []
    thresholds = Thresholds(
        link_validity=args.min_link_validity,
        hit1=args.min_hit1,
        hit3=args.min_hit3,
        refusal=args.min_refusal,
        false_refusal=args.max_false_refusal,
        flagged=args.min_flagged,
        false_flag=args.max_false_flag,
        repair=args.min_repair,
        ece=args.max_ece,
        facts=args.min_facts,
        directives=args.min_directives,
        directive_validity=args.min_directive_validity,
    )
    pipeline = Pipeline.from_settings(settings)
    if args.llm and pipeline.generator is None:
        raise ConfigError("report --llm needs an LLM: set DOCBOT_LLM_MODEL and DOCBOT_LLM_BASE_URL (or [llm] in "
                          "docbot.toml; README: A local model, offline)")
    # With the index's section texts, as in the pipeline (they settle a tie between two headings), and the pages'
    # texts: it replays the repair cases and gives docbot's own verdict on every text directive the answers carry.
    validator = ReferenceValidator(maps, allow_hosts=settings.allow_hosts, texts=pipeline.section_text,
                                   page_texts=latest_page_texts(settings))
    data = build_report(pipeline, questions, base_urls, thresholds, validator, cases, progress=_progress,
                        all_sites=args.all_sites, held_out=not (args.no_held_out or args.llm))
    extra = ""
    if args.llm:
        figures = llm_figures(data.questions)
        extra = render_llm(figures, settings.llm or "")
        Path(args.out).mkdir(parents=True, exist_ok=True)
        (Path(args.out) / "llm.json").write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    markdown = write_outputs(data, Path(args.out), extra, settings.github_step_summary)
    print(render_json(data) if args.json else markdown, end="")
    for failure in data.failures:
        print(f"docbot report: {failure}", file=sys.stderr)
    return 0 if data.passed else 1
