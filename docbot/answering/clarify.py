"""When to ask back instead of guessing: pure rules over one question's retrieval results.

A question is ambiguous when the docs answer it in clearly different places and
nothing in the retrieval prefers one: several documentation sets (or, within one
site, pages on unrelated topics) each have a section that

* scores close to the best one in the fused ranking (:data:`SITE_SCORE_GAP`, relative
  to this question's own best score), and
* holds nearly all of the question's own words (:data:`MIN_COVERAGE`, IDF-weighted,
  as the gate measures coverage).

The second test is what separates "How do I set a timeout?" (three sites each have
a "timeout" section that is all the question asks about) from a specific question
whose runner-up site merely shares some of its words. Within one site the options
must also be on different pages whose titles share little (:data:`TITLE_OVERLAP`)
and of the same source type: two sections of one topic, or a guide and the API entry it
describes, are one answer, not a choice. An explicit reference (a
pasted link, an API name) or a confident answer (:data:`MAX_CONFIDENCE`) never asks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from docbot.answering.gate import coverage, hit_text
from docbot.retrieval.hybrid import Hit
from docbot.text.words import tokenize

SITE_SCORE_GAP = 0.2  # an option's section scores at least (1 - this) × the best fused score
PAGE_SCORE_GAP = 0.1  # within one site the sections must be closer still
MIN_COVERAGE = 0.85  # share of the question's words (IDF-weighted) an option's section must hold
TITLE_OVERLAP = 0.34  # within one site: page titles sharing more of their words than this are one topic
# ... and so are sections whose own titles share more than half their words: a task's option and the setting of
# its default (Celery's Task.time_limit and task_time_limit), a setting and its attribute (Flask's DEBUG and
# Flask.debug), one subject on two pages (Quickstart › Static Files and Static Files)
SECTION_OVERLAP = 0.5
MAX_CONFIDENCE = 0.9  # a more confident answer is given as it is
MIN_OPTIONS = 2
MAX_OPTIONS = 4
LABEL_CHARS = 60
ACROSS_SITES = "Your question is answered differently by several documentation sets. Which one do you mean?"
WITHIN_SITE = "Your question matches different topics in the docs. Which one do you mean?"


@dataclass(frozen=True, slots=True)
class Option:
    """One reading of the question: the section that answers it, and a short label."""

    label: str
    hit: Hit


@dataclass(frozen=True, slots=True)
class Ambiguity:
    """Clearly different readings of a question, each with the section that answers it."""

    question: str
    options: tuple[Option, ...]


def label(hit: Hit, with_site: bool) -> str:
    """``site: Page › Section`` (the last two path parts, or only the last when that is too long), shortened."""
    prefix = f"{hit.site}: " if with_site else ""
    text = prefix + (" › ".join(hit.path[-2:]) if hit.path else hit.title)
    if len(text) > LABEL_CHARS and hit.path:
        text = prefix + hit.path[-1]
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1].rstrip() + "…"


def _covers(question: str, hit: Hit, doc_freq: Mapping[str, int], docs: int, minimum: float) -> bool:
    return coverage(question, [hit_text(hit)], doc_freq, docs) >= minimum


def _title_words(hit: Hit) -> frozenset[str]:
    return frozenset(tokenize(hit.path[0] if hit.path else hit.title))


def _overlap(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / min(len(a), len(b)) if a and b else 0.0


def across_sites(question: str, hits: Sequence[Hit], doc_freq: Mapping[str, int], docs: int,
                 gap: float = SITE_SCORE_GAP, minimum: float = MIN_COVERAGE) -> Ambiguity | None:
    """Options when the best sections of different sites score alike and each answers the whole question."""
    best: dict[str, Hit] = {}
    for hit in hits:
        best.setdefault(hit.site, hit)
    return _choose(question, list(best.values()), doc_freq, docs, gap, minimum, ACROSS_SITES, with_site=True)


def within_site(question: str, hits: Sequence[Hit], doc_freq: Mapping[str, int], docs: int,
                gap: float = PAGE_SCORE_GAP, minimum: float = MIN_COVERAGE,
                with_site: bool = False) -> Ambiguity | None:
    """Options when sections of unrelated pages of one site score alike and each answers the whole question
    (``with_site``: labels name the site, for a question that named none)."""
    distinct: list[tuple[Hit, frozenset[str], frozenset[str]]] = []  # each with its page's and its own title words
    for hit in hits:
        if distinct and hit.source_type != distinct[0][0].source_type:
            continue  # a guide and the API entry it describes are one answer told twice, not two meanings
        words, own = _title_words(hit), frozenset(tokenize(hit.title))
        if all(h.url != hit.url and _overlap(words, h_words) <= TITLE_OVERLAP and _overlap(own, h_own) <= SECTION_OVERLAP
               for h, h_words, h_own in distinct):
            distinct.append((hit, words, own))
    return _choose(question, [h for h, _, _ in distinct], doc_freq, docs, gap, minimum, WITHIN_SITE, with_site)


def _choose(question: str, candidates: Sequence[Hit], doc_freq: Mapping[str, int], docs: int, gap: float,
            minimum: float, ask: str, with_site: bool) -> Ambiguity | None:
    if len(candidates) < MIN_OPTIONS or candidates[0].score <= 0:
        return None
    top = candidates[0].score
    close = [h for h in candidates if h.score >= (1 - gap) * top]
    options = [h for h in close if _covers(question, h, doc_freq, docs, minimum)][:MAX_OPTIONS]
    if len(options) < MIN_OPTIONS or options[0] is not candidates[0]:
        return None  # the best section itself must be one of the readings
    return Ambiguity(ask, tuple(Option(label(h, with_site), h) for h in options))

