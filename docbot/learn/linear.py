"""One small linear model, the type behind the gate, the confidence calibrator and the ranker.

A :class:`LinearModel` names its inputs, standardises them (``(x - mean) / scale``), weighs them and adds a bias:
the score is a log-odds, :meth:`~LinearModel.probability` its logistic. It is fitted by L2-penalised Newton steps
on a logistic loss (pure numpy, deterministic), in two shapes:

- :func:`fit`: one row per example and its label (the gate, the confidence), the classes weighted equally or as
  they come;
- :func:`fit_pairs`: groups of rows (a question's candidates) with which of them are right; every right row should
  score above every wrong one of its group (the ranker: RankNet with a linear score, no bias). Each group weighs
  what the caller says, however many pairs it has.

:func:`leave_one_site_out` gives, for each site, a model fitted without it: docbot is measured on sites it was not
fitted on. Models are stored as JSON (``to_json`` / ``from_json``); a file written for other inputs is refused with
the step to take.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

L2 = 1.0  # default penalty on the standardised weights (in units of one example's loss)
NEWTON_STEPS = 50
TOLERANCE = 1e-9  # Newton stops once no weight moves more than this
MAX_LOGIT = 30.0  # scores are clipped to this before the logistic (exp overflows far beyond it)

T = TypeVar("T")
M = TypeVar("M")


@dataclass(frozen=True, slots=True)
class LinearModel:
    """Weights over named, standardised inputs, and a bias."""

    inputs: tuple[str, ...]
    weights: tuple[float, ...]
    bias: float
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    meta: Mapping[str, Any] | None = None

    @classmethod
    def constant(cls, inputs: Sequence[str], bias: float = 0.0) -> LinearModel:
        """A model that scores every input alike (``bias``): a placeholder, or a fixed confidence in tests."""
        n = len(inputs)
        return cls(tuple(inputs), (0.0,) * n, bias, (0.0,) * n, (1.0,) * n)

    def contributions(self, values: Sequence[float]) -> tuple[float, ...]:
        """Each input's share of the score."""
        return tuple(w * (x - m) / s for w, x, m, s in zip(self.weights, values, self.mean, self.scale, strict=True))

    def score(self, values: Sequence[float]) -> float:
        """The log-odds."""
        return self.bias + sum(self.contributions(values))

    def probability(self, values: Sequence[float]) -> float:
        return 1.0 / (1.0 + math.exp(-max(-MAX_LOGIT, min(MAX_LOGIT, self.score(values)))))

    def to_json(self) -> dict[str, Any]:
        return {"inputs": list(self.inputs), "weights": list(self.weights), "bias": self.bias,
                "mean": list(self.mean), "scale": list(self.scale), "meta": dict(self.meta or {})}

    @classmethod
    def from_json(cls, data: Mapping[str, Any], inputs: Sequence[str], what: str = "model") -> LinearModel:
        """The model in ``data``, which must be over exactly ``inputs`` (else: refit it)."""
        if list(data.get("inputs", ())) != list(inputs):
            raise ValueError(f"{what} inputs {data.get('inputs')} are not {list(inputs)}: refit it "
                             "(scripts/fit_models.py)")
        return cls(tuple(inputs), tuple(map(float, data["weights"])), float(data["bias"]),
                   tuple(map(float, data["mean"])), tuple(map(float, data["scale"])), dict(data.get("meta") or {}))


