"""Fit the ranker (:class:`docbot.retrieval.ranker.Ranker`) on labelled questions, and leave one site out.

Each labelled question gives its candidate sections' feature rows and which of them the question's gold
(or accepted) links name. The model is a pairwise logistic regression (RankNet with a linear score): for
every right section and every wrong one of the same question, the odds that the right one scores higher
are ``exp(w·(x_right − x_wrong))``. Every question weighs the same however many pairs it has, and every
site the same however many questions, so a site with many questions cannot teach its own habits to the
rest. L2-penalised, Newton's method (:func:`docbot.learn.linear.fit_pairs`), deterministic. Pure numpy.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from docbot.learn import linear
from docbot.retrieval.features import FEATURES
from docbot.retrieval.ranker import DEPTH, Ranker

ANSWER_SECTIONS = 5  # the pipeline's k
L2 = 10.0  # penalty on the standardised weights (chosen leave one site out among 0.3-10: scripts/fit_ranker.py --l2)
TOLERANCE = 1e-8  # Newton's stopping step


@dataclass(frozen=True, slots=True)
class Labelled:
    """One question's candidates in retrieval's order: their features, and which are right.

    ``explicit``: whether each section the question names outright (answered first, before any candidate) is
    right; ``weak``: the same for a name that may be mentioned in passing (second, unless the answer's
    sections already hold it: ``weak_at`` is its position among the candidates, -1 when it is none of them).
    """

    site: str
    id: str
    rows: tuple[tuple[float, ...], ...]
    labels: tuple[bool, ...]
    explicit: tuple[bool, ...] = ()
    weak: tuple[bool, ...] = ()
    weak_at: tuple[int, ...] = ()
    keys: tuple[str, ...] = ()  # the candidates' deep URLs (for reading what was ranked)

    def to_json(self) -> dict[str, Any]:
        return {"site": self.site, "id": self.id, "rows": [list(r) for r in self.rows], "labels": list(self.labels),
                "explicit": list(self.explicit), "weak": list(self.weak), "weak_at": list(self.weak_at),
                "keys": list(self.keys)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Labelled:
        return cls(str(data["site"]), str(data["id"]), tuple(tuple(map(float, r)) for r in data["rows"]),
                   tuple(map(bool, data["labels"])), tuple(map(bool, data.get("explicit", ()))),
                   tuple(map(bool, data.get("weak", ()))), tuple(map(int, data.get("weak_at", ()))),
                   tuple(map(str, data.get("keys", ()))))


def final_labels(q: Labelled, order: Sequence[int], k: int = ANSWER_SECTIONS) -> list[bool]:
    """Whether each of the answer's sections is right, in the answer's order (as the pipeline orders them)."""
    shown = list(order[:k])
    out = list(q.explicit) + [q.labels[i] for i in shown]
    for w, at in zip(q.weak, q.weak_at or (-1,) * len(q.weak)):
        if at not in shown:
            out.insert(min(1, len(out)), w)
    return out[:k]


def hits(q: Labelled, order: Sequence[int]) -> tuple[bool, bool]:
    """(right section in the first three, right section first) for the candidates in ``order``."""
    final = final_labels(q, order)
    return any(final[:3]), bool(final[:1] and final[0])


def ceiling(q: Labelled, depth: int = DEPTH) -> tuple[bool, bool]:
    """What a perfect ordering of the first ``depth`` candidates would reach."""
    best = sorted(range(min(depth, len(q.rows))), key=lambda i: not q.labels[i])
    return hits(q, best)


def fit(questions: Sequence[Labelled], l2: float = L2, depth: int = DEPTH, meta: Mapping[str, Any] | None = None) -> Ranker:
    """A ranker fitted on ``questions`` (those with a right and a wrong candidate in the first ``depth``)."""
    if not any(q.rows[:depth] for q in questions):
        raise ValueError("fitting the ranker needs labelled candidates")
    def teaches(q: Labelled) -> bool:
        return any(q.labels[:depth]) and not all(q.labels[:depth])

    usable = [q for q in questions if teaches(q)]
    if not usable:
        raise ValueError("fitting the ranker needs questions with a right and a wrong candidate")
    per_site = Counter(q.site for q in usable)
    sites = {q.site for q in questions}
    share = len(sites) / len(per_site)  # every site weighs 1, shared by its questions
    groups = [(q.rows[:depth], q.labels[:depth], share / per_site[q.site] if teaches(q) else 0.0)
              for q in questions]
    info = {"questions": len(usable), "sites": sorted(sites), "l2": l2, **dict(meta or {})}
    return Ranker(linear.fit_pairs(FEATURES, groups, l2, info, tolerance=TOLERANCE), depth)


def evaluate(model: Ranker | None, questions: Sequence[Labelled]) -> tuple[int, int]:
    """(hit@3, hit@1) over ``questions`` with the candidates ordered by ``model`` (None: retrieval's order)."""
    h3 = h1 = 0
    for q in questions:
        n = min(model.depth, len(q.rows)) if model else len(q.rows)
        order = model.order(q.rows[:n]) + list(range(n, len(q.rows))) if model else list(range(len(q.rows)))
        a, b = hits(q, order)
        h3, h1 = h3 + a, h1 + b
    return h3, h1


def leave_one_site_out(questions: Sequence[Labelled], l2: float = L2, depth: int = DEPTH) -> dict[str, Ranker]:
    """For each site, the ranker fitted on every other site's questions."""
    return linear.leave_one_site_out(questions, lambda q: q.site, lambda rest: fit(rest, l2, depth))
