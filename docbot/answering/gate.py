"""The decision gate: answer only when the retrieved evidence says the docs cover the question.

Five measurements of one question against one site (:class:`Evidence`):

* ``dense``: the best cosine of any chunk (topic closeness; fooled by
  on-topic-sounding questions the docs never answer);
* ``coverage``: the IDF-weighted share of the question's words found in the top
  sections (word overlap; fooled by paraphrase);
* ``agreement``: ln of how deep one must go before dense and lexical retrieval
  name the same section (when the docs cover a question both find its section
  near the top; when they don't, each finds something different);
* ``unknown``: the IDF-weighted share of the question's words that occur
  nowhere in the docs ("Alembic", "Celery");
* ``lexical``: the best BM25 score.

Three depend on the size and make of the site: a 17k-chunk site gives higher
cosines by chance and agrees later than a 1k-chunk one, and BM25 scores have no
common scale. The gate measures those three *relative to the site itself*,
against their mean over :data:`PROBES`, everyday questions no software
documentation answers, asked of the same index (:func:`baseline`): the cosine
and the log agreement rank minus the probes' mean, BM25 as the log of its ratio
to the probes' mean. A BM25 score is a sum of IDF weights, and IDF grows with
the size of the site, so a site's scores are the same evidence times that site's
own scale: a difference kept the scale (a 712-chunk site's answerable questions
scored 2.5 over its probes where a large site's score 6 over theirs, and were
refused), a ratio drops it. BM25 also sums over the question's words, so a question
shorter than the probes meets them cut to its length
(:meth:`docbot.answering.site_stats.SiteStats.lexical_floor`). Coverage and
the unknown share are shares of the question's own words and mean the same on
any site, so they are taken as they are: subtracting the probes' values there
measured the size of the site's vocabulary, which made answerable questions on
large sites look weaker (fitted on the dev sites, the gate refused 13 of 64
answerable questions of ours on three large sites outside the dev set with it,
5 without). A logistic model over the features (:class:`GateModel`, fitted by :mod:`docbot.answering.gate_fit`,
shipped in ``gate_model.json``) scores the question; it is answered when the
score clears the model's threshold. Pure over plain numbers and token sets.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from docbot.learn.linear import LinearModel
from docbot.retrieval.hybrid import Hit, Retrieval
from docbot.text.words import tokenize

FEATURES = ("dense", "coverage", "agreement", "unknown", "lexical")
SITE_SCALED = frozenset({"dense", "agreement", "lexical"})  # measured relative to the site's probes
RATIO_SCALED = frozenset({"lexical"})  # ... as ln(value / probes' mean) rather than value - probes' mean
RATIO_FLOOR = 0.05  # added to both sides of a ratio: a question or probe that matched no word scores 0
COVERAGE_TOP = 3  # sections whose text counts for coverage
MAX_TOPICS = 3
MODEL_FILE = "gate_model.json"
# An answered question whose score is under the model's flag threshold may be out of scope: its answer opens
# with this line and its confidence is at most FLAGGED_CONFIDENCE (issue 26: refuse almost never, flag instead).
FLAG_LINE = "The documentation may not cover this question; these are the sections that come closest."
FLAGGED_CONFIDENCE = 0.25

# Everyday questions that no software documentation answers: asked of each site's own
# index, they measure what "not covered" looks like on that site (its noise floor).
PROBES = (
    "How do I bake sourdough bread at home?",
    "What is the best time of year to visit Japan?",
    "How many players are on a soccer team?",
    "How do I change a flat tyre on a bicycle?",
    "What are the symptoms of the flu?",
    "How do I file my income tax return?",
    "Which plants grow well in shade?",
    "How do I train my dog to sit?",
    "What is the plot of Hamlet?",
    "How do I knit a scarf?",
    "How do I lower my electricity bill?",
    "What should I pack for a camping trip?",
    "How do I remove a red wine stain from a carpet?",
    "How long should I boil an egg?",
    "What is a good beginner workout routine?",
    "How do I write a cover letter for a job application?",
)

ANSWER = "answer"
WEAK_EVIDENCE = "weak_evidence"  # the evidence is too close to the site's off-topic probes
UNKNOWN_TERMS = "unknown_terms"  # ... mostly because the question's words are not the docs' words
NO_HITS = "no_hits"


@dataclass(frozen=True, slots=True)
class Evidence:
    """The gate's raw measurements of one question against one site."""

    dense: float
    coverage: float
    agreement: float  # ln(agreement rank)
    unknown: float
    lexical: float

    def vector(self) -> tuple[float, ...]:
        return tuple(float(getattr(self, name)) for name in FEATURES)

    def minus(self, base: Evidence) -> Evidence:
        """These measurements relative to the site's ``base`` (only the :data:`SITE_SCALED` ones: a difference,
        or for :data:`RATIO_SCALED` ones the log of the ratio)."""
        return Evidence(*(math.log((a + RATIO_FLOOR) / (b + RATIO_FLOOR)) if name in RATIO_SCALED
                          else a - b if name in SITE_SCALED else a
                          for name, a, b in zip(FEATURES, self.vector(), base.vector())))

    @classmethod
    def mean(cls, items: Sequence[Evidence]) -> Evidence:
        if not items:
            return cls(0.0, 0.0, 0.0, 0.0, 0.0)
        return cls(*(sum(col) / len(items) for col in zip(*(e.vector() for e in items))))


