#!/usr/bin/env python3
"""Fit docbot's gate on labelled questions over indexed sites and write docbot/gate_model.json.

Usage (sites crawled and indexed as in scripts/ci_report.sh, DOCBOT_* env pointing at them):
    .venv/bin/python scripts/fit_gate.py --questions ../shared/eval/dev_questions.jsonl [--out docbot/gate_model.json]

Prints, for every site, what the gate fitted on the *other* sites does to its questions (held out),
beside the gate fitted on all of them (in sample). `docbot report` prints the same held-out figures
from whole answers.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date
from pathlib import Path

from docbot.config import load_settings
from docbot.gate import GateModel
from docbot.gate_fit import Example, fit, leave_one_site_out
from docbot.pipeline import Pipeline
from docbot.report.heldout import collect_examples
from docbot.report.run import load_questions

PLACEHOLDER = GateModel((0.0,) * 5, 0.0, (0.0,) * 5, (1.0,) * 5, 0.0)  # evidence() never consults the gate


def tally(model: GateModel, examples: list[Example]) -> tuple[int, int, int, int]:
    """(answerable refused, answerable, out-of-scope refused, out-of-scope)."""
    inside = [e for e in examples if e.in_scope]
    outside = [e for e in examples if not e.in_scope]
    refused = lambda e: model.score(e.scaled) < model.threshold  # noqa: E731
    return sum(map(refused, inside)), len(inside), sum(map(refused, outside)), len(outside)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", required=True, help="labelled questions (JSON Lines, ../shared/eval format)")
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "docbot" / "gate_model.json"))
    args = parser.parse_args()
    settings = load_settings()
    pipeline = Pipeline.from_settings(settings, gate=PLACEHOLDER)
    questions = [q for q in load_questions(args.questions) if q.site in pipeline.index.sites()]
    if not questions:
        print("fit_gate: none of the questions' sites is indexed — crawl and index them first", file=sys.stderr)
        return 2
    examples = collect_examples(pipeline, questions)
    model = fit(examples, meta={"fitted": date.today().isoformat(), "embeddings": pipeline.index.embedder.name})
    folds = leave_one_site_out(examples)
    print(f"{'site':12} {'in sample: refused':>28} {'held out: refused':>28}")
    totals = [0] * 8
    for site, fold in folds.items():
        mine = [e for e in examples if e.site == site]
        a, b = tally(model, mine), tally(fold, mine)
        totals = [x + y for x, y in zip(totals, (*a, *b))]
        print(f"{site:12} {a[0]:>3}/{a[1]:<3} answerable {a[2]:>2}/{a[3]:<2} oos  {b[0]:>3}/{b[1]:<3} answerable {b[2]:>2}/{b[3]:<2} oos")
    t = totals
    print(f"{'all':12} {t[0]:>3}/{t[1]:<3} answerable {t[2]:>2}/{t[3]:<2} oos  {t[4]:>3}/{t[5]:<3} answerable {t[6]:>2}/{t[7]:<2} oos")
    Path(args.out).write_text(json.dumps(model.to_json(), indent=1) + "\n", encoding="utf-8")
    print(f"fit_gate: wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
