"""Benchmark `docbot ask` on an existing index: retrieval p95 and whole pipeline (no LLM) p50, warm.

Usage: python scripts/bench_ask.py --data-dir D --anchor-maps A [--site NAME] [--rounds N]
Build the index first (crawl + index a Python-docs-size site, e.g. python3.11-doc served on 127.0.0.1).
"""

from __future__ import annotations

import argparse
import statistics
import time

from docbot.config import load_settings
from docbot.pipeline import Pipeline

QUESTIONS = [
    "How do I set a timeout?", "How do I read a file line by line?", "What does the session object do?",
    "How do I handle errors and exceptions?", "How can I configure logging?", "How do I run tasks concurrently?",
    "How do I parse JSON?", "How do I upload a file?", "What is the default encoding?", "How do I use a context manager?",
]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--anchor-maps", required=True)
    parser.add_argument("--site")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    pipeline = Pipeline.from_settings(load_settings(args.data_dir, args.anchor_maps), generator=None)
    pipeline.generator = None
    sites = [args.site] if args.site else pipeline.index.sites()
    chunks = sum(len(pipeline.index.chunks(s)) for s in sites)
    pipeline.ask(QUESTIONS[0], site=args.site)  # warm: model, Chroma, BM25, caches
    retrieval: list[float] = []
    total: list[float] = []
    # Every timed call embeds its question, as a new question would (the index keeps recent questions' vectors).
    forget = pipeline.index.query_vector.cache_clear
    for _ in range(args.rounds):
        for q in QUESTIONS:
            forget()
            start = time.perf_counter()
            pipeline.retriever.search(q, k=5, sites=sites)
            retrieval.append((time.perf_counter() - start) * 1000)
            forget()
            start = time.perf_counter()
            pipeline.ask(q, site=args.site)
            total.append((time.perf_counter() - start) * 1000)
    print(f"index: {len(sites)} site(s), {chunks} chunks; {len(retrieval)} questions warm")
    print(f"retrieval p50 {statistics.median(retrieval):.1f} ms, p95 {percentile(retrieval, 0.95):.1f} ms")
    print(f"pipeline (extractive, no LLM) p50 {statistics.median(total):.1f} ms, p95 {percentile(total, 0.95):.1f} ms")


if __name__ == "__main__":
    main()