@dataclass(frozen=True, slots=True)
class Decision:
    """Whether to answer, with the evidence behind it."""

    answer: bool
    relevance: float  # the model's score minus its threshold: > 0 answers
    confidence: float
    dense: float
    coverage: float
    unknown: float = 0.0  # IDF-weighted share of query words absent from the docs
    agreement: int = 1  # best rank dense and lexical retrieval agree on
    reason: str = ANSWER
    flagged: bool = False  # answered, but under the flag threshold: the docs may not cover it


@dataclass(frozen=True, slots=True)
class GateModel:
    """The gate's logistic model over the site-scaled :class:`Evidence`, and the score it must clear."""

    model: LinearModel
    threshold: float
    flag_threshold: float | None = None  # answered questions scoring under it are flagged (None: none are)

    @property
    def flag_at(self) -> float:
        return self.threshold if self.flag_threshold is None else max(self.flag_threshold, self.threshold)

    def contributions(self, scaled: Evidence) -> tuple[float, ...]:
        return self.model.contributions(scaled.vector())

    def score(self, scaled: Evidence) -> float:
        return self.model.score(scaled.vector())

    def to_json(self) -> dict[str, Any]:
        flag = {} if self.flag_threshold is None else {"flag_threshold": self.flag_threshold}
        return {**self.model.to_json(), "threshold": self.threshold, **flag}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GateModel:
        flag = data.get("flag_threshold")
        return cls(LinearModel.from_json(data, FEATURES, "gate model"), float(data["threshold"]),
                   None if flag is None else float(flag))

    @classmethod
    def load(cls, path: Path | None = None) -> GateModel:
        """The model at ``path``, or the one shipped with docbot."""
        text = Path(path).read_text(encoding="utf-8") if path else resources.files("docbot.answering").joinpath(MODEL_FILE).read_text(encoding="utf-8")
        return cls.from_json(json.loads(text))


def _weights(terms: Iterable[str], doc_freq: Mapping[str, int], docs: int) -> dict[str, float]:
    return {t: math.log(1 + max(docs, 1) / (1 + doc_freq.get(t, 0))) for t in dict.fromkeys(terms)}


def coverage(query: str, texts: Iterable[str], doc_freq: Mapping[str, int], docs: int) -> float:
    """IDF-weighted share of the query's terms that occur in ``texts`` (unknown terms weigh the most)."""
    weight = _weights(tokenize(query), doc_freq, docs)
    total = sum(weight.values())
    if not total:
        return 0.0
    seen: set[str] = set()
    for text in texts:
        seen.update(tokenize(text))
    return sum(w for t, w in weight.items() if t in seen) / total


def unknown_share(query: str, doc_freq: Mapping[str, int], docs: int) -> float:
    """IDF-weighted share of the query's words that occur nowhere in the docs."""
    # Whole API names (order.total, send_email) are skipped: tokenize also
    # yields their words, and a user's own identifier is not a topic. So are
    # words with digits: a user's sizes and counts ("2gb", "300") are not topics.
    words = [t for t in tokenize(query) if "." not in t and "_" not in t and not any(c.isdigit() for c in t)]
    weight = _weights(words, doc_freq, docs)
    total = sum(weight.values())
    return sum(w for t, w in weight.items() if not doc_freq.get(t, 0)) / total if total else 0.0


def hit_text(hit: Hit) -> str:
    return " ".join((hit.title, " ".join(hit.path), hit.text))


def evidence(query: str, retrieval: Retrieval, doc_freq: Mapping[str, int], docs: int) -> Evidence:
    """The raw measurements of ``query`` against the site that produced ``retrieval``."""
    top = (retrieval.leading or retrieval.hits)[:COVERAGE_TOP]  # what the site holds, before any preference
    cov = coverage(query, (hit_text(h) for h in top), doc_freq, docs)
    return Evidence(retrieval.top_dense, cov, math.log(max(retrieval.agreement, 1)),
                    unknown_share(query, doc_freq, docs), retrieval.top_lexical)


def decide(query: str, retrieval: Retrieval, doc_freq: Mapping[str, int], docs: int,
           baseline: Evidence, model: GateModel) -> Decision:
    """Answer when the model's score of the site-scaled evidence clears its threshold."""
    raw = evidence(query, retrieval, doc_freq, docs)
    if not retrieval.hits:
        return Decision(False, -1.0, 0.0, retrieval.top_dense, 0.0, raw.unknown, retrieval.agreement, NO_HITS)
    scaled = raw.minus(baseline)
    score = model.score(scaled)
    margin = score - model.threshold
    reason = ANSWER
    if margin < 0:
        parts = dict(zip(FEATURES, model.contributions(scaled)))
        reason = UNKNOWN_TERMS if min(parts, key=lambda k: parts[k]) == "unknown" else WEAK_EVIDENCE
    sure = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, margin))))
    return Decision(margin >= 0, margin, sure, raw.dense, raw.coverage, raw.unknown, retrieval.agreement, reason,
                    flagged=margin >= 0 and score < model.flag_at)


def closest_topics(hits: Sequence[Hit], limit: int = MAX_TOPICS) -> list[Hit]:
    """Up to ``limit`` hits on distinct pages: the nearest things the docs do cover."""
    out: list[Hit] = []
    for hit in hits:
        if all(h.url != hit.url for h in out):
            out.append(hit)
        if len(out) >= limit:
            break
    return out
