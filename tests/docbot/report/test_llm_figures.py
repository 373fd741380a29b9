"""`docbot report --llm`'s figures: what the LLM wrote, why it fell back, whether its markers map, how long it took."""

from __future__ import annotations

from pathlib import Path

import pytest

from docbot.cli import main
from docbot.report.llm_figures import llm_figures, reason_of, render_llm
from docbot.report.metrics import Question, QuestionResult

LINKS = ("http://d/a.html#x", "http://d/b.html#y")


def row(status: str, generator: str, answer: str, fallback: str | None = None, generate_ms: float = 0.0,
        links: tuple[str, ...] = LINKS) -> QuestionResult:
    question = Question(id="q", site="demo", kind="semantic", question="q?")
    timings = {"generate": generate_ms, "total": generate_ms + 50} if generate_ms else {"total": 5.0}
    return QuestionResult(question, "http://d/", status, links, (True,) * len(links), timings, answer=answer,
                          generator=generator, fallback=fallback)


def test_figures_count_what_the_llm_wrote_and_why_it_fell_back() -> None:
    figures = llm_figures([
        row("answered", "llm", "Set it [1], or this [2][3].", generate_ms=4000),  # [3] lists no reference
        row("answered", "llm", "Set it [1, 2].", generate_ms=8000),
        row("answered", "extractive", "Quoted [1].", "The LLM gave no answer within 90 s; answered extractively",
            generate_ms=90000),
        row("answered", "extractive", "Quoted [1].", "The LLM's answer cites none of its sources with an [n] "
            "marker; answered extractively", generate_ms=6000),
        row("not_covered", "extractive", "Not covered [1]."),  # the LLM is never asked
    ])
    assert (figures["answers"], figures["written_by_llm"], figures["fell_back"]) == (4, 2, 2)
    assert figures["fallback_reasons"] == {"no answer within the budget": 1, "no [n] marker for a source shown": 1}
    assert (figures["markers"], figures["markers_mapped"], figures["llm_answers_all_markers_mapped"]) == (5, 4, 1)
    assert figures["generate_ms"] == {"p50": 6000, "p95": 90000}
    markdown = render_llm(figures, "llamacpp:smollm2")
    assert "### The LLM (llamacpp:smollm2)" in markdown and "| answers written by the LLM | 2 of 4 |" in markdown
    assert "| generate step p50 / p95 | 6.0 s / 90.0 s |" in markdown


@pytest.mark.parametrize(("note", "reason"), [
    ("The LLM server stopped mid-answer (its stream closed with no finish reason); answered extractively",
     "server stopped mid-answer"),
    ("The LLM server refused the prompt as longer than its context window (…); answered extractively",
     "prompt over the context window"),
    ("The LLM call failed (OpenAIAPIError: Error code: 500 - boom); answered extractively", "other failure"),
])
def test_each_fallback_note_has_its_reason(note: str, reason: str) -> None:
    assert reason_of(note) == reason


def test_report_llm_without_an_llm_says_what_to_set(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "DOCBOT_LLM_MODEL", "DOCBOT_LLM_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DOCBOT_EMBEDDINGS", "hash")
    questions = tmp_path / "q.jsonl"
    questions.write_text('{"id": "q", "site": "demo", "kind": "semantic", "question": "q?"}\n', encoding="utf-8")
    (tmp_path / "docbot.toml").write_text("", encoding="utf-8")
    code = main(["--config", str(tmp_path / "docbot.toml"), "--data-dir", str(tmp_path / "d"), "--anchor-maps",
                 str(tmp_path / "m"), "report", "--llm", "--questions", str(questions), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 1 and "report --llm needs an LLM: set DOCBOT_LLM_MODEL and DOCBOT_LLM_BASE_URL" in err
    assert len(err.strip().splitlines()) == 1
