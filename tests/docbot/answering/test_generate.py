"""The LLM path against a real local fake of the OpenAI chat completions API on 127.0.0.1.

openai ≥ 3 sends requests through httpx2, which respx does not see; a tiny real
HTTP server exercises the whole client stack (retries, status codes) instead.
"""

from __future__ import annotations

import http.server
import json
import logging
import threading
import time
from collections.abc import Iterator

import pytest
from tests.docbot.ask_fakes import FakeIndex, make_chunks, make_map, make_validator

from docbot.answer import Status
from docbot.errors import GenerationError
from docbot.answering.generate import LLM_BUDGET_S, LLMGenerator, Passage
from docbot.pipeline import Pipeline

PASSAGES = [Passage(1, "Uploading Files", ("Guide", "Uploading Files"), "Set MAX_CONTENT_LENGTH.")]


class FakeOpenAI(http.server.BaseHTTPRequestHandler):
    replies: list[tuple[int, str]] = []
    seen: list[dict] = []
    delay = 0.0  # seconds before answering

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass

    def do_POST(self) -> None:  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        FakeOpenAI.seen.append(body)
        time.sleep(FakeOpenAI.delay)
        status, content = FakeOpenAI.replies.pop(0) if FakeOpenAI.replies else (200, "ok [1]")
        payload = {"id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                   "choices": [{"index": 0, "finish_reason": "stop",
                                "message": {"role": "assistant", "content": content}}],
                   "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
        data = json.dumps(payload if status == 200 else {"error": {"message": "boom"}}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture()
def llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[LLMGenerator]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FakeOpenAI)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    FakeOpenAI.replies, FakeOpenAI.seen, FakeOpenAI.delay = [], [], 0.0
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{server.server_address[1]}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    generator = LLMGenerator.from_env(model="fake-model", max_retries=0)
    yield generator
    server.shutdown()
    server.server_close()


def pipeline(generator: LLMGenerator) -> Pipeline:
    return Pipeline(FakeIndex(make_chunks()), {"demo": make_map()}, make_validator(), generator)


def test_prompt_carries_numbered_sources_and_the_rules(llm: LLMGenerator) -> None:
    assert llm.generate("limit uploads?", PASSAGES) == "ok [1]"
    sent = FakeOpenAI.seen[0]
    assert sent["model"] == "fake-model" and sent["temperature"] == 0
    prompt = "\n".join(m["content"] for m in sent["messages"])
    assert "[1] Guide › Uploading Files" in prompt and "Never write URLs" in prompt


def test_the_llm_sees_the_compressed_facts_not_whole_sections(llm: LLMGenerator) -> None:
    section = ("Files are kept in memory while small. But how do you cap the size? "
               "Set MAX_CONTENT_LENGTH to limit the upload size. A larger upload is refused.\n\n"
               "Templates are rendered with Jinja. Blueprints group views. Signals announce events. "
               "Extensions add features to apps. The weather in the docs is always sunny today.")
    llm.generate("how do I limit the upload size?", [Passage(1, "Uploads", ("Guide", "Uploads"), section)])
    prompt = "\n".join(m["content"] for m in FakeOpenAI.seen[-1]["messages"])
    assert "- Set MAX_CONTENT_LENGTH to limit the upload size." in prompt
    assert "how do you cap the size?" not in prompt and "sunny" not in prompt
    assert "rephrasing ONLY the numbered facts" in prompt


def test_server_error_raises_generation_error(llm: LLMGenerator) -> None:
    FakeOpenAI.replies = [(500, "")]
    with pytest.raises(GenerationError):
        llm.generate("q", PASSAGES)


def test_pipeline_falls_back_to_extractive_on_rate_limit(llm: LLMGenerator) -> None:
    FakeOpenAI.replies = [(429, "")]
    answer = pipeline(llm).ask("How do I limit the upload size with MAX_CONTENT_LENGTH?")
    assert answer.status == Status.ANSWERED and answer.generator == "extractive"
    assert answer.references[0].url == "http://docs.test/guide.html#uploading-files"


def test_hallucinated_urls_unknown_markers_and_link_forms_are_cleaned(llm: LLMGenerator) -> None:
    FakeOpenAI.replies = [(200, "Set the limit [1][7]. See http://evil.test/x and "
                                "[docs](http://docs.test/guide.html#Uploading_Files) and "
                                "<http://docs.test/nope.html|here>.")]
    answer = pipeline(llm).ask("How do I limit the upload size with MAX_CONTENT_LENGTH?")
    assert answer.generator == "llm"
    assert "[7]" not in answer.answer and "evil.test" not in answer.answer and "nope.html" not in answer.answer
    assert "(http://docs.test/guide.html#uploading-files)" in answer.answer
    assert [r.n for r in answer.references] == [1]
    assert answer.references[0].url == "http://docs.test/guide.html#uploading-files"


def test_a_slow_llm_is_given_up_within_the_budget_and_the_fallback_logged(
    llm: LLMGenerator, caplog: pytest.LogCaptureFixture
) -> None:
    assert llm.budget == LLM_BUDGET_S <= 20
    FakeOpenAI.delay = 1.5  # longer than the budget below; the client's own timeout would wait it out
    slow = LLMGenerator(llm.chat, budget=0.3)
    started = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="docbot.pipeline"):
        answer = pipeline(slow).ask("How do I limit the upload size with MAX_CONTENT_LENGTH?")
    assert time.monotonic() - started < 1.2
    assert answer.status == Status.ANSWERED and answer.generator == "extractive"
    assert "LLM fallback: The LLM gave no answer within 0.3 s" in caplog.text
