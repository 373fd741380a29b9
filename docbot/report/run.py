"""Run the report: ask every eval question, re-check every emitted link live, replay repair cases.

The pipeline, the validator and the HTTP client are injected, so tests run
the whole report against a fake pipeline and a real local server.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar, Protocol

import httpx

from crawlers.urls import join
from docbot.answer import Status
from docbot.errors import ConfigError
from docbot.process import terminate
from docbot.report.calibration import calibrate
from docbot.report.directive_figures import own_verdict
from docbot.report.heldout import held_out_answers
from docbot.report.live import DEFAULT_CONCURRENCY, check_links
from docbot.report.metrics import (
    CaseResult,
    Metrics,
    Question,
    QuestionResult,
    RepairCase,
    Thresholds,
    check_thresholds,
    compute_metrics,
)
from docbot.report.render import ReportData
from docbot.report.tradeoff import tradeoff

Progress = Callable[[Iterable[Any], int, str], Iterable[Any]]


class AsksQuestions(Protocol):
    def ask(self, question: str, site: str | None = None) -> Any: ...


class ChecksURLs(Protocol):
    def check_url(self, url: str, site: str | None = None) -> Any: ...


def _no_progress(items: Iterable[Any], total: int, desc: str) -> Iterable[Any]:
    return items


def load_jsonl(path: str | Path) -> list[dict[str, Any]]:
    p = Path(path)
    try:
        with p.open(encoding="utf-8") as fh:
            return [json.loads(line) for line in fh if line.strip()]
    except FileNotFoundError:
        raise ConfigError(f"No eval file at {p} — pass --questions/--cases pointing at a JSON Lines file") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{p} is not valid JSON Lines ({exc}); fix the line or regenerate the file") from None


def load_questions(path: str | Path) -> list[Question]:
    return [Question.from_json(row) for row in load_jsonl(path)]


def load_cases(path: str | Path) -> list[RepairCase]:
    return [RepairCase.from_json(row) for row in load_jsonl(path)]


def site_base(base_urls: Mapping[str, str], site: str) -> str:
    """The served base URL of ``site`` (ends in '/'); raises with a next step when unknown."""
    try:
        base = base_urls[site]
    except KeyError:
        known = ", ".join(sorted(base_urls)) or "none"
        raise ConfigError(
            f"No base URL for eval site {site!r} (known: {known}) — crawl it or pass --base-url {site}=URL"
        ) from None
    return base if base.endswith("/") else base + "/"


def ask_all(
    pipeline: AsksQuestions, questions: Sequence[Question], progress: Progress = _no_progress, all_sites: bool = False
) -> list[Any]:
    """Answers in question order; a crash in one question becomes an ``error`` answer, not a crashed report.

    ``all_sites``: ask without the question's site, so the pipeline chooses among every indexed site.
    """
    answers = []
    for q in progress(questions, len(questions), "questions"):
        try:
            answers.append(pipeline.ask(q.question, site=None if all_sites else q.site))
        except Exception as exc:  # noqa: BLE001 - one broken question must not hide the other figures
            answers.append(_Failed(f"{type(exc).__name__}: {exc}"))
    return answers


class _Failed:
    """Stand-in answer for a question whose pipeline call raised."""

    status = Status.ERROR
    references: tuple[Any, ...] = ()
    timings_ms: ClassVar[dict[str, float]] = {}

    def __init__(self, error: str) -> None:
        self.error = error


def score_answers(
    questions: Sequence[Question],
    answers: Sequence[Any],
    base_urls: Mapping[str, str],
    client: httpx.AsyncClient | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    validator: ChecksURLs | None = None,
) -> list[QuestionResult]:
    """Re-check every emitted link live and pair each answer with its question; a link's text directive is checked
    by the independent check and, given a ``validator``, by docbot's own rule."""
    links = [tuple(ref.url for ref in getattr(a, "references", ())) for a in answers]
    checks = terminate.run(check_links([u for group in links for u in group], client, concurrency))
    results = []
    for q, a, urls in zip(questions, answers, links):
        results.append(
            QuestionResult(
                question=q,
                base_url=site_base(base_urls, q.site),
                status=str(getattr(a, "status", Status.ERROR)),
                links=urls,
                live_ok=tuple(checks[u].ok for u in urls),
                live_reasons=tuple(checks[u].reason for u in urls),
                timings_ms=dict(getattr(a, "timings_ms", {}) or {}),
                error=getattr(a, "error", None),
                answer=str(getattr(a, "answer", "") or ""),
                flagged=bool(getattr(a, "flagged", False)),
                quoted=tuple(bool(getattr(ref, "quote", "")) for ref in getattr(a, "references", ())),
                directives=tuple(checks[u].directive for u in urls),
                live_directives=tuple(checks[u].own_directive for u in urls),
                own_directives=tuple(own_verdict(validator, u) for u in urls) if validator is not None else (),
                generator=str(getattr(a, "generator", "")), fallback=getattr(a, "fallback", None),
            )
        )
    return results


