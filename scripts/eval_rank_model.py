#!/usr/bin/env python3
"""Measure a trained re-ranking model on labelled questions over indexed sites: hit@3 / hit@1 per site.

    .venv/bin/python scripts/eval_rank_model.py --set DATA_DIR ANCHOR_MAPS QUESTIONS [--set ...] \
        --model docbot/retrieval/cross_model [--cache FILE] [--json]

For every answerable question the first 30 sections are taken in the order a fresh question's answer has them
today (retrieval, then the learned ranker), with the labels ``scripts/fit_ranker.py`` uses; the model scores the
first 30 once (``--cache`` keeps the scores, so variants need no model run). Printed per site: today's order, the
model alone over the first 10 / 20 / 30, the model fused with today's order by reciprocal rank (weights 1 and 2),
and the ceiling of a perfect order of the first 10 and 30. The model must not have been trained on these sites
(its ``training.json`` lists the sites it was).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import NotRequired, TypedDict

from docbot.indexing.chunk import embedding_text
from docbot.report.labelled import answerable
from docbot.retrieval.cross import CrossEncoder, fused
from docbot.retrieval.hybrid import CROSS_CHARS, Retriever
from docbot.retrieval.ranker_fit import Labelled, ceiling, hits

DEPTH = 30
VARIANTS: dict[str, tuple[int, float | None]] = {  # name → (depth re-ordered, fusion weight; None: the model alone)
    "model@10": (10, None), "model@20": (20, None), "model@30": (30, None),
    "fused w1 @20": (20, 1.0), "fused w2 @20": (20, 2.0), "fused w2 @30": (30, 2.0),
}


class Row(TypedDict):
    """One question's candidates and the model's scores, as --cache keeps them."""

    site: str
    id: str
    keys: list[str]
    labels: list[bool]
    explicit: list[bool]
    weak: list[bool]
    weak_at: list[int]
    scores: list[float]
    seconds: NotRequired[float]  # collect() always times it; the timing line skips a cached row without it


def collect(sets: list[list[str]], encoder: CrossEncoder) -> list[Row]:
    out: list[Row] = []
    retrievers: dict[int, Retriever] = {}
    for pipeline, a in answerable(sets):
        retriever = retrievers.setdefault(id(pipeline), Retriever(pipeline.index))  # today's order: no model in it
        q, right = a.question, a.right
        keys = [k for k in retriever.ordered(a.text, q.site, DEPTH + len(a.named)) if k not in a.named][:DEPTH]
        weak = [t.deep_url for t in a.targets if not t.strong]
        sections = [retriever.section(q.site, key) for key in keys]
        passages = [embedding_text(h.path, h.text[:CROSS_CHARS]) if h else "" for h in sections]
        started = time.perf_counter()
        scores = [float(s) for s in encoder.score(a.text, passages)] if passages else []
        out.append({"site": q.site, "id": q.id, "keys": keys, "labels": [right(k) for k in keys],
                    "explicit": [right(t.deep_url) for t in a.targets if t.strong],
                    "weak": [right(w) for w in weak], "weak_at": [keys.index(w) if w in keys else -1 for w in weak],
                    "scores": scores, "seconds": time.perf_counter() - started})
        print(f"\r{q.site} {q.id}   ", end="", file=sys.stderr)
    print(file=sys.stderr)
    return out


def labelled(row: Row) -> Labelled:
    return Labelled(row["site"], row["id"], tuple(() for _ in row["keys"]), tuple(row["labels"]),
                    tuple(row["explicit"]), tuple(row["weak"]), tuple(row["weak_at"]), tuple(row["keys"]))


def order_of(row: Row, depth: int, weight: float | None) -> list[int]:
    n = min(depth, len(row["scores"]))
    return fused(row["scores"][:n], weight) + list(range(n, len(row["keys"])))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", nargs=3, action="append", default=[], metavar=("DATA_DIR", "ANCHOR_MAPS", "QUESTIONS"))
    ap.add_argument("--model", type=Path, required=True)
    ap.add_argument("--cache", type=Path, help="scores kept here: read when it exists, else written")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if args.cache and args.cache.exists():
        rows = json.loads(args.cache.read_text())
    else:
        encoder = CrossEncoder(args.model)
        trained_on = set(encoder.record.get("sites", {}))
        rows = collect(args.set, encoder)
        overlap = trained_on & {r["site"] for r in rows}
        if overlap:
            print(f"warning: the model was trained on {sorted(overlap)}: their figures are not held out")
        if args.cache:
            args.cache.write_text(json.dumps(rows))
    names = ["today", *VARIANTS, "ceiling@10", "ceiling@30"]
    table: dict[str, dict[str, list[int]]] = {}
    for row in rows:
        q = labelled(row)
        got = {"today": hits(q, list(range(len(row["keys"]))))}
        for name, (depth, weight) in VARIANTS.items():
            got[name] = hits(q, order_of(row, depth, weight))
        got["ceiling@10"], got["ceiling@30"] = ceiling(q, 10), ceiling(q, 30)
        counts = table.setdefault(row["site"], {n: [0, 0, 0] for n in names})
        for name, (h3, h1) in got.items():
            counts[name][0] += 1
            counts[name][1] += int(h3)
            counts[name][2] += int(h1)
    total = {n: [sum(t[n][i] for t in table.values()) for i in range(3)] for n in names}
    seconds = sorted(r["seconds"] for r in rows if "seconds" in r)
    if args.json:
        print(json.dumps({"sites": table, "all": total,
                          "p95_seconds": seconds[int(0.95 * (len(seconds) - 1))] if seconds else None}))
        return 0
    print(f"{'site':11} {'n':>4} " + " ".join(f"{n:>13}" for n in names))
    for name, line in [*table.items(), ("all", total)]:
        print(f"{name:11} {line['today'][0]:>4} " + " ".join(f"{f'{v[1]} / {v[2]}':>13}" for v in line.values()))
    if seconds:
        print(f"model time per question (first {DEPTH}): p50 {seconds[len(seconds) // 2]:.2f} s, "
              f"p95 {seconds[int(0.95 * (len(seconds) - 1))]:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
