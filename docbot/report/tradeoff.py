"""What refusing more would cost: out-of-scope questions refused against answerable ones, as the gate moves.

Every answer carries the gate's margin (its first signal; negative means refused) and whether it was
explicit (explicit references are answered whatever the gate says). Moving the threshold by ``offset``
refuses every non-explicit question whose margin is below ``offset``, so one run of the report shows
the whole curve without asking again. Read on the held-out answers when there are some: the figure a
new site would see, not the one the gate was fitted to.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from docbot.report.metrics import OUT_OF_SCOPE, Question

OFFSETS = (-1.0, -0.5, 0.0, 0.5, 1.0, 2.0)  # the table's rows; 0 is the shipped threshold
OOS_TARGET = 0.90  # out-of-scope share the refusal target asks for
ANSWERABLE_LIMIT = 0.03  # answerable share the refusal target allows to be refused


@dataclass(frozen=True, slots=True)
class Point:
    offset: float
    answerable_refused: float
    oos_refused: float


@dataclass(frozen=True, slots=True)
class Tradeoff:
    answerable: int  # questions the curve counts (non-explicit questions are the ones a gate can refuse)
    out_of_scope: int
    points: tuple[Point, ...]
    best_within_limit: Point  # most out-of-scope refused while at most ANSWERABLE_LIMIT answerable are
    cheapest_for_target: Point | None  # fewest answerable refused while at least OOS_TARGET out-of-scope are
    held_out: bool

    def to_json(self) -> dict[str, Any]:
        def point(p: Point | None) -> dict[str, float] | None:
            return None if p is None else {"offset": round(p.offset, 3), "answerable_refused": p.answerable_refused,
                                           "oos_refused": p.oos_refused}

        return {"answerable": self.answerable, "out_of_scope": self.out_of_scope, "held_out": self.held_out,
                "points": [point(p) for p in self.points], "best_within_limit": point(self.best_within_limit),
                "cheapest_for_target": point(self.cheapest_for_target)}


def _margin(answer: Any) -> tuple[float, bool] | None:
    values = tuple(getattr(answer, "signals", ()) or ())
    if len(values) < 2 or getattr(answer, "status", "") == "error":
        return None
    return float(values[0]), values[1] >= 0.5


def tradeoff(questions: Sequence[Question], answers: Sequence[Any], held_out: bool = False) -> Tradeoff | None:
    """The refusal curve of these answers, or None without both answerable and out-of-scope questions."""
    inside: list[tuple[float, bool]] = []
    outside: list[tuple[float, bool]] = []
    for q, a in zip(questions, answers):
        m = _margin(a)
        if m is not None:
            (outside if q.kind == OUT_OF_SCOPE else inside).append(m)
    if not inside or not outside:
        return None

    def at(offset: float) -> Point:
        def share(rows: list[tuple[float, bool]]) -> float:
            return sum(1 for margin, explicit in rows if not explicit and margin < offset) / len(rows)
        return Point(offset, share(inside), share(outside))

    # The curve steps at each distinct margin: a threshold there refuses every margin below it; one past the
    # largest refuses them all.
    steps = sorted({margin for margin, _ in inside + outside})
    candidates = [at(s) for s in steps] + [at(steps[-1] + 1e-6)] + [at(o) for o in OFFSETS]
    within = [p for p in candidates if p.answerable_refused <= ANSWERABLE_LIMIT + 1e-12]
    best = max(within, key=lambda p: (p.oos_refused, -p.answerable_refused, -p.offset), default=at(min(steps)))
    reaching = [p for p in candidates if p.oos_refused >= OOS_TARGET - 1e-12]
    cheapest = min(reaching, key=lambda p: (p.answerable_refused, p.offset), default=None)
    return Tradeoff(
        answerable=len(inside), out_of_scope=len(outside), points=tuple(at(o) for o in OFFSETS),
        best_within_limit=best, cheapest_for_target=cheapest, held_out=held_out,
    )


def tradeoff_markdown(t: Tradeoff | None) -> list[str]:
    if t is None:
        return []
    which = "held out" if t.held_out else "in sample"
    lines = ["", f"### Refusal trade-off ({which})", "",
             (f"Moving the gate's threshold over these answers ({t.answerable} answerable, {t.out_of_scope} out of "
              "scope; explicit references are always answered):"), "",
             "| threshold | answerable refused | out of scope refused |", "|---:|---:|---:|"]
    for p in t.points:
        label = "shipped" if p.offset == 0 else f"{p.offset:+.1f}"
        lines.append(f"| {label} | {p.answerable_refused:.1%} | {p.oos_refused:.1%} |")
    b = t.best_within_limit
    lines += ["", (f"With at most {ANSWERABLE_LIMIT:.0%} of answerable questions refused, at most "
                   f"{b.oos_refused:.1%} of out-of-scope ones are (threshold {b.offset:+.2f}).")]
    c = t.cheapest_for_target
    lines.append(f"Refusing {OOS_TARGET:.0%} of out-of-scope questions costs {c.answerable_refused:.1%} of answerable "
                 f"ones (threshold {c.offset:+.2f})." if c is not None
                 else f"No threshold refuses {OOS_TARGET:.0%} of out-of-scope questions.")
    return lines
