"""One small logistic model, the type behind the gate and the confidence calibrator.

A :class:`LogisticModel` names its inputs, standardises them (``(x - mean) / scale``), weighs them and adds a
bias: the score is a log-odds, :meth:`~LogisticModel.probability` its logistic. :func:`fit` estimates one by
L2-penalised Newton steps (pure numpy, deterministic), the classes weighted equally or as they come. Models
are stored as JSON (``to_json`` / ``from_json``); a file written for other inputs is refused with the step to
take.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

L2 = 1.0  # penalty on the standardised weights (in units of one example's loss)
NEWTON_STEPS = 50
MAX_LOGIT = 30.0  # scores are clipped to this before the logistic (exp overflows far beyond it)


@dataclass(frozen=True, slots=True)
class LogisticModel:
    """Weights over named, standardised inputs, and a bias."""

    inputs: tuple[str, ...]
    weights: tuple[float, ...]
    bias: float
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    meta: Mapping[str, Any] | None = None

    @classmethod
    def constant(cls, inputs: Sequence[str], bias: float = 0.0) -> LogisticModel:
        """A model that scores every input alike (``bias``): a placeholder, or a fixed confidence in tests."""
        n = len(inputs)
        return cls(tuple(inputs), (0.0,) * n, bias, (0.0,) * n, (1.0,) * n)

    def contributions(self, values: Sequence[float]) -> tuple[float, ...]:
        """Each input's share of the score."""
        return tuple(w * (x - m) / s for w, x, m, s in zip(self.weights, values, self.mean, self.scale))

    def score(self, values: Sequence[float]) -> float:
        """The log-odds."""
        return self.bias + sum(self.contributions(values))

    def probability(self, values: Sequence[float]) -> float:
        return 1.0 / (1.0 + math.exp(-max(-MAX_LOGIT, min(MAX_LOGIT, self.score(values)))))

    def to_json(self) -> dict[str, Any]:
        return {"inputs": list(self.inputs), "weights": list(self.weights), "bias": self.bias,
                "mean": list(self.mean), "scale": list(self.scale), "meta": dict(self.meta or {})}

    @classmethod
    def from_json(cls, data: Mapping[str, Any], inputs: Sequence[str], what: str = "model") -> LogisticModel:
        """The model in ``data``, which must be over exactly ``inputs`` (else: refit it)."""
        if list(data.get("inputs", ())) != list(inputs):
            raise ValueError(f"{what} inputs {data.get('inputs')} are not {list(inputs)}: refit it "
                             "(scripts/fit_models.py)")
        return cls(tuple(inputs), tuple(map(float, data["weights"])), float(data["bias"]),
                   tuple(map(float, data["mean"])), tuple(map(float, data["scale"])), dict(data.get("meta") or {}))


def logistic(x: np.ndarray, y: np.ndarray, balanced: bool = True) -> tuple[np.ndarray, float]:
    """Weights and bias of an L2-penalised logistic regression (Newton's method), classes weighted equally
    when ``balanced`` (else every example weighs one, so probabilities match frequencies)."""
    n, d = x.shape
    pos = max(int(y.sum()), 1)
    neg = max(n - int(y.sum()), 1)
    sw = np.where(y > 0, n / (2 * pos), n / (2 * neg)) if balanced else np.ones(n)
    a = np.hstack([np.ones((n, 1)), x])
    w = np.zeros(d + 1)
    penalty = np.diag([0.0] + [L2] * d)
    for _ in range(NEWTON_STEPS):
        p = 1.0 / (1.0 + np.exp(-np.clip(a @ w, -MAX_LOGIT, MAX_LOGIT)))
        grad = a.T @ (sw * (p - y)) + penalty @ w
        hess = (a * (sw * p * (1 - p))[:, None]).T @ a + penalty
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.abs(step).max()) < 1e-9:
            break
    return w[1:], float(w[0])


def fit(inputs: Sequence[str], rows: Sequence[Sequence[float]], labels: Sequence[bool], balanced: bool,
        meta: Mapping[str, Any] | None = None) -> LogisticModel:
    """A model of ``labels`` from ``rows`` of ``inputs``, each input standardised over the rows."""
    x = np.array([list(r) for r in rows], dtype=float)
    y = np.array([1.0 if label else 0.0 for label in labels])
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    weights, bias = logistic((x - mean) / scale, y, balanced=balanced)
    return LogisticModel(tuple(inputs), tuple(map(float, weights)), bias, tuple(map(float, mean)),
                         tuple(map(float, scale)), dict(meta or {}))
