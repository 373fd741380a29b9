"""Live link checks against a real server on 127.0.0.1, and the report end to end with a fake pipeline."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from crawlers.fetch import FetchResult
from docbot.answer import LinkAction, Status
from docbot.answering.gate import Evidence
from docbot.report.live import LiveCheck, LiveChecker, check_links
from docbot.report.metrics import Question, RepairCase, Thresholds
from docbot.report.render import render_html, render_json, render_markdown
from docbot.report.run import build_report
from tests.conftest import serve_directory

PAGES = {
    "index.html": '<html><body><h1 id="welcome">Welcome</h1><a name="legacy"></a></body></html>',
    "guide/index.html": '<html><body><section id="install"><h2>Install</h2></section>'
    '<h2 id="Upper-Case">Upper</h2></body></html>',
    "api.html": '<html><body><dl><dt id="pkg.Thing.run">run()</dt></dl></body></html>',
}


@pytest.fixture()
def site(tmp_path: Path):
    for rel, body in PAGES.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")
    with serve_directory(tmp_path) as base:
        yield base


def test_live_check_fragment_present_absent_and_missing_page(site: str) -> None:
    urls = [
        site + "index.html#welcome",
        site + "index.html#legacy",  # <a name>
        site + "guide/#install",  # directory URL
        site + "guide/index.html#Upper-Case",
        site + "guide/index.html#upper-case",  # fragments are case-sensitive
        site + "index.html#nowhere",
        site + "missing.html#welcome",
        site + "api.html",
    ]
    checks = asyncio.run(check_links(urls))
    assert [checks[u].ok for u in urls] == [True, True, True, True, False, False, False, True]
    assert "not in page" in checks[site + "index.html#nowhere"].reason
    assert checks[site + "missing.html#welcome"].reason == "HTTP 404"


SHELL = b"<html><body><div id='app'></div><script>window.$docsify = {}</script></body></html>"
RENDERED = (b"<html><body><main><article id='/guide'><h1 id='/guide?id=guide'>Guide</h1>"
            b"<h2 id='/guide?id=install'>Install</h2></article></main></body></html>")


class FakeRenderer:
    """The rendering fetcher's part the live check uses: an application shell's DOM, here a docsify app's routes."""

    def __init__(self) -> None:
        self.got: list[str] = []

    async def get(self, url: str, **_: object) -> FetchResult:
        self.got.append(url)
        return FetchResult(url, url, 200, body=RENDERED, content_type="text/html", rendered="docsify app root",
                           routes="#/<page>?id=<heading-id>")


def test_an_application_shell_is_checked_in_the_dom_it_renders(tmp_path: Path) -> None:
    """A docsify link's place is its route: in the rendered routes or not, never taken for the bare page."""
    (tmp_path / "index.html").write_bytes(SHELL)
    (tmp_path / "static.html").write_text(PAGES["index.html"], encoding="utf-8")
    renderer = FakeRenderer()
    with serve_directory(tmp_path) as base:
        urls = [base + "index.html#/guide?id=install", base + "#/guide?id=install:~:text=Install",
                base + "index.html#/guide?id=nowhere", base + "index.html#/elsewhere", base + "static.html#welcome"]

        async def run() -> dict[str, LiveCheck]:
            async with httpx.AsyncClient() as client:
                return await LiveChecker(client, renderer=renderer).check_all(urls)

        checks = asyncio.run(run())
    assert [checks[u].ok for u in urls] == [True, True, False, False, True]
    assert renderer.got == [base + "index.html"]  # the shell once; a static page is never rendered


@dataclass(frozen=True)
class Ref:
    url: str


@dataclass(frozen=True)
class FakeAnswer:
    status: str
    references: tuple[Ref, ...]
    timings_ms: dict[str, float] = field(default_factory=lambda: {"retrieve": 3.0, "total": 9.0})
    error: str | None = None
    flagged: bool = False


class FakePipeline:
    """Answers from a fixed table, the way the real pipeline's Answer looks to the report."""

    def __init__(self, base: str) -> None:
        self.base = base

    def ask(self, question: str, site: str | None = None) -> FakeAnswer:
        if "install" in question:
            return FakeAnswer(Status.ANSWERED, (Ref(self.base + "guide/index.html#install"), Ref(self.base + "api.html#pkg.Thing.run")))
        if "run" in question:
            return FakeAnswer(Status.ANSWERED, (Ref(self.base + "index.html#welcome"), Ref(self.base + "api.html#pkg.Thing.gone")))
        return FakeAnswer(Status.NOT_COVERED, ())


