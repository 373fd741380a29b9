"""The reference-accuracy report: run eval questions, re-check links live, score, render.

``metrics`` scores (pure), ``live`` fetches, ``render`` formats, ``run`` wires them.
"""

from __future__ import annotations

from docbot.report.live import LiveCheck, LiveChecker, check_links
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
from docbot.report.render import ReportData, render_html, render_json, render_markdown
from docbot.report.run import build_report, load_cases, load_questions

__all__ = [
    "CaseResult",
    "LiveCheck",
    "LiveChecker",
    "Metrics",
    "Question",
    "QuestionResult",
    "RepairCase",
    "ReportData",
    "Thresholds",
    "build_report",
    "check_links",
    "check_thresholds",
    "compute_metrics",
    "load_cases",
    "load_questions",
    "render_html",
    "render_json",
    "render_markdown",
]
