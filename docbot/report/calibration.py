"""Is ``confidence`` a probability? Reliability tables in sample and held out, and their calibration error.

In sample: the confidence each answer carried (the shipped calibrator). Held
out: each site's answers from the held-out run (its gate fitted without it),
their signals mapped by a calibrator fitted on the other sites' answers only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from docbot.answer import ANSWERING  # a clarifying question comes with a best-effort primary
from docbot.answering.confidence import Bucket, fit, reliability
from docbot.learn.linear import LinearModel, leave_one_site_out
from docbot.report.metrics import Question, normalize_link, targets

_Row = tuple[str, tuple[float, ...], float, bool]  # an answered question's site, signals, confidence, whether right


@dataclass(frozen=True, slots=True)
class Calibration:
    in_sample: tuple[Bucket, ...]
    ece: float | None
    held_out: tuple[Bucket, ...] = ()
    held_out_ece: float | None = None

    def to_json(self) -> dict[str, Any]:
        def table(buckets: Sequence[Bucket]) -> list[dict[str, Any]]:
            return [{"low": b.low, "high": b.high, "answers": b.answers, "confidence": b.confidence,
                     "right": b.right} for b in buckets]

        return {"ece": self.ece, "buckets": table(self.in_sample), "held_out_ece": self.held_out_ece,
                "held_out_buckets": table(self.held_out)}


def primary_right(question: Question, answer: Any, base_url: str) -> bool | None:
    """Whether an answered question's first reference is a gold or accepted section; None if not answered."""
    refs = getattr(answer, "references", ())
    if getattr(answer, "status", "") not in ANSWERING or not refs:
        return None
    return normalize_link(refs[0].url, base_url) in targets(question, base_url)


def calibrate(
    questions: Sequence[Question], answers: Sequence[Any], base_urls: Mapping[str, str],
    held_answers: Sequence[Any] | None = None,
) -> Calibration:
    """Reliability of the shipped confidence, and (given the held-out run) of leave-one-site-out calibrators."""
    rows: list[_Row] = []  # answered questions, in sample
    for q, a in zip(questions, answers):
        right = primary_right(q, a, _base(base_urls, q.site))
        if right is not None:
            rows.append((q.site, tuple(getattr(a, "signals", ()) or ()), float(getattr(a, "confidence", 0.0)), right))
    buckets, ece = reliability([(c, ok) for _, _, c, ok in rows])
    if held_answers is None:
        return Calibration(tuple(buckets), ece)
    calibrators = leave_one_site_out([r for r in rows if r[1]], lambda r: r[0], _calibrator,
                                     sites=[q.site for q in questions])
    pairs = []
    for site, calibrator in calibrators.items():  # by site, in order: the table sums them in this order
        if calibrator is None:
            continue
        for q, a in zip(questions, held_answers):
            if q.site != site:
                continue
            right = primary_right(q, a, _base(base_urls, q.site))
            values = tuple(getattr(a, "signals", ()) or ())
            if right is not None and values:
                pairs.append((calibrator.probability(values), right))
    held, held_ece = reliability(pairs)
    return Calibration(tuple(buckets), ece, tuple(held), held_ece)


def _calibrator(rows: Sequence[_Row]) -> LinearModel | None:
    """A calibrator fitted on ``rows``; None without any (no other site answered with signals)."""
    return fit([(v, ok) for _, v, _, ok in rows]) if rows else None


def _base(base_urls: Mapping[str, str], site: str) -> str:
    base = base_urls[site]
    return base if base.endswith("/") else base + "/"
