from __future__ import annotations

import random

import pytest

from docbot.answering.confidence import SIGNALS, fit, load, reliability, signals
from docbot.learn.linear import LinearModel


def test_signals_read_the_gate_margin_explicitness_and_how_clearly_the_first_section_wins() -> None:
    assert signals(1.5, True, [0.04, 0.03]) == (1.5, 1.0, pytest.approx(0.25))
    assert signals(-50.0, False, []) == (-10.0, 0.0, 0.0)  # clipped; no sections, no gap


def test_reliability_table_and_calibration_error() -> None:
    pairs = [(0.9, True)] * 9 + [(0.9, False)] + [(0.3, True)] * 3 + [(0.3, False)] * 7
    buckets, ece = reliability(pairs)
    high = next(b for b in buckets if b.low == 0.8)
    assert high.answers == 10 and high.right == pytest.approx(0.9) and high.confidence == pytest.approx(0.9)
    assert ece == pytest.approx(0.0)
    _, off = reliability([(0.9, False)] * 10)
    assert off == pytest.approx(0.9)
    assert reliability([]) == (list(reliability([])[0]), None)


def test_a_fitted_calibrator_matches_observed_frequencies() -> None:
    rng = random.Random(7)
    rows = []
    for _ in range(600):  # the primary is right with probability rising in the gate margin
        margin = rng.uniform(-2, 4)
        rows.append(((margin, 0.0, 0.1), rng.random() < 1 / (1 + 2.718 ** -(margin - 1))))
    calibrator = fit(rows)
    assert calibrator.probability((4.0, 0.0, 0.1)) > 0.9 > 0.2 > calibrator.probability((-2.0, 0.0, 0.1))
    _, ece = reliability([(calibrator.probability(v), ok) for v, ok in rows])
    assert ece is not None and ece < 0.06


def test_shipped_calibrator_loads_and_rises_with_the_gate_margin() -> None:
    shipped = load()
    assert shipped.meta and shipped.meta["answers"] > 0
    assert shipped.probability((8.0, 0.0, 0.1)) > shipped.probability((0.5, 0.0, 0.1))
    assert LinearModel.from_json(shipped.to_json(), SIGNALS) == shipped
    with pytest.raises(ValueError, match="refit"):
        LinearModel.from_json({**shipped.to_json(), "inputs": ["margin"]}, SIGNALS)