def newton(x: np.ndarray, y: np.ndarray, sample: np.ndarray, l2: float = L2, intercept: bool = True,
           tolerance: float = TOLERANCE) -> tuple[np.ndarray, float]:
    """Weights and bias minimising the ``sample``-weighted logistic loss of ``y`` given ``x`` plus ``l2``·|w|²/2
    (the bias, when there is one, is not penalised); 0.0 for the bias when ``intercept`` is off."""
    n, d = x.shape
    a = np.hstack([np.ones((n, 1)), x]) if intercept else x
    w = np.zeros(a.shape[1])
    penalty = np.diag([0.0] * intercept + [l2] * d)
    for _ in range(NEWTON_STEPS):
        p = 1.0 / (1.0 + np.exp(-np.clip(a @ w, -MAX_LOGIT, MAX_LOGIT)))
        grad = a.T @ (sample * (p - y)) + penalty @ w
        hess = (a * (sample * p * (1 - p))[:, None]).T @ a + penalty
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.abs(step).max()) < tolerance:
            break
    return (w[1:], float(w[0])) if intercept else (w, 0.0)


def standardised(rows: Sequence[Sequence[float]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rows as a matrix, their mean and their scale (the standard deviation; 1 where an input is constant)."""
    x = np.array([list(r) for r in rows], dtype=float)
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    return x, mean, scale


def fit(inputs: Sequence[str], rows: Sequence[Sequence[float]], labels: Sequence[bool], balanced: bool,
        meta: Mapping[str, Any] | None = None, l2: float = L2) -> LinearModel:
    """A model of ``labels`` from ``rows`` of ``inputs``, each input standardised over the rows; the classes weigh
    the same when ``balanced`` (else every example weighs one, so probabilities match frequencies)."""
    x, mean, scale = standardised(rows)
    y = np.array([1.0 if label else 0.0 for label in labels])
    n = len(y)
    pos, neg = max(int(y.sum()), 1), max(n - int(y.sum()), 1)
    sample = np.where(y > 0, n / (2 * pos), n / (2 * neg)) if balanced else np.ones(n)
    weights, bias = newton((x - mean) / scale, y, sample, l2)
    return LinearModel(tuple(inputs), tuple(map(float, weights)), bias, tuple(map(float, mean)),
                       tuple(map(float, scale)), dict(meta or {}))


def fit_pairs(inputs: Sequence[str], groups: Sequence[tuple[Sequence[Sequence[float]], Sequence[bool], float]],
              l2: float, meta: Mapping[str, Any] | None = None, tolerance: float = TOLERANCE) -> LinearModel:
    """A bias-free model under which each group's right rows score above its wrong ones: groups are (rows,
    which are right, the group's weight), the weight shared among its pairs; rows standardised over all groups.
    Groups without both a right and a wrong row teach nothing and only count towards the standardisation."""
    x, mean, scale = standardised([r for rows, _, _ in groups for r in rows])
    diffs: list[np.ndarray] = []
    sample: list[np.ndarray] = []
    start = 0
    for rows, labels, weight in groups:
        z = (x[start:start + len(rows)] - mean) / scale
        start += len(rows)
        pos = [i for i, y in enumerate(labels) if y]
        neg = [i for i, y in enumerate(labels) if not y]
        if not pos or not neg:
            continue
        d = (z[pos][:, None, :] - z[neg][None, :, :]).reshape(-1, z.shape[1])
        diffs.append(d)
        sample.append(np.full(len(d), weight / len(d)))
    if not diffs:
        raise ValueError("fitting a ranking needs groups with a right and a wrong row")
    pairs = np.vstack(diffs)
    weights, _ = newton(pairs, np.ones(len(pairs)), np.concatenate(sample), l2, intercept=False, tolerance=tolerance)
    return LinearModel(tuple(inputs), tuple(map(float, weights)), 0.0, tuple(map(float, mean)),
                       tuple(map(float, scale)), dict(meta or {}))


def leave_one_site_out(items: Sequence[T], site_of: Callable[[T], str], fit_without: Callable[[list[T]], M],
                       sites: Sequence[str] | None = None) -> dict[str, M]:
    """For each site (of ``items``, or those named), what ``fit_without`` makes of every other site's items."""
    names = sorted({site_of(i) for i in items} if sites is None else set(sites))
    return {site: fit_without([i for i in items if site_of(i) != site]) for site in names}
