"""The answerable labelled questions of indexed sites, each with what a right section is (for fitting and measuring
rankers: ``scripts/fit_ranker.py``, ``scripts/eval_rank_model.py``)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from docbot.answering.question import clean_question
from docbot.config import load_settings
from docbot.pipeline import Pipeline
from docbot.report.metrics import OUT_OF_SCOPE, Question, normalize_link
from docbot.report.run import load_questions
from docbot.retrieval.resolve import Target


@dataclass(frozen=True)
class Asked:
    question: Question
    text: str  # the question as docbot reads it
    targets: list[Target]  # what it names outright (strong) or may mention in passing (weak)
    right: Callable[[str], bool]  # whether a deep URL is the gold section or an accepted one

    @property
    def named(self) -> set[str]:
        return {t.deep_url for t in self.targets if t.strong}


def answerable(sets: list[list[str]]) -> Iterator[tuple[Pipeline, Asked]]:
    """For each (data dir, anchor maps dir, questions file): its pipeline and answerable questions of indexed sites."""
    for data_dir, maps_dir, path in sets:
        pipeline = Pipeline.from_settings(load_settings(data_dir, maps_dir))
        for q in load_questions(path):
            if q.kind == OUT_OF_SCOPE or q.site not in pipeline.index.sites():
                continue
            text, _ = clean_question(q.question)
            base = pipeline.maps[q.site].base_url
            want = {normalize_link(link, base) for link in (*q.gold, *q.accept)}
            targets = pipeline.views.current().resolver.resolve(text, [q.site])
            yield pipeline, Asked(q, text, targets, functools.partial(_within, base, frozenset(want)))


def _within(base: str, want: frozenset[str], url: str) -> bool:
    return normalize_link(url, base) in want
