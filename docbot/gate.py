"""The decision gate: answer only when the retrieved evidence clears a relevance threshold.

Relevance mixes two signals that fail differently: the best dense cosine
(topic closeness, fooled by on-topic-sounding questions the docs never
answer) and IDF-weighted query-term coverage of the top sections (fooled by
paraphrase). Pure over plain numbers and token sets.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from docbot.lexical import tokenize
from docbot.retrieve import Hit

# Calibrated on ../shared/eval/dev_questions.jsonl (3 sites, all-MiniLM-L6-v2,
# k=5): relevance = top dense cosine + COVERAGE_WEIGHT × coverage of the top 3
# sections. In-scope questions scored ≥ 0.57 (the lowest: a paraphrased
# "stream a 2 GB upload" question), the clearest out-of-scope ones (Celery beat,
# S3 presigned uploads) ≤ 0.54. The threshold sits between them, leaning towards
# answering: a wrong refusal loses a good answer, while a weak answer still
# carries only validated links. Plausible out-of-scope questions whose words
# all occur in the docs (HTTP/2, async views) still pass — the LLM prompt then
# says the sources don't answer.
RELEVANCE_THRESHOLD = 0.56
COVERAGE_WEIGHT = 0.5
COVERAGE_TOP = 3  # sections whose text counts for coverage
CONFIDENCE_SPAN = 0.35  # relevance this far above the threshold reads as confidence 1.0
MAX_TOPICS = 3


@dataclass(frozen=True, slots=True)
class Decision:
    """Whether to answer, with the evidence behind it."""

    answer: bool
    relevance: float
    confidence: float
    dense: float
    coverage: float


def idf_table(doc_freq: Mapping[str, int], docs: int) -> dict[str, float]:
    return {t: math.log(1 + docs / (1 + n)) for t, n in doc_freq.items()}


def coverage(query: str, texts: Iterable[str], doc_freq: Mapping[str, int], docs: int) -> float:
    """IDF-weighted share of the query's terms that occur in ``texts`` (unknown terms weigh the most)."""
    terms = list(dict.fromkeys(tokenize(query)))
    if not terms:
        return 0.0
    seen: set[str] = set()
    for text in texts:
        seen.update(tokenize(text))
    weight = {t: math.log(1 + max(docs, 1) / (1 + doc_freq.get(t, 0))) for t in terms}
    total = sum(weight.values())
    return sum(w for t, w in weight.items() if t in seen) / total if total else 0.0


def hit_text(hit: Hit) -> str:
    return " ".join((hit.title, " ".join(hit.path), hit.text))


def decide(
    query: str,
    hits: Sequence[Hit],
    top_dense: float,
    doc_freq: Mapping[str, int],
    docs: int,
    threshold: float = RELEVANCE_THRESHOLD,
) -> Decision:
    """Answer when ``top_dense + COVERAGE_WEIGHT × coverage`` clears ``threshold``."""
    if not hits:
        return Decision(False, 0.0, 0.0, top_dense, 0.0)
    cov = coverage(query, (hit_text(h) for h in hits[:COVERAGE_TOP]), doc_freq, docs)
    relevance = top_dense + COVERAGE_WEIGHT * cov
    return Decision(relevance >= threshold, relevance, confidence(relevance, threshold), top_dense, cov)


def confidence(relevance: float, threshold: float = RELEVANCE_THRESHOLD) -> float:
    """0–1: 0.5 at the threshold, 1.0 at CONFIDENCE_SPAN above it, 0.0 at CONFIDENCE_SPAN below."""
    return max(0.0, min(1.0, 0.5 + (relevance - threshold) / (2 * CONFIDENCE_SPAN)))


def closest_topics(hits: Sequence[Hit], limit: int = MAX_TOPICS) -> list[Hit]:
    """Up to ``limit`` hits on distinct pages: the nearest things the docs do cover."""
    out: list[Hit] = []
    for hit in hits:
        if all(h.url != hit.url for h in out):
            out.append(hit)
        if len(out) >= limit:
            break
    return out