def run_cases(validator: ChecksURLs, cases: Sequence[RepairCase], base_urls: Mapping[str, str]) -> list[CaseResult]:
    """Replay each repair case through ``validator.check_url`` on the served URL."""
    results = []
    for case in cases:
        base = site_base(base_urls, case.site)
        outcome = validator.check_url(join(base, case.input), site=case.site)
        results.append(CaseResult(case, base, outcome.action, outcome.output, outcome.reason))
    return results


def build_report(
    pipeline: AsksQuestions,
    questions: Sequence[Question],
    base_urls: Mapping[str, str],
    thresholds: Thresholds,
    validator: ChecksURLs | None = None,
    cases: Sequence[RepairCase] = (),
    client: httpx.AsyncClient | None = None,
    progress: Progress = _no_progress,
    all_sites: bool = False,
    held_out: bool = False,
) -> ReportData:
    """Ask, check live, replay cases, score, and compare with the thresholds.

    ``held_out``: also answer every site's questions with a gate fitted on the other sites only, score
    those answers the same way, and hold them to the same thresholds.
    """
    started = time.perf_counter()
    for site in {q.site for q in questions} | {c.site for c in cases}:
        site_base(base_urls, site)  # fail before the slow part
    answers = ask_all(pipeline, questions, progress, all_sites)
    results = score_answers(questions, answers, base_urls, client, validator=validator)
    case_results = run_cases(validator, cases, base_urls) if validator is not None and cases else []
    metrics = compute_metrics(results, case_results)
    failures = check_thresholds(metrics, thresholds)
    held: Metrics | None = None
    others: list[Any] | None = None
    if held_out and not all_sites:
        others = held_out_answers(pipeline, questions)  # type: ignore[arg-type]
        if others is not None:
            held = compute_metrics(score_answers(questions, others, base_urls, client, validator=validator))
            failures += [f"held-out {f}" for f in check_thresholds(held, replace(thresholds, repair=None))]
    calibration = calibrate(questions, answers, base_urls, others) if not all_sites else None
    if calibration is not None and thresholds.ece is not None:
        ece, which = ((calibration.held_out_ece, "held-out") if calibration.held_out_ece is not None
                      else (calibration.ece, "in-sample"))
        if ece is not None and ece > thresholds.ece + 1e-9:
            failures.append(f"{which} confidence calibration error {ece:.3f} is above the maximum {thresholds.ece:g}")
    curve = None if all_sites else tradeoff(questions, others if others is not None else answers, others is not None)
    return ReportData(
        calibration=calibration,
        tradeoff=curve,
        metrics=metrics,
        thresholds=thresholds,
        failures=tuple(failures),
        held_out=held,
        questions=tuple(results),
        cases=tuple(case_results),
        duration_s=time.perf_counter() - started,
        all_sites=all_sites,
    )
