"""The report's refusal trade-off: what refusing more out-of-scope questions would cost in answerable ones."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from docbot.answer import Status
from docbot.report.metrics import Question, Thresholds, compute_metrics
from docbot.report.render import ReportData, render_json, render_markdown
from docbot.report.tradeoff import tradeoff


def q(n: int, kind: str = "semantic") -> Question:
    return Question(id=f"q{n}", site="s", kind=kind, question=f"question {n}?", gold=("a.html#x",))


def a(margin: float, explicit: bool = False, status: str | None = None) -> SimpleNamespace:
    status = status or (Status.ANSWERED if margin >= 0 or explicit else Status.NOT_COVERED)
    return SimpleNamespace(status=status, signals=(margin, 1.0 if explicit else 0.0, 0.2))


def test_curve_counts_refusals_as_the_threshold_moves() -> None:
    questions = [q(i) for i in range(4)] + [q(10 + i, "out_of_scope") for i in range(2)]
    answers = [a(2.0), a(1.2), a(0.3), a(-0.6), a(0.8), a(-1.5)]
    t = tradeoff(questions, answers)
    assert t is not None and (t.answerable, t.out_of_scope) == (4, 2)
    shipped = next(p for p in t.points if p.offset == 0)
    assert (shipped.answerable_refused, shipped.oos_refused) == (0.25, 0.5)  # what the gate does today
    raised = next(p for p in t.points if p.offset == 1.0)
    assert (raised.answerable_refused, raised.oos_refused) == (0.5, 1.0)


def test_best_within_limit_and_cheapest_for_target() -> None:
    # 40 answerable with margins 0.1..4.0, 10 out of scope with margins -2.0..2.5: refusing 90 % of
    # them needs the threshold above 2.0, which refuses the 20 answerable questions below it.
    questions = [q(i) for i in range(40)] + [q(100 + i, "out_of_scope") for i in range(10)]
    answers = [a(0.1 * (i + 1)) for i in range(40)] + [a(-2.0 + 0.5 * i) for i in range(10)]
    t = tradeoff(questions, answers)
    assert t is not None
    assert t.best_within_limit.answerable_refused <= 0.03
    assert t.best_within_limit.oos_refused == pytest.approx(0.5)  # margins -2.0 .. 0.0 plus 0.1 would cost one
    assert t.cheapest_for_target is not None
    assert t.cheapest_for_target.oos_refused >= 0.9
    assert t.cheapest_for_target.answerable_refused == pytest.approx(0.5)


def test_explicit_answers_are_never_refused_and_errors_are_skipped() -> None:
    questions = [q(0), q(1), q(2), q(3, "out_of_scope")]
    answers = [a(-3.0, explicit=True), a(0.5), SimpleNamespace(status=Status.ERROR, signals=()), a(0.2)]
    t = tradeoff(questions, answers)
    assert t is not None and t.answerable == 2  # the error has no margin to move
    assert all(p.answerable_refused <= 0.5 for p in t.points)  # the explicit one stays answered at +2
    assert tradeoff([q(0)], [a(1.0)]) is None  # no out-of-scope questions: no curve


def test_report_shows_the_tradeoff_in_markdown_and_json() -> None:
    questions = [q(i) for i in range(4)] + [q(10 + i, "out_of_scope") for i in range(2)]
    answers = [a(2.0), a(1.2), a(0.3), a(-0.6), a(0.8), a(-1.5)]
    data = ReportData(metrics=compute_metrics([]), thresholds=Thresholds(), failures=(), questions=(),
                      tradeoff=tradeoff(questions, answers, held_out=True))
    md = render_markdown(data)
    assert "### Refusal trade-off (held out)" in md
    assert "| shipped | 25.0% | 50.0% |" in md
    assert "Refusing 90% of out-of-scope questions costs 50.0% of answerable ones" in md
    body = json.loads(render_json(data))["refusal_tradeoff"]
    assert body["held_out"] is True and body["cheapest_for_target"]["answerable_refused"] == 0.5
