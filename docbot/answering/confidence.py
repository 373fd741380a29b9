"""Calibrated confidence: the probability that an answer's primary reference is the right section.

Three signals the pipeline has when it answers (:func:`signals`): the gate's
margin (how far the evidence clears the site's noise floor), whether the
question named its target explicitly (a pasted link, an API name), and how
clearly the first section beats the second in the fused ranking. A plain
logistic regression maps them to a probability, fitted on labelled questions
(answered ones; an answered out-of-scope question is a wrong primary) and
shipped in ``confidence_model.json``; ``docbot report`` prints its
reliability table and expected calibration error, in sample and with each
site's calibrator fitted on the other sites only.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from docbot.learn import linear
from docbot.learn.linear import LinearModel

SIGNALS = ("gate_margin", "explicit", "top_gap")
MODEL_FILE = "confidence_model.json"
BUCKETS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0001)


def signals(gate_margin: float, explicit: bool, scores: Sequence[float]) -> tuple[float, ...]:
    """(gate margin, 1 if explicit, relative gap between the first two fused scores)."""
    first = scores[0] if scores else 0.0
    second = scores[1] if len(scores) > 1 else 0.0
    gap = (first - second) / first if first > 0 else 0.0
    return (max(-10.0, min(10.0, gate_margin)), 1.0 if explicit else 0.0, gap)


def load() -> LinearModel:
    """The calibrator shipped with docbot."""
    data = json.loads(resources.files("docbot.answering").joinpath(MODEL_FILE).read_text(encoding="utf-8"))
    return LinearModel.from_json(data, SIGNALS, "confidence model")


def fit(rows: Sequence[tuple[Sequence[float], bool]], meta: dict[str, Any] | None = None) -> LinearModel:
    """A calibrator from (signals, primary was right) pairs; not class-balanced: it must match frequencies."""
    if not rows:
        raise ValueError("fitting confidence needs answered questions")
    right = sum(1 for _, ok in rows if ok)
    return linear.fit(SIGNALS, [v for v, _ in rows], [ok for _, ok in rows], balanced=False,
                        meta={"answers": len(rows), "right": right, **dict(meta or {})})


@dataclass(frozen=True, slots=True)
class Bucket:
    low: float
    high: float
    answers: int
    confidence: float | None  # mean confidence in the bucket
    right: float | None  # share whose primary reference was right


def reliability(pairs: Sequence[tuple[float, bool]]) -> tuple[list[Bucket], float | None]:
    """Reliability table over (confidence, right) pairs and the expected calibration error (0-1)."""
    buckets: list[Bucket] = []
    error = 0.0
    for low, high in itertools.pairwise(BUCKETS):
        inside = [(c, ok) for c, ok in pairs if low <= c < high]
        if inside:
            conf = sum(c for c, _ in inside) / len(inside)
            right = sum(ok for _, ok in inside) / len(inside)
            error += len(inside) * abs(conf - right)
            buckets.append(Bucket(low, min(high, 1.0), len(inside), conf, right))
        else:
            buckets.append(Bucket(low, min(high, 1.0), 0, None, None))
    return buckets, (error / len(pairs) if pairs else None)
