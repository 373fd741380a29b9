#!/usr/bin/env python3
"""Fit docbot's gate and confidence on labelled questions over indexed sites; write them into docbot/.

Usage (sites crawled and indexed as in scripts/ci_report.sh, DOCBOT_* env pointing at them):
    .venv/bin/python scripts/fit_models.py --questions ../shared/eval/dev_questions.jsonl \
        [--also DATA_DIR ANCHOR_MAPS QUESTIONS ...]

``--also`` adds the questions of sites indexed elsewhere: the shipped models also learn from our own
questions on three large sites outside the dev set (tests/fixtures/unseen/; the README says how to serve
and index them). Their gate evidence is saved to docbot/gate_examples.jsonl; without ``--also`` the gate
is fitted on the dev questions plus those saved examples.

Writes docbot/gate_model.json (the gate, docbot.answering.gate_fit) and then, asking every question with that
gate, docbot/confidence_model.json (docbot.answering.confidence). Prints, for every site, what the gate fitted
on the *other* sites does to its questions (held out) beside the gate fitted on all of them (in
sample). `docbot report` prints the same held-out figures from whole answers, with the calibration.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date
from pathlib import Path
from typing import Any

from docbot.answer import Status
from docbot.answering import confidence
from docbot.answering.gate import FEATURES, GateModel
from docbot.answering.gate_fit import EXAMPLES_FILE, Example, fit, leave_one_site_out, load_examples, save_examples
from docbot.config import load_settings
from docbot.indexing.embed import embedder_from_settings
from docbot.learn.linear import LinearModel
from docbot.pipeline import Pipeline
from docbot.report.heldout import collect_examples
from docbot.report.metrics import normalize_link
from docbot.report.run import load_questions

PLACEHOLDER = GateModel(LinearModel.constant(FEATURES), 0.0)  # evidence() never consults the gate
NEUTRAL = LinearModel.constant(confidence.SIGNALS)


def tally(model: GateModel, examples: list[Example]) -> tuple[int, int, int, int, int, int]:
    """(answerable refused, answerable flagged, answerable, out-of-scope refused, refused or flagged, out-of-scope)."""
    inside = [e for e in examples if e.in_scope]
    outside = [e for e in examples if not e.in_scope]

    def refused(e: Example) -> bool:
        return model.score(e.scaled) < model.threshold

    def flagged(e: Example) -> bool:
        return model.threshold <= model.score(e.scaled) < model.flag_at

    return (sum(map(refused, inside)), sum(map(flagged, inside)), len(inside), sum(map(refused, outside)),
            sum(refused(e) or flagged(e) for e in outside), len(outside))


def _cells(t: tuple[int, ...] | list[int]) -> str:
    return f"{t[0]:>3} {t[1]:>3} of {t[2]:<3} answerable; {t[3]:>2} {t[4]:>2} of {t[5]:<2} oos"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", required=True, help="labelled questions (JSON Lines, ../shared/eval format)")
    parser.add_argument("--out-dir", default=str(Path(__file__).resolve().parent.parent / "docbot" / "answering"),
                        help="where gate_model.json and confidence_model.json go (default: the docbot package)")
    parser.add_argument("--also", nargs=3, action="append", default=[], metavar=("DATA_DIR", "ANCHOR_MAPS", "QUESTIONS"),
                        help="sites indexed in another data dir, with their questions (repeatable)")
    args = parser.parse_args()
    settings = load_settings()
    sets: list[tuple[Pipeline, list[Any]]] = []
    for data_dir, maps_dir, path in [(None, None, args.questions), *args.also]:
        pipeline = Pipeline.from_settings(load_settings(data_dir, maps_dir), gate=PLACEHOLDER, calibrator=NEUTRAL)
        questions = [q for q in load_questions(path) if q.site in pipeline.index.sites()]
        if not questions:
            print(f"fit_models: none of the sites of {path} is indexed — crawl and index them first", file=sys.stderr)
            return 2
        sets.append((pipeline, questions))
    out = Path(args.out_dir)
    main_examples = collect_examples(*sets[0])
    if args.also:  # computed afresh, and kept for later fits and the report's held-out folds
        extra = [e for pipeline, questions in sets[1:] for e in collect_examples(pipeline, questions)]
        save_examples(out / EXAMPLES_FILE, extra)
    else:
        extra = load_examples(out / EXAMPLES_FILE)
    measured = {e.site for e in main_examples}
    examples = main_examples + [e for e in extra if e.site not in measured]
    model = fit(examples, meta={"fitted": date.today().isoformat(), "embeddings": embedder_from_settings(settings).name,
                                "also": sorted({e.site for e in examples} - measured)})
    folds = leave_one_site_out(examples)
    print(f"{'site':12} {'in sample: answerable refused, flagged; oos refused, refused or flagged':>70}   held out: the same")
    totals = [0] * 12
    for site, fold in folds.items():
        mine = [e for e in examples if e.site == site]
        a, b = tally(model, mine), tally(fold, mine)
        totals = [x + y for x, y in zip(totals, (*a, *b))]
        print(f"{site:12} {_cells(a)}   {_cells(b)}")
    print(f"{'all':12} {_cells(totals[:6])}   {_cells(totals[6:])}")
    (out / "gate_model.json").write_text(json.dumps(model.to_json(), indent=1) + "\n", encoding="utf-8")
    rows = []
    for pipeline, questions in sets:
        pipeline.gate = model
        for q in questions:
            answer = pipeline.ask(q.question, site=q.site)
            if answer.status == Status.ANSWERED and answer.references:
                base = pipeline.maps[q.site].base_url
                want = {normalize_link(link, base) for link in (*q.gold, *q.accept)}
                rows.append((answer.signals, normalize_link(answer.references[0].url, base) in want))
    calibrator = confidence.fit(rows, meta={"fitted": date.today().isoformat()})
    (out / confidence.MODEL_FILE).write_text(json.dumps(calibrator.to_json(), indent=1) + "\n", encoding="utf-8")
    _buckets, ece = confidence.reliability([(calibrator.probability(v), ok) for v, ok in rows])
    print(f"confidence: {len(rows)} answered, {sum(ok for _, ok in rows)} with the right primary; ECE in sample {ece:.3f}")
    print(f"fit_models: wrote {out}/gate_model.json and {out}/{confidence.MODEL_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
