"""The learned ranker: orders the first :data:`DEPTH` candidate sections by a linear score over their features.

A pairwise logistic model (:class:`docbot.learn.linear.LinearModel` without a bias, fitted by
:mod:`docbot.retrieval.ranker_fit`, leave one site out over every labelled site, shipped as ``ranker_model.json``):
the score of a section is ``Σ wᵢ·(xᵢ − meanᵢ)/scaleᵢ`` over
:data:`docbot.retrieval.features.FEATURES`, and a section scoring higher than another is the better answer by
odds ``exp(difference)``. Simple enough to read: each weight says what one unit of a standardised feature is
worth. Pure.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from docbot.learn.linear import LinearModel
from docbot.retrieval.features import FEATURES

MODEL_FILE = "ranker_model.json"
DEPTH = 10  # candidates the ranker orders (chosen leave one site out among 10-50; the rest keep their order)


@dataclass(frozen=True, slots=True)
class Ranker:
    """A linear score over standardised features; ``depth`` candidates are re-ordered by it."""

    model: LinearModel
    depth: int = DEPTH

    @property
    def meta(self) -> Mapping[str, Any]:
        return self.model.meta or {}

    def score(self, row: Sequence[float]) -> float:
        return self.model.score(row)

    def order(self, rows: Sequence[Sequence[float]]) -> list[int]:
        """Positions of ``rows`` best first (ties keep retrieval's order)."""
        scores = [self.score(r) for r in rows]
        return sorted(range(len(rows)), key=lambda i: (-scores[i], i))

    def to_json(self) -> dict[str, Any]:
        m = self.model
        return {"features": list(m.inputs), "weights": list(m.weights), "mean": list(m.mean),
                "scale": list(m.scale), "depth": self.depth, "meta": dict(self.meta)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Ranker:
        names = tuple(data["features"])
        if names != FEATURES:
            raise ValueError(f"ranker model features {names} are not docbot's {FEATURES}: refit with "
                             "scripts/fit_ranker.py")
        model = LinearModel(names, tuple(map(float, data["weights"])), 0.0, tuple(map(float, data["mean"])),
                            tuple(float(s) or 1.0 for s in data["scale"]), dict(data.get("meta", {})))
        return cls(model, int(data.get("depth", DEPTH)))

    @classmethod
    def load(cls, path: Path | None = None) -> Ranker | None:
        """The model at ``path``, or the one shipped with docbot; None when there is none."""
        try:
            text = (Path(path).read_text(encoding="utf-8") if path
                    else resources.files("docbot.retrieval").joinpath(MODEL_FILE).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        return cls.from_json(json.loads(text))
