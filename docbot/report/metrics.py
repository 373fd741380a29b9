"""Score answers against eval questions and validator outcomes against link-repair cases.

Pure functions over plain data: no HTTP, no pipeline. Links are compared after
resolving them against the site's base URL and spelling ``dir/`` as
``dir/index.html`` (:func:`crawlers.urls.normalize`); fragments stay case-sensitive.
All rates are percentages (0-100); a rate over nothing is ``None``.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from crawlers.urls import is_route, join, normalize, split_fragment
from docbot.answer import (  # ANSWERING: a clarifying question comes with a best-effort answer
    ANSWERING,
    LinkAction,
    Status,
)
from docbot.report.directive_figures import directive_failures, directive_rates, failing_links
from docbot.report.facts import answer_figures

OUT_OF_SCOPE = "out_of_scope"
NOT_COVERED = Status.NOT_COVERED
CLARIFY = Status.NEEDS_CLARIFICATION
ACTION_OF = {"keep": LinkAction.KEPT, "rewrite": LinkAction.REWRITTEN, "drop_fragment": LinkAction.FRAGMENT_DROPPED,
             "drop_link": LinkAction.LINK_DROPPED}  # an eval case's expected action → the validator's
STAGES = ("resolve", "retrieve", "generate", "validate", "total")


@dataclass(frozen=True, slots=True)
class Question:
    """One eval question; ``gold``/``accept`` are links relative to the site root."""

    id: str
    site: str
    kind: str
    question: str
    gold: tuple[str, ...] = ()
    accept: tuple[str, ...] = ()
    facts: tuple[str, ...] = ()  # what a correct answer must state (answer_facts)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Question:
        return cls(
            id=str(data["id"]),
            site=str(data["site"]),
            kind=str(data.get("kind", "semantic")),
            question=str(data["question"]),
            gold=tuple(data.get("gold") or ()),
            accept=tuple(data.get("accept") or ()),
            facts=tuple(data.get("answer_facts") or ()),
        )


@dataclass(frozen=True, slots=True)
class RepairCase:
    """One link-repair case; ``expected`` is ``None`` when the link should be dropped."""

    id: str
    site: str
    input: str
    expected: str | None
    action: str
    category: str
    also_ok: tuple[str, ...] = ()

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RepairCase:
        return cls(
            id=str(data["id"]),
            site=str(data["site"]),
            input=str(data["input"]),
            expected=data.get("expected"),
            action=str(data["action"]),
            category=str(data.get("category", "other")),
            also_ok=tuple(data.get("also_ok") or ()),
        )


@dataclass(frozen=True, slots=True)
class QuestionResult:
    """What the pipeline did for one question, with the live check of each emitted link."""

    question: Question
    base_url: str
    status: str
    links: tuple[str, ...]  # emitted reference URLs, in citation order
    live_ok: tuple[bool, ...]  # one per link: page and fragment exist in the served HTML
    timings_ms: Mapping[str, float] = field(default_factory=dict)
    live_reasons: tuple[str, ...] = ()
    error: str | None = None
    answer: str = ""  # the answer text, for the answer figures
    flagged: bool = False  # answered with the "may not cover" line (docbot.answering.gate.FLAG_LINE)
    quoted: tuple[bool, ...] = ()  # one per link: the answer quotes that source
    directives: tuple[str | None, ...] = ()  # one per link: its text directive by the independent check ("ok"/why)
    own_directives: tuple[str | None, ...] = ()  # the same by docbot's ReferenceValidator
    live_directives: tuple[str | None, ...] = ()  # the same by docbot's own rule on the page as served now (stale?)
    generator: str = ""  # "llm" or "extractive" (docbot.answer.Answer.generator)
    fallback: str | None = None  # why the LLM's answer was not used (docbot.answer.Answer.fallback)


@dataclass(frozen=True, slots=True)
class CaseResult:
    """What the validator did to one repair case."""

    case: RepairCase
    base_url: str
    action: str  # kept | rewritten | fragment_dropped | link_dropped
    output: str | None
    reason: str = ""


def normalize_link(link: str, base_url: str) -> str:
    """Canonical absolute form of ``link`` (relative to ``base_url``): normalised page + '#fragment'. A hash route
    (docsify's ``#/guide?id=x``) is kept: on a site whose pages are routes it is the place, as a fragment is."""
    page, frag = split_fragment(join(base_url, link), routes=True)
    try:
        page = normalize(page)
    except ValueError:
        pass
    return f"{page}#{frag}" if frag else page


def page_of(link: str, base_url: str) -> str:
    """The page of ``link``: its URL without the fragment, or with only the route when the fragment is a hash route
    (``index.html#/guide?id=x`` → ``index.html#/guide``: on such a site each route is a page)."""
    return _page(normalize_link(link, base_url))


def _page(link: str) -> str:
    page, _, fragment = link.partition("#")
    return f"{page}#{fragment.partition('?')[0]}" if is_route(fragment) else page


def targets(question: Question, base_url: str) -> frozenset[str]:
    return frozenset(normalize_link(link, base_url) for link in (*question.gold, *question.accept))


def is_hit(result: QuestionResult, k: int) -> bool:
    """The question was answered and a gold or accepted section is among its first ``k`` links.

    A refusal ("not covered", with the closest topics as links) is a miss even when a topic is right:
    the person asking got no answer.
    """
    if result.status == NOT_COVERED:
        return False
    want = targets(result.question, result.base_url)
    return any(normalize_link(u, result.base_url) in want for u in result.links[:k])


def is_page_hit(result: QuestionResult, k: int) -> bool:
    """The question was answered and a page of a gold or accepted section is among its first ``k`` links."""
    if result.status == NOT_COVERED:
        return False
    want = {_page(link) for link in targets(result.question, result.base_url)}
    return any(page_of(u, result.base_url) in want for u in result.links[:k])


def is_case_right(result: CaseResult) -> bool:
    """Right action, and the output equals the expected link or an also-ok one."""
    case = result.case
    if ACTION_OF.get(case.action) != result.action:
        return False
    if case.expected is None:
        return result.output is None
    if result.output is None:
        return False
    got = normalize_link(result.output, result.base_url)
    return any(got == normalize_link(link, result.base_url) for link in (case.expected, *case.also_ok))


def is_wrong_rewrite(result: CaseResult) -> bool:
    """The validator rewrote the link to a target that is neither the expected nor an also-ok link."""
    if result.action != LinkAction.REWRITTEN:
        return False
    if result.output is None or result.case.expected is None:
        return True
    got = normalize_link(result.output, result.base_url)
    return all(got != normalize_link(link, result.base_url) for link in (result.case.expected, *result.case.also_ok))


def rate(hits: int, total: int) -> float | None:
    return None if total == 0 else 100.0 * hits / total


def percentile(values: Sequence[float], p: float) -> float | None:
    """Nearest-rank percentile (p in 0-100) of ``values``; ``None`` when empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100.0 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


@dataclass(frozen=True, slots=True)
class Metrics:
    """Every figure of the reference-accuracy report (percentages; ms for latency)."""

    questions: int
    in_scope: int
    out_of_scope: int
    links: int
    valid_links: int
    link_validity: float | None
    hit1: float | None
    hit3: float | None
    page_hit3: float | None
    refusal: float | None  # out-of-scope questions answered not_covered
    false_refusal: float | None  # in-scope questions answered not_covered
    flagged: float | None = None  # out-of-scope questions refused or answered flagged
    false_flag: float | None = None  # in-scope questions answered flagged
    cases: int = 0
    repair: float | None = None
    repair_by_category: Mapping[str, float | None] = field(default_factory=dict)
    wrong_rewrites: int = 0  # cases rewritten to a link that is neither expected nor also ok (worse than a drop)
    latency_ms: Mapping[str, Mapping[str, float | None]] = field(default_factory=dict)
    by_site: Mapping[str, Mapping[str, float | None]] = field(default_factory=dict)
    answers: Mapping[str, float | None] = field(default_factory=dict)  # see answer_rates
    clarified: int = 0  # questions answered with a clarifying question (status needs_clarification)
    directives: Mapping[str, float | None] = field(default_factory=dict)  # see directive_figures.directive_rates

    def to_json(self) -> dict[str, Any]:
        def r(v: float | None) -> float | None:
            return None if v is None else round(v, 2)

        return {
            "questions": self.questions,
            "in_scope": self.in_scope,
            "out_of_scope": self.out_of_scope,
            "links": self.links,
            "valid_links": self.valid_links,
            "link_validity": r(self.link_validity),
            "hit1": r(self.hit1),
            "hit3": r(self.hit3),
            "page_hit3": r(self.page_hit3),
            "refusal": r(self.refusal),
            "false_refusal": r(self.false_refusal),
            "flagged": r(self.flagged),
            "false_flag": r(self.false_flag),
            "cases": self.cases,
            "repair": r(self.repair),
            "repair_by_category": {k: r(v) for k, v in sorted(self.repair_by_category.items())},
            "wrong_rewrites": self.wrong_rewrites,
            "latency_ms": {s: {k: r(v) for k, v in d.items()} for s, d in self.latency_ms.items()},
            "by_site": {s: {k: r(v) for k, v in d.items()} for s, d in sorted(self.by_site.items())},
            "answers": {k: r(v) for k, v in self.answers.items()},
            "clarified": self.clarified,
            "clarify_rate": r(rate(self.clarified, self.questions)),
            "directives": {k: r(v) for k, v in self.directives.items()},
        }


def _question_rates(results: Sequence[QuestionResult]) -> dict[str, float | None]:
    inside = [r for r in results if r.question.kind != OUT_OF_SCOPE]
    outside = [r for r in results if r.question.kind == OUT_OF_SCOPE]
    checks = [ok for r in results for ok in r.live_ok]
    return {
        "link_validity": rate(sum(checks), len(checks)) if checks else (100.0 if results else None),
        "hit1": rate(sum(is_hit(r, 1) for r in inside), len(inside)),
        "hit3": rate(sum(is_hit(r, 3) for r in inside), len(inside)),
        "page_hit3": rate(sum(is_page_hit(r, 3) for r in inside), len(inside)),
        "refusal": rate(sum(r.status == NOT_COVERED for r in outside), len(outside)),
        "false_refusal": rate(sum(r.status == NOT_COVERED for r in inside), len(inside)),
        "flagged": rate(sum(r.status == NOT_COVERED or r.flagged for r in outside), len(outside)),
        "false_flag": rate(sum(r.flagged for r in inside), len(inside)),
    }


def _site_rates(results: Sequence[QuestionResult]) -> dict[str, float | None]:
    return {**_question_rates(results), "facts_covered": answer_rates(results)["facts_covered"]}


def answer_rates(results: Sequence[QuestionResult]) -> dict[str, float | None]:
    """Required facts covered (crude, see :mod:`docbot.report.facts`), words and '?' sentences of answers.

    Only answered in-scope questions count (a clarifying question's best-effort answer too).
    """
    answered = [r for r in results if r.question.kind != OUT_OF_SCOPE and r.status in ANSWERING]
    return answer_figures((r.question.facts, r.answer, r.question.question) for r in answered)


def latency(results: Iterable[QuestionResult]) -> dict[str, dict[str, float | None]]:
    """p50/p95 per pipeline stage, over the questions that report that stage."""
    per_stage: dict[str, list[float]] = defaultdict(list)
    for r in results:
        for stage, ms in r.timings_ms.items():
            per_stage[stage].append(float(ms))
    order = [s for s in STAGES if s in per_stage] + sorted(set(per_stage) - set(STAGES))
    return {s: {"p50": percentile(per_stage[s], 50), "p95": percentile(per_stage[s], 95)} for s in order}


def compute_metrics(results: Sequence[QuestionResult], cases: Sequence[CaseResult] = ()) -> Metrics:
    """All report figures from question results and repair-case results."""
    rates = _question_rates(results)
    by_category: dict[str, list[bool]] = defaultdict(list)
    for c in cases:
        by_category[c.case.category].append(is_case_right(c))
    sites = sorted({r.question.site for r in results})
    checks = [ok for r in results for ok in r.live_ok]
    return Metrics(
        questions=len(results),
        in_scope=sum(r.question.kind != OUT_OF_SCOPE for r in results),
        out_of_scope=sum(r.question.kind == OUT_OF_SCOPE for r in results),
        links=len(checks),
        valid_links=sum(checks),
        cases=len(cases),
        repair=rate(sum(ok for oks in by_category.values() for ok in oks), len(cases)),
        repair_by_category={k: rate(sum(v), len(v)) for k, v in by_category.items()},
        wrong_rewrites=sum(is_wrong_rewrite(c) for c in cases),
        latency_ms=latency(results),
        by_site={s: _site_rates([r for r in results if r.question.site == s]) for s in sites},
        answers=answer_rates(results),
        clarified=sum(r.status == CLARIFY for r in results),
        directives=directive_rates(results),
        **rates,
    )


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Minimum (or, for false refusals, maximum) percentages; ``None`` means unchecked."""

    link_validity: float | None = 100.0
    hit1: float | None = None
    hit3: float | None = None
    refusal: float | None = None
    false_refusal: float | None = None  # maximum
    flagged: float | None = None  # minimum % of out-of-scope questions refused or flagged
    false_flag: float | None = None  # maximum % of in-scope questions flagged
    repair: float | None = None
    ece: float | None = None  # maximum expected calibration error of confidence (0-1), held out when measured
    facts: float | None = None  # minimum % of required facts the answers cover (the crude rule of docbot.report.facts)
    directives: float | None = None  # minimum % of quoted sources whose link carries a text directive
    directive_validity: float | None = None  # minimum % of directives valid by docbot and by the independent check

    def to_json(self) -> dict[str, float | None]:
        return {k: getattr(self, k) for k in self.__slots__}


def check_thresholds(metrics: Metrics, thresholds: Thresholds) -> list[str]:
    """One message per figure outside its threshold; empty when the report passes."""
    failures: list[str] = []
    for name in ("link_validity", "hit1", "hit3", "refusal", "flagged", "repair"):
        want = getattr(thresholds, name)
        got = getattr(metrics, name)
        if want is not None and got is not None and got < want - 1e-9:
            failures.append(f"{name} {got:.1f}% is below the minimum {want:g}%")
    for name in ("false_refusal", "false_flag"):
        want, got = getattr(thresholds, name), getattr(metrics, name)
        if want is not None and got is not None and got > want + 1e-9:
            failures.append(f"{name} {got:.1f}% is above the maximum {want:g}%")
    covered = metrics.answers.get("facts_covered")
    if thresholds.facts is not None and covered is not None and covered < thresholds.facts - 1e-9:
        failures.append(f"facts covered {covered:.1f}% is below the minimum {thresholds.facts:g}%")
    return failures + directive_failures(metrics.directives, thresholds.directives, thresholds.directive_validity)


def question_failures(result: QuestionResult) -> list[str]:
    """Why one question counts as a failure (empty when it passed)."""
    reasons: list[str] = []
    if result.error:
        reasons.append(f"error: {result.error}")
    if result.question.kind == OUT_OF_SCOPE:
        if result.status != NOT_COVERED:
            reasons.append("out of scope, answered flagged" if result.flagged else "out of scope but answered")
    else:
        if result.status == NOT_COVERED:
            reasons.append("refused (not_covered)")
        elif not is_hit(result, 3):
            reasons.append("no gold section in the top 3")
        if result.flagged:
            reasons.append("answerable, but flagged")
    for url, ok, why in zip(result.links, result.live_ok, result.live_reasons or ("",) * len(result.links)):
        if not ok:
            reasons.append(f"dead link {url}" + (f" ({why})" if why else ""))
    return reasons + list(failing_links(result))