@dataclass(frozen=True)
class Outcome:
    input: str
    output: str | None
    action: str
    reason: str = ""


class FakeValidator:
    def check_url(self, url: str, site: str | None = None) -> Outcome:
        if url.endswith("#Install"):
            return Outcome(url, url.replace("#Install", "#install"), LinkAction.REWRITTEN, "case")
        return Outcome(url, url, LinkAction.KEPT, "exists")


def test_report_with_fake_pipeline_and_real_server(site: str) -> None:
    questions = [
        Question("s-1", "s", "semantic", "How do I install it?", gold=("guide/#install",)),
        Question("s-2", "s", "explicit", "What does Thing.run <it> do?", gold=("api.html#pkg.Thing.run",)),
        Question("s-3", "s", "out_of_scope", "Kubernetes?"),
    ]
    cases = [
        RepairCase("v-1", "s", "guide/index.html#Install", "guide/index.html#install", "rewrite", "case"),
        RepairCase("v-2", "s", "api.html#nope", "api.html", "drop_fragment", "nonexistent_fragment"),
    ]
    data = build_report(
        FakePipeline(site), questions, {"s": site}, Thresholds(link_validity=100, hit3=90),
        validator=FakeValidator(), cases=cases,
    )
    m = data.metrics
    assert (m.links, m.valid_links) == (4, 3)
    assert m.hit3 == 50.0 and m.hit1 == 50.0 and m.refusal == 100.0
    assert m.repair_by_category == {"case": 100.0, "nonexistent_fragment": 0.0}
    assert m.wrong_rewrites == 0
    assert not data.passed and len(data.failures) == 2

    md = render_markdown(data)
    assert "failed" in md and "| Link validity (live) | 75.0% | ≥ 100% |" in md
    assert "Wrong rewrites (a link rewritten to the wrong target; worse than a drop): **0**" in md
    assert "api.html#pkg.Thing.gone" in md and "<it>" not in md  # question text escaped
    page = render_html(data)
    assert "<svg" in page and "&lt;it&gt;" in page and "<it>" not in page
    assert "api.html#pkg.Thing.gone" in page
    body = json.loads(render_json(data))
    assert body["passed"] is False and body["metrics"]["link_validity"] == 75.0
    assert [c["right"] for c in body["cases"]] == [True, False]


