"""Render a report as Markdown (GitHub job summary), JSON and a self-contained HTML page.

Pure functions: a :class:`ReportData` in, text out. Everything user-supplied
(questions, links) is escaped for its format.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from docbot.report.calibration import Calibration
from docbot.report.directive_figures import directives_markdown
from docbot.report.metrics import (
    CaseResult,
    Metrics,
    QuestionResult,
    Thresholds,
    is_case_right,
    question_failures,
)
from docbot.report.tradeoff import Tradeoff, tradeoff_markdown

HEADLINE = (
    ("link_validity", "Link validity (live)"),
    ("hit1", "Gold section hit@1"),
    ("hit3", "Gold section hit@3"),
    ("page_hit3", "Gold page hit@3"),
    ("refusal", "Out-of-scope refused"),
    ("false_refusal", "False refusals"),
    ("flagged", "Out-of-scope refused or flagged"),
    ("false_flag", "Answerable flagged"),
    ("repair", "Link-repair accuracy"),
)


@dataclass(frozen=True, slots=True)
class ReportData:
    """Everything a rendered report shows."""

    metrics: Metrics
    thresholds: Thresholds
    failures: tuple[str, ...]  # threshold failures
    questions: tuple[QuestionResult, ...]
    cases: tuple[CaseResult, ...] = ()
    duration_s: float = 0.0
    all_sites: bool = False  # questions asked without their site, across every indexed site
    held_out: Metrics | None = None  # the same questions, each site's answered by a gate fitted without it
    calibration: Calibration | None = None  # reliability of ``confidence``
    tradeoff: Tradeoff | None = None  # out-of-scope against answerable refusals as the gate's threshold moves

    @property
    def passed(self) -> bool:
        return not self.failures


HELD_OUT_NOTE = ("Held out: each site's questions answered by a gate fitted on the other sites' questions only "
                 "(leave one site out); the figure to expect on a site nobody has labelled.")
HELD_OUT = ("hit1", "hit3", "page_hit3", "refusal", "false_refusal", "flagged", "false_flag")

ANSWERS_NOTE = ("Facts covered is crude: a required fact counts when at least 60 % of its content words "
                "(stopwords removed, Snowball-stemmed) appear in the answer; only answered in-scope questions count.")


def _answers_rows(m: Metrics) -> list[tuple[str, str, str, str, str]]:
    """(scope, facts covered, words p50, words max, '?' sentences): overall, then facts covered per site."""
    a = m.answers
    rows = [("all", f"{fmt(a.get('facts_covered'))} ({a.get('facts_hit', 0):.0f}/{a.get('facts', 0):.0f})",
             fmt(a.get("words_p50"), ""), fmt(a.get("words_max"), ""), f"{a.get('question_sentences', 0):.0f}")]
    rows += [(site, fmt(d.get("facts_covered")), "", "", "") for site, d in m.by_site.items()]
    return rows


ALL_SITES_NOTE = ("Every question was asked across all indexed sites, without naming its own, "
                  "as the Slack bot does when no site is set.")


def clarify_line(m: Metrics) -> str:
    """How often docbot asked back instead of answering outright."""
    return f"Asked to clarify: {m.clarified} of {m.questions} questions."


def fmt(value: float | None, unit: str = "%") -> str:
    return "n/a" if value is None else f"{value:.1f}{unit}"


def _threshold_label(name: str, thresholds: Thresholds) -> str:
    want = getattr(thresholds, name, None)
    if want is None:
        return ""
    return f"≤ {want:g}%" if name in ("false_refusal", "false_flag") else f"≥ {want:g}%"


def _md_cell(text: str) -> str:
    """Escape text for a Markdown table cell: no HTML, no cell break, no code span, and nothing that turns into a
    link, an image or an @mention (the report becomes CI's job summary; answers quote the docs, questions come from
    files)."""
    escaped = html.escape(text, quote=False).replace("|", "\\|").replace("\n", " ").replace("`", "\\`")
    return escaped.replace("[", "\\[").replace("]", "\\]").replace("@", "&#64;")


def question_json(r: QuestionResult) -> dict[str, Any]:
    return {
        "id": r.question.id,
        "site": r.question.site,
        "kind": r.question.kind,
        "question": r.question.question,
        "status": r.status,
        "flagged": r.flagged,
        "links": [{"url": u, "live_ok": ok, "quoted": i < len(r.quoted) and r.quoted[i],
                   "directive": r.directives[i] if i < len(r.directives) else None,
                   "directive_docbot": r.own_directives[i] if i < len(r.own_directives) else None,
                   "directive_served": r.live_directives[i] if i < len(r.live_directives) else None}
                  for i, (u, ok) in enumerate(zip(r.links, r.live_ok))],
        "gold": list(r.question.gold),
        "accept": list(r.question.accept),
        "timings_ms": dict(r.timings_ms),
        "failures": question_failures(r),
        "answer": r.answer,
        "generator": r.generator,
        "fallback": r.fallback,
    }


def case_json(c: CaseResult) -> dict[str, Any]:
    return {
        "id": c.case.id,
        "site": c.case.site,
        "category": c.case.category,
        "input": c.case.input,
        "expected_action": c.case.action,
        "expected": c.case.expected,
        "action": c.action,
        "output": c.output,
        "reason": c.reason,
        "right": is_case_right(c),
    }


def render_json(data: ReportData) -> str:
    body = {
        "passed": data.passed,
        "threshold_failures": list(data.failures),
        "thresholds": data.thresholds.to_json(),
        "metrics": data.metrics.to_json(),
        "duration_s": round(data.duration_s, 1),
        "all_sites": data.all_sites,
        "held_out_metrics": data.held_out.to_json() if data.held_out else None,
        "calibration": data.calibration.to_json() if data.calibration else None,
        "refusal_tradeoff": data.tradeoff.to_json() if data.tradeoff else None,
        "questions": [question_json(r) for r in data.questions],
        "cases": [case_json(c) for c in data.cases],
    }
    return json.dumps(body, indent=1, ensure_ascii=False) + "\n"


def render_markdown(data: ReportData) -> str:
    """The report as Markdown (CI's job summary): its sections in order, each left out when it has nothing to show."""
    m = data.metrics
    lines = _headline_markdown(data)
    lines += _by_site_markdown(m)
    lines += _answers_markdown(m)
    lines += directives_markdown(m.directives)
    lines += _held_out_by_site_markdown(data.held_out)
    lines += tradeoff_markdown(data.tradeoff)
    lines += calibration_markdown(data.calibration)
    lines += _repair_markdown(m)
    lines += _latency_markdown(m)
    lines += _failures_markdown(data)
    return "\n".join(lines) + "\n"


def _headline_markdown(data: ReportData) -> list[str]:
    """The verdict, what was asked, the headline figures against their thresholds (and held out), what fell short."""
    m = data.metrics
    verdict = "✅ passed" if data.passed else "❌ failed"
    lines = [
        f"## docbot reference-accuracy report — {verdict}",
        "",
        f"{m.questions} questions ({m.in_scope} in scope, {m.out_of_scope} out of scope), "
        f"{m.links} links checked live ({m.valid_links} valid), {m.cases} link-repair cases"
        + (f", {data.duration_s:.0f} s" if data.duration_s else "")
        + "."
        + (f" {ALL_SITES_NOTE}" if data.all_sites else ""),
        "",
        clarify_line(m),
        "",
    ]
    held = data.held_out
    if held is None:
        lines += ["| metric | value | threshold |", "|---|---:|---|"]
        for name, label in HEADLINE:
            lines.append(f"| {label} | {fmt(getattr(m, name))} | {_threshold_label(name, data.thresholds)} |")
    else:
        lines += ["| metric | in sample | held out | threshold |", "|---|---:|---:|---|"]
        for name, label in HEADLINE:
            other = fmt(getattr(held, name)) if name in HELD_OUT else ""
            lines.append(f"| {label} | {fmt(getattr(m, name))} | {other} | {_threshold_label(name, data.thresholds)} |")
        lines += ["", HELD_OUT_NOTE]
    for failure in data.failures:
        lines.append(f"\n**Below threshold:** {_md_cell(failure)}")
    return lines


def _by_site_markdown(m: Metrics) -> list[str]:
    if not m.by_site:
        return []
    lines = ["", "### By site", "", "| site | links valid | hit@1 | hit@3 | page hit@3 | refused (oos) | false refusals "
             "| oos refused or flagged | answerable flagged |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for site, d in m.by_site.items():
        lines.append(f"| {_md_cell(site)} | {fmt(d['link_validity'])} | {fmt(d['hit1'])} | {fmt(d['hit3'])} | "
                     f"{fmt(d['page_hit3'])} | {fmt(d['refusal'])} | {fmt(d['false_refusal'])} | "
                     f"{fmt(d.get('flagged'))} | {fmt(d.get('false_flag'))} |")
    return lines


def _answers_markdown(m: Metrics) -> list[str]:
    if not m.answers:
        return []
    lines = ["", "### Answers", "", "| scope | facts covered | words p50 | words max | sentences ending in '?' |",
             "|---|---:|---:|---:|---:|"]
    lines += [f"| {_md_cell(scope)} | {' | '.join(cells)} |" for scope, *cells in _answers_rows(m)]
    return [*lines, "", ANSWERS_NOTE]


def _held_out_by_site_markdown(held: Metrics | None) -> list[str]:
    if held is None or not held.by_site:
        return []
    lines = ["", "### Held out, by site", "", "| site | hit@1 | hit@3 | refused (oos) | false refusals | "
             "oos refused or flagged | answerable flagged |", "|---|---:|---:|---:|---:|---:|---:|"]
    for site, d in held.by_site.items():
        lines.append(f"| {_md_cell(site)} | {fmt(d['hit1'])} | {fmt(d['hit3'])} | {fmt(d['refusal'])} | "
                     f"{fmt(d['false_refusal'])} | {fmt(d.get('flagged'))} | {fmt(d.get('false_flag'))} |")
    return lines


def _repair_markdown(m: Metrics) -> list[str]:
    if not m.repair_by_category:
        return []
    lines = ["", "### Link repair by category", "", "| category | accuracy |", "|---|---:|"]
    for cat, value in sorted(m.repair_by_category.items()):
        lines.append(f"| {_md_cell(cat)} | {fmt(value)} |")
    return [*lines, "", f"Wrong rewrites (a link rewritten to the wrong target; worse than a drop): **{m.wrong_rewrites}**"]


def _latency_markdown(m: Metrics) -> list[str]:
    if not m.latency_ms:
        return []
    lines = ["", "### Latency per stage", "", "| stage | p50 | p95 |", "|---|---:|---:|"]
    for stage, d in m.latency_ms.items():
        lines.append(f"| {_md_cell(stage)} | {fmt(d['p50'], ' ms')} | {fmt(d['p95'], ' ms')} |")
    return lines


def _failures_markdown(data: ReportData) -> list[str]:
    """The questions and repair cases that failed, folded away: what each cited or did against what was wanted."""
    failed_q = [(r, question_failures(r)) for r in data.questions]
    failed_q = [(r, why) for r, why in failed_q if why]
    failed_c = [c for c in data.cases if not is_case_right(c)]
    if not failed_q and not failed_c:
        return []
    lines = ["", f"<details><summary>{len(failed_q)} question failures, {len(failed_c)} repair failures</summary>", ""]
    if failed_q:
        lines += ["| id | question | cited | gold | why |", "|---|---|---|---|---|"]
        for r, why in failed_q:
            cited = "<br>".join(_md_cell(u) for u in r.links[:3]) or "—"
            gold = "<br>".join(_md_cell(g) for g in r.question.gold) or "—"
            lines.append(f"| {_md_cell(r.question.id)} | {_md_cell(r.question.question)} | {cited} | {gold} | "
                         f"{_md_cell('; '.join(why))} |")
    if failed_c:
        lines += ["", "| case | input | expected | got |", "|---|---|---|---|"]
        for c in failed_c:
            lines.append(f"| {_md_cell(c.case.id)} | {_md_cell(c.case.input)} | "
                         f"{_md_cell(c.case.action)} {_md_cell(str(c.case.expected))} | "
                         f"{_md_cell(c.action)} {_md_cell(str(c.output))} |")
    return [*lines, "", "</details>"]


def calibration_markdown(cal: Calibration | None) -> list[str]:
    """The reliability table: per confidence bucket, how often the primary reference was right."""
    if cal is None or not any(b.answers for b in cal.in_sample):
        return []
    held = bool(cal.held_out)
    lines = ["", "### Confidence: how often the primary reference was right", "",
             "| confidence | answers | mean confidence | primary right |"
             + (" held-out answers | held-out mean | held-out right |" if held else ""),
             "|---|---:|---:|---:|" + ("---:|---:|---:|" if held else "")]
    for i, b in enumerate(cal.in_sample):
        row = f"| {b.low:.1f}–{b.high:.1f} | {b.answers} | {fmt_share(b.confidence)} | {fmt_share(b.right)} |"
        if held:
            h = cal.held_out[i]
            row += f" {h.answers} | {fmt_share(h.confidence)} | {fmt_share(h.right)} |"
        lines.append(row)
    lines += ["", f"Expected calibration error: {fmt_share(cal.ece)} in sample"
              + (f", {fmt_share(cal.held_out_ece)} held out (each site's calibrator fitted on the other sites)" if held else "")
              + "."]
    return lines


def fmt_share(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def render_svg(metrics: Metrics, thresholds: Thresholds) -> str:
    """Horizontal bar chart of the headline percentages, with threshold ticks."""
    row, label_w, bar_w = 26, 190, 360
    rows = [(label, getattr(metrics, name), getattr(thresholds, name, None)) for name, label in HEADLINE]
    height = row * len(rows) + 10
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{label_w + bar_w + 70}" height="{height}" '
        'role="img" aria-label="report metrics">'
    ]
    for i, (label, value, want) in enumerate(rows):
        y = 5 + i * row
        width = 0.0 if value is None else bar_w * max(0.0, min(value, 100.0)) / 100.0
        parts.append(f'<text x="0" y="{y + 16}" font-size="13">{html.escape(label)}</text>')
        parts.append(f'<rect x="{label_w}" y="{y + 3}" width="{bar_w}" height="18" fill="#eee"/>')
        parts.append(f'<rect x="{label_w}" y="{y + 3}" width="{width:.1f}" height="18" fill="#3b82f6"/>')
        if want is not None:
            x = label_w + bar_w * want / 100.0
            parts.append(f'<line x1="{x:.1f}" y1="{y}" x2="{x:.1f}" y2="{y + 24}" stroke="#dc2626" stroke-width="2"/>')
        parts.append(f'<text x="{label_w + bar_w + 6}" y="{y + 16}" font-size="13">{html.escape(fmt(value))}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _links_html(links: Sequence[str], oks: Sequence[bool] | None = None) -> str:
    items = []
    for i, url in enumerate(links):
        mark = "" if oks is None else (" ✓" if oks[i] else " ✗ dead")
        items.append(f"<li><code>{html.escape(url)}</code>{html.escape(mark)}</li>")
    return f"<ul>{''.join(items)}</ul>" if items else "—"


def render_html(data: ReportData) -> str:
    """A self-contained page: metrics chart, tables, and every failure."""
    e = html.escape
    m = data.metrics
    verdict = "passed" if data.passed else "failed"
    held = data.held_out
    rows = "".join(
        f"<tr><td>{e(label)}</td><td>{e(fmt(getattr(m, name)))}</td>"
        f"<td>{e(fmt(getattr(held, name)) if held is not None and name in HELD_OUT else '')}</td>"
        f"<td>{e(_threshold_label(name, data.thresholds))}</td></tr>"
        for name, label in HEADLINE
    )
    below = "".join(f"<li>{e(f)}</li>" for f in data.failures)
    cats = "".join(f"<tr><td>{e(c)}</td><td>{e(fmt(v))}</td></tr>" for c, v in sorted(m.repair_by_category.items()))
    mode = " " + e(ALL_SITES_NOTE) if data.all_sites else ""
    lat = "".join(
        f"<tr><td>{e(s)}</td><td>{e(fmt(d['p50'], ' ms'))}</td><td>{e(fmt(d['p95'], ' ms'))}</td></tr>"
        for s, d in m.latency_ms.items()
    )
    answers = "".join(f"<tr>{''.join(f'<td>{e(c)}</td>' for c in row)}</tr>" for row in _answers_rows(m)) if m.answers else ""
    qfail = ""
    for r in data.questions:
        why = question_failures(r)
        if why:
            qfail += (
                f"<tr><td>{e(r.question.id)}</td><td>{e(r.question.question)}</td><td>{e(r.status)}</td>"
                f"<td>{_links_html(r.links, r.live_ok)}</td>"
                f"<td>{_links_html(r.question.gold)}</td><td>{e('; '.join(why))}</td></tr>"
            )
    cfail = "".join(
        f"<tr><td>{e(c.case.id)}</td><td>{e(c.case.category)}</td><td><code>{e(c.case.input)}</code></td>"
        f"<td>{e(c.case.action)} <code>{e(str(c.case.expected))}</code></td>"
        f"<td>{e(c.action)} <code>{e(str(c.output))}</code></td><td>{e(c.reason)}</td></tr>"
        for c in data.cases
        if not is_case_right(c)
    )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>docbot reference-accuracy report</title>
<style>body{{font-family:system-ui,sans-serif;margin:2em;max-width:80em}}table{{border-collapse:collapse;margin:1em 0}}
td,th{{border:1px solid #ccc;padding:4px 8px;vertical-align:top;text-align:left}}ul{{margin:0;padding-left:1.2em}}
.passed{{color:#15803d}}.failed{{color:#dc2626}}</style></head><body>
<h1>docbot reference-accuracy report — <span class="{verdict}">{verdict}</span></h1>
<p>{m.questions} questions ({m.in_scope} in scope, {m.out_of_scope} out of scope), {m.links} links checked live
({m.valid_links} valid), {m.cases} link-repair cases, {data.duration_s:.0f} s.{mode}</p>
<p>{e(clarify_line(m))}</p>
{render_svg(m, data.thresholds)}
<ul class="failed">{below}</ul>
<table><tr><th>metric</th><th>in sample</th><th>held out</th><th>threshold</th></tr>{rows}</table>
<p>{e(HELD_OUT_NOTE) if held is not None else ""}</p>
<h2>Answers</h2><table><tr><th>scope</th><th>facts covered</th><th>words p50</th><th>words max</th>
<th>sentences ending in '?'</th></tr>{answers}</table><p>{e(ANSWERS_NOTE)}</p>
<h2>Link repair by category</h2><table><tr><th>category</th><th>accuracy</th></tr>{cats}</table>
<p>Wrong rewrites (a link rewritten to the wrong target; worse than a drop): <b>{m.wrong_rewrites}</b></p>
<h2>Latency per stage</h2><table><tr><th>stage</th><th>p50</th><th>p95</th></tr>{lat}</table>
<h2>Question failures</h2>
<table><tr><th>id</th><th>question</th><th>status</th><th>cited links</th><th>gold</th><th>why</th></tr>{qfail}</table>
<h2>Link-repair failures</h2>
<table><tr><th>case</th><th>category</th><th>input</th><th>expected</th><th>got</th><th>reason</th></tr>{cfail}</table>
</body></html>
"""
