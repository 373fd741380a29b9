"""Held-out figures: every site's questions answered by a gate fitted on the other sites only.

The gate is the one part of the pipeline fitted to labelled questions
(:mod:`docbot.answering.gate_fit`); the figures that predict a site nobody has labelled
are the ones where the site's own questions played no part in the fit. The
pipeline's gate is swapped per fold and restored afterwards. Like the shipped
gate, every fold also learns from the evidence of our own questions on large
sites outside the dev set (``docbot/gate_examples.jsonl``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, Protocol

from docbot.answering.gate import Evidence, GateModel
from docbot.answering.gate_fit import Example, leave_one_site_out, load_examples
from docbot.report.metrics import OUT_OF_SCOPE, Question

log = logging.getLogger(__name__)


class GatedPipeline(Protocol):
    gate: GateModel

    def ask(self, question: str, site: str | None = None) -> Any: ...

    def evidence(self, question: str, site: str) -> Evidence: ...


def collect_examples(pipeline: GatedPipeline, questions: Sequence[Question]) -> list[Example]:
    """Each question's site-scaled gate evidence, labelled answerable or out of scope."""
    return [Example(q.site, pipeline.evidence(q.question, q.site), q.kind != OUT_OF_SCOPE) for q in questions]


def held_out_answers(pipeline: GatedPipeline, questions: Sequence[Question],
                     extra: Sequence[Example] | None = None) -> list[Any] | None:
    """Answers in question order, each from a gate fitted without its site; None when that can't be fitted.

    Each fold also trains on ``extra`` examples of other sites (default: the ones the shipped gate learnt from,
    :func:`docbot.answering.gate_fit.load_examples`), as the shipped gate did; those of the measured sites are left out."""
    sites = {q.site for q in questions}
    extra = [e for e in (load_examples() if extra is None else extra) if e.site not in sites]
    try:
        folds = leave_one_site_out(collect_examples(pipeline, questions), extra)
    except ValueError as exc:  # a fold without out-of-scope (or answerable) questions
        log.warning("no held-out figures: %s", exc)
        return None
    shipped = pipeline.gate
    answers: list[Any] = [None] * len(questions)
    try:
        for site, model in folds.items():
            pipeline.gate = model
            for i, q in enumerate(questions):
                if q.site == site:
                    answers[i] = pipeline.ask(q.question, site=q.site)
    finally:
        pipeline.gate = shipped
    return answers