def test_outputs_written_and_appended_to_job_summary(site: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from docbot.commands.report import parse_base_urls, write_outputs
    from docbot.config import load_settings

    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    questions = [Question("s-3", "s", "out_of_scope", "Kubernetes?")]
    data = build_report(FakePipeline(site), questions, parse_base_urls([f"s={site}"]), Thresholds())
    assert data.passed
    markdown = write_outputs(data, tmp_path / "out", summary=load_settings().github_step_summary)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["report.html", "report.json", "report.md"]
    assert summary.read_text(encoding="utf-8") == "earlier step\n" + markdown
    assert "passed" in markdown


class SiteRecorder(FakePipeline):
    def __init__(self, base: str) -> None:
        super().__init__(base)
        self.sites: list[str | None] = []

    def ask(self, question: str, site: str | None = None) -> FakeAnswer:
        self.sites.append(site)
        return super().ask(question, site)


def test_all_sites_asks_without_the_question_s_site_and_says_so(site: str) -> None:
    questions = [Question("s-1", "s", "semantic", "How do I install it?", gold=("guide/#install",))]
    per_site, anywhere = SiteRecorder(site), SiteRecorder(site)
    build_report(per_site, questions, {"s": site}, Thresholds())
    data = build_report(anywhere, questions, {"s": site}, Thresholds(), all_sites=True)
    assert per_site.sites == ["s"] and anywhere.sites == [None]
    assert data.metrics.hit1 == 100.0
    assert "across all indexed sites" in render_markdown(data) and "across all indexed sites" in render_html(data)
    assert json.loads(render_json(data))["all_sites"] is True


class GatedPipeline(FakePipeline):
    """Answers when its gate scores the question's evidence (a number in the question) above the threshold."""

    def __init__(self, base: str, gate: object) -> None:
        super().__init__(base)
        self.gate = gate
        self.used: list[tuple[str | None, tuple[str, ...]]] = []

    def evidence(self, question: str, site: str):
        from docbot.answering.gate import Evidence

        return Evidence(float(question.split()[-1]), 0.0, 0.0, 0.0, 0.0)

    def ask(self, question: str, site: str | None = None) -> FakeAnswer:
        self.used.append((site, tuple((getattr(self.gate, "meta", None) or {}).get("sites", ()))))
        score = self.gate.score(self.evidence(question, site or ""))
        if score < self.gate.threshold:
            return FakeAnswer(Status.NOT_COVERED, ())
        return FakeAnswer(Status.ANSWERED, (Ref(self.base + "guide/index.html#install"),), flagged=score < self.gate.flag_at)


def test_held_out_answers_each_site_with_a_gate_fitted_without_it(site: str) -> None:
    from docbot.answering.gate_fit import Example, fit

    questions = []
    for s in ("a", "b", "c"):
        questions += [Question(f"{s}-{i}", s, "semantic", f"install step {0.5 + i / 10}", gold=("guide/#install",))
                      for i in range(4)]
        questions += [Question(f"{s}-o{i}", s, "out_of_scope", f"kubernetes {0.1 + i / 20}") for i in range(2)]
    shipped = fit([Example("x", Evidence(d, 0, 0, 0, 0), d > 0.3) for d in (0.1, 0.2, 0.6, 0.7, 0.8)])
    pipeline = GatedPipeline(site, shipped)
    data = build_report(pipeline, questions, dict.fromkeys("abc", site), Thresholds(hit3=100, flagged=100),
                        held_out=True)
    assert pipeline.gate is shipped  # restored after the folds
    held = [(asked, fitted) for asked, fitted in pipeline.used[len(questions):]]
    assert len(held) == len(questions) and all(asked not in fitted for asked, fitted in held)
    # every out-of-scope question refused or flagged, held out (issue 26: flag rather than refuse)
    assert data.held_out is not None and data.held_out.hit3 == 100.0 and data.held_out.flagged == 100.0
    assert data.passed
    md = render_markdown(data)
    assert "| metric | in sample | held out | threshold |" in md and "### Held out, by site" in md
    assert json.loads(render_json(data))["held_out_metrics"]["flagged"] == 100.0


def test_held_out_figures_below_threshold_fail_the_report(site: str) -> None:
    from docbot.answering.gate_fit import Example, fit

    # Site b's answerable questions look like the other sites' out-of-scope ones: only a gate that
    # has seen b answers them, so the held-out figures fail while the in-sample ones pass.
    questions = [Question("a-1", "a", "semantic", "install 0.8", gold=("guide/#install",)),
                 Question("a-2", "a", "out_of_scope", "k8s 0.2"),
                 Question("c-1", "c", "semantic", "install 0.9", gold=("guide/#install",)),
                 Question("c-2", "c", "out_of_scope", "k8s 0.3"),
                 Question("b-1", "b", "semantic", "install 0.25", gold=("guide/#install",)),
                 Question("b-2", "b", "out_of_scope", "k8s 0.05")]
    shipped = fit([Example("x", Evidence(d, 0, 0, 0, 0), d > 0.1) for d in (0.0, 0.05, 0.25, 0.8, 0.9)])
    data = build_report(GatedPipeline(site, shipped), questions, dict.fromkeys("abc", site),
                        Thresholds(false_refusal=0), held_out=True)
    assert data.metrics.false_refusal == 0.0
    assert any(f.startswith("held-out false_refusal") for f in data.failures) and not data.passed


@dataclass(frozen=True)
class SureAnswer(FakeAnswer):
    confidence: float = 0.95
    signals: tuple[float, ...] = (3.0, 0.0, 0.2)


class Overconfident(FakePipeline):
    """Always 95 % sure; right only about installing."""

    def ask(self, question: str, site: str | None = None) -> FakeAnswer:
        target = "guide/index.html#install" if "install" in question else "index.html#welcome"
        return SureAnswer(Status.ANSWERED, (Ref(self.base + target),))


def test_report_prints_how_often_each_confidence_was_right_and_fails_when_it_lies(site: str) -> None:
    questions = [Question(f"s-{i}", "s", "semantic", "install?" if i < 2 else "run?", gold=("guide/#install",))
                 for i in range(10)]
    data = build_report(Overconfident(site), questions, {"s": site}, Thresholds(ece=0.1))
    assert data.calibration is not None and data.calibration.ece == pytest.approx(0.95 - 0.2)
    assert any("calibration error 0.750" in f for f in data.failures)
    md = render_markdown(data)
    assert "### Confidence: how often the primary reference was right" in md and "| 0.8–1.0 | 10 | 0.95 | 0.20 |" in md
    assert json.loads(render_json(data))["calibration"]["ece"] == pytest.approx(0.75)
