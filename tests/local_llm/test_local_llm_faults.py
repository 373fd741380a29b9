"""The real server failing: a context window smaller than configured, the server killed mid-answer, a budget too
short for it. Each is the extractive answer with its reason, never a failed reply or an unchecked link."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from docbot.answer import Answer
from docbot.answering.generate import LLMGenerator
from tests.local_llm.conftest import CONTEXT, QUESTION, Server, Site, assert_sound, pipeline_for, serve_model, use_llm

pytestmark = [pytest.mark.slow, pytest.mark.local_llm]



def ask(site: Site) -> tuple[Answer, LLMGenerator]:
    pipeline = pipeline_for(site)
    try:
        assert isinstance(pipeline.generator, LLMGenerator)
        return pipeline.ask(QUESTION, site="requests"), pipeline.generator
    finally:
        pipeline.index.close()


def test_a_server_with_a_smaller_window_than_configured_is_learned_from_its_refusal(
        requests_site: Site, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    small = serve_model(tmp_path, n_ctx=512)
    try:
        use_llm(monkeypatch, small, context=2048)  # the operator says 2048; the server has 512
        answer, generator = ask(requests_site)
    finally:
        small.stop()
    # Streaming, llama-cpp-python answers an over-long prompt with an empty 200; asked again without streaming it
    # refuses it (400) naming its window, and the prompt is packed to that window.
    assert generator.context == 512
    log = small.log_text()
    assert "exceed context window of 512" in log and '"POST /v1/chat/completions HTTP/1.1" 400' in log, log[-3000:]
    assert answer.status == "answered"
    assert_sound(answer.to_json(), kept_reasons=("cites none of its sources", "empty answer",
                                                 "says nothing its sources say", "context window"))


def test_the_server_killed_mid_answer_gives_the_extractive_answer(requests_site: Site, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    doomed = serve_model(tmp_path)
    use_llm(monkeypatch, doomed, max_tokens=200)
    box: dict[str, Answer] = {}
    asking = threading.Thread(target=lambda: box.setdefault("answer", ask(requests_site)[0]))
    asking.start()
    deadline = time.monotonic() + 60
    while '"POST /v1/chat/completions HTTP/1.1" 200' not in doomed.log_text() and time.monotonic() < deadline:
        time.sleep(0.05)  # the stream has started: its headers are out, the model is reading the prompt
    time.sleep(0.5)
    doomed.proc.kill()
    asking.join(60)
    doomed.stop()
    answer = box["answer"]
    assert answer.status == "answered" and answer.generator == "extractive"
    assert answer.fallback is not None and "mid-answer" in answer.fallback, answer.fallback
    assert_sound(answer.to_json(), kept_reasons=("mid-answer",))


def test_a_budget_too_short_gives_way_and_the_server_stops_writing(llama: Server, requests_site: Site,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    use_llm(monkeypatch, llama, context=CONTEXT + 200, budget=0.5, max_tokens=200)  # the prompt starts as before
    before = len(llama.log_text())
    started = time.monotonic()
    answer, _ = ask(requests_site)
    assert answer.generator == "extractive" and "within 0.5 s" in (answer.fallback or "")
    assert answer.timings_ms["generate"] < 1500
    assert_sound(answer.to_json(), kept_reasons=("within 0.5 s",))
    # The stream was closed: the server notices at its next token and stops, instead of writing 400 tokens nobody
    # reads while the next question waits for its lock (a non-streamed call runs to its end).
    deadline = time.monotonic() + 60
    while "Disconnected from client" not in llama.log_text()[before:] and time.monotonic() < deadline:
        time.sleep(0.1)
    assert "Disconnected from client" in llama.log_text()[before:], time.monotonic() - started
