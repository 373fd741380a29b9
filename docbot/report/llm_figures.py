"""What the LLM did on an eval set (`docbot report --llm`): answers it wrote, answers that fell back and why,
whether its ``[n]`` markers map to listed references, and how long it took.

Read from the same :class:`~docbot.report.metrics.QuestionResult` rows as every other figure; an answer counts as
written by the LLM when its generator is ``llm`` and as a fallback when it carries the reason (``Answer.fallback``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from docbot.answer import ANSWERING
from docbot.references.scan import outside_code
from docbot.report.metrics import QuestionResult, percentile

_MARKER = re.compile(r"\[(\d{1,6}(?:\s*,\s*\d{1,6})*)\]")
# The fallback's reason, by the words docbot.answering.generate and .window use (first match wins).
REASONS = (
    ("no answer within the budget", "gave no answer within"),
    ("prompt over the context window", "context window"),
    ("server stopped mid-answer", "mid-answer"),
    ("no [n] marker for a source shown", "cites none of its sources"),
    ("empty answer", "empty answer"),
    ("says nothing its sources say", "says nothing its sources say"),
)


def reason_of(note: str) -> str:
    return next((label for label, words in REASONS if words in note), "other failure")


def markers(answer: str) -> list[int]:
    """The ``[n]`` citations of ``answer`` (``argv[1]`` in code is code, not a citation)."""
    found: list[int] = []

    def collect(part: str) -> str:
        found.extend(int(n) for m in _MARKER.finditer(part) for n in m.group(1).split(","))
        return part

    outside_code(answer, collect)
    return found


def llm_figures(results: Sequence[QuestionResult]) -> dict[str, Any]:
    """The LLM's figures over ``results`` (only questions that reached the generator: answered or clarified)."""
    reached = [r for r in results if r.status in ANSWERING]
    written = [r for r in reached if r.generator == "llm"]
    fell_back = [r for r in reached if r.fallback]
    emitted = [(n, len(r.links)) for r in written for n in markers(r.answer)]
    generate = [float(r.timings_ms["generate"]) for r in reached if "generate" in r.timings_ms]
    total = [float(r.timings_ms["total"]) for r in results if "total" in r.timings_ms]
    return {
        "answers": len(reached),
        "written_by_llm": len(written),
        "fell_back": len(fell_back),
        "fallback_reasons": dict(Counter(reason_of(r.fallback or "") for r in fell_back).most_common()),
        "markers": len(emitted),
        "markers_mapped": sum(1 <= n <= links for n, links in emitted),
        "llm_answers_all_markers_mapped": sum(all(1 <= n <= len(r.links) for n in markers(r.answer)) for r in written),
        "generate_ms": {"p50": percentile(generate, 50), "p95": percentile(generate, 95)},
        "total_ms": {"p50": percentile(total, 50), "p95": percentile(total, 95)},
    }


def render_llm(figures: dict[str, Any], model: str) -> str:
    """The Markdown section of the report for ``figures``."""
    def ms(d: dict[str, float | None]) -> str:
        return " / ".join("–" if v is None else f"{v / 1000:.1f} s" for v in (d["p50"], d["p95"]))

    f = figures
    reasons = "; ".join(f"{k}: {v}" for k, v in f["fallback_reasons"].items()) or "none"
    lines = [
        f"### The LLM ({model})", "",
        "| figure | value |", "|---|---:|",
        f"| answers written by the LLM | {f['written_by_llm']} of {f['answers']} |",
        f"| fell back to the extractive answer | {f['fell_back']} ({reasons}) |",
        f"| `[n]` markers in the LLM's answers that map to a listed reference | {f['markers_mapped']} of {f['markers']} |",
        f"| LLM answers whose every marker maps | {f['llm_answers_all_markers_mapped']} of {f['written_by_llm']} |",
        f"| generate step p50 / p95 | {ms(f['generate_ms'])} |",
        f"| whole answer p50 / p95 | {ms(f['total_ms'])} |",
    ]
    return "\n".join(lines) + "\n"
