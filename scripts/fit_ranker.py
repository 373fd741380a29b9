#!/usr/bin/env python3
"""Fit docbot's ranker on labelled questions over indexed sites, leave one site out; print the table.

Usage (sites crawled and indexed as in scripts/ci_report.sh; docs/quality.md says how to index our own):
    .venv/bin/python scripts/fit_ranker.py --set DATA_DIR ANCHOR_MAPS QUESTIONS [--set ...] \
        [--cache FILE] [--l2 1.0] [--depth 30] [--write]

Every answerable question's first ``--depth`` candidate sections and their features are collected once
(``--cache`` keeps them, so a refit needs no index), labelled by the question's gold and accepted links.
Prints, per site, hit@3 / hit@1 in retrieval's order, with the ranker fitted on every site (in sample), with
the ranker fitted on the *other* sites only (held out: what to expect on a site nobody labelled), and the
ceiling of a perfect ordering of the candidates. ``--write`` saves the ranker fitted on every site to
docbot/retrieval/ranker_model.json.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date
from pathlib import Path

from docbot.report.labelled import answerable
from docbot.retrieval.hybrid import Retriever
from docbot.retrieval.ranker import DEPTH, MODEL_FILE
from docbot.retrieval.ranker_fit import L2, Labelled, ceiling, evaluate, fit, leave_one_site_out

COLLECT_DEPTH = 50  # candidates kept per question (a fit may use fewer: --depth)


def collect(sets: list[list[str]], mention_weight: float) -> list[Labelled]:
    out: list[Labelled] = []
    retrievers: dict[int, Retriever] = {}
    for pipeline, a in answerable(sets):
        retriever = retrievers.setdefault(id(pipeline), Retriever(pipeline.index, rank=False,
                                                                   mention_weight=mention_weight))
        q, targets, right = a.question, a.targets, a.right
        keys, rows = retriever.candidates(a.text, q.site, COLLECT_DEPTH)
        kept = [i for i, key in enumerate(keys) if key not in a.named]
        kept_keys = [keys[i] for i in kept]
        weak = [t.deep_url for t in targets if not t.strong]
        out.append(Labelled(q.site, q.id, tuple(rows[i] for i in kept), tuple(right(key) for key in kept_keys),
                            tuple(right(t.deep_url) for t in targets if t.strong), tuple(right(w) for w in weak),
                            tuple(kept_keys.index(w) if w in kept_keys else -1 for w in weak), tuple(kept_keys)))
        print(f"\r{q.site} {q.id}", end="", file=sys.stderr)
    print(file=sys.stderr)
    return out


def table(questions: list[Labelled], l2: float, depth: int) -> None:
    shipped = fit(questions, l2, depth)
    folds = leave_one_site_out(questions, l2, depth)
    print(f"{'site':11} {'n':>4} {'retrieval h@3/h@1':>18} {'in sample':>12} {'held out':>12} "
          f"{f'ceiling@{depth}':>12} {f'ceiling@{COLLECT_DEPTH}':>12}")
    total = [0] * 11
    for site, fold in folds.items():
        mine = [q for q in questions if q.site == site]
        base, ins, held = evaluate(None, mine), evaluate(shipped, mine), evaluate(fold, mine)
        ceil = [sum(ceiling(q, d)[j] for q in mine) for d in (depth, COLLECT_DEPTH) for j in (0, 1)]
        row = [len(mine), *base, *ins, *held, *ceil]
        total = [a + b for a, b in zip(total, row)]
        print(_line(site, row))
    print(_line("all", total))


def _line(name: str, r: list[int]) -> str:
    return (f"{name:11} {r[0]:>4} {r[1]:>9}/{r[2]:<8} {r[3]:>6}/{r[4]:<5} {r[5]:>6}/{r[6]:<5} {r[7]:>6}/{r[8]:<5} "
            f"{r[9]:>6}/{r[10]:<5}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", nargs=3, action="append", default=[], metavar=("DATA_DIR", "ANCHOR_MAPS", "QUESTIONS"),
                        help="indexed sites and their labelled questions (repeatable)")
    parser.add_argument("--cache", help="JSON Lines of collected candidates: read when it exists, else written")
    parser.add_argument("--mention-weight", type=float, default=None, help="the mention list's fusion weight")
    parser.add_argument("--l2", type=float, default=L2)
    parser.add_argument("--depth", type=int, default=DEPTH)
    parser.add_argument("--write", action="store_true", help=f"save the ranker fitted on every site as {MODEL_FILE}")
    args = parser.parse_args()
    cache = Path(args.cache) if args.cache else None
    if cache is not None and cache.is_file():
        questions = [Labelled.from_json(json.loads(line)) for line in cache.read_text().splitlines() if line]
    else:
        if not args.set:
            print("fit_ranker: pass --set DATA_DIR ANCHOR_MAPS QUESTIONS (or an existing --cache)", file=sys.stderr)
            return 2
        from docbot.retrieval.hybrid import MENTION_WEIGHT
        questions = collect(args.set, MENTION_WEIGHT if args.mention_weight is None else args.mention_weight)
        if cache is not None:
            cache.write_text("".join(json.dumps(q.to_json()) + "\n" for q in questions))
    table(questions, args.l2, args.depth)
    if args.write:
        model = fit(questions, args.l2, args.depth, meta={"fitted": date.today().isoformat()})
        out = Path(__file__).resolve().parent.parent / "docbot" / "retrieval" / MODEL_FILE
        out.write_text(json.dumps(model.to_json(), indent=1) + "\n", encoding="utf-8")
        print(f"fit_ranker: wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
