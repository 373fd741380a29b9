"""How real servers fail, played by the fake OpenAI server: each failure is the extractive answer with a note."""

from __future__ import annotations

import time

import pytest

from docbot.answer import Status
from docbot.answering.generate import LLMGenerator, generator_from_settings, openai_chat
from docbot.config import Settings
from docbot.pipeline import Pipeline
from tests.docbot.answering.fake_openai import FakeOpenAI
from tests.docbot.ask_fakes import FakeIndex, make_chunks, make_map, make_validator

QUESTION = "How do I limit the upload size with MAX_CONTENT_LENGTH?"
LLAMA_CPP_400 = "Requested tokens (2100) exceed context window of 2048"  # llama-cpp-python's words


def ask(generator: LLMGenerator) -> object:
    return Pipeline(FakeIndex(make_chunks()), {"demo": make_map()}, make_validator(), generator).ask(QUESTION)


def generator(url: str, budget: float = 5.0, context: int | None = None, max_tokens: int = 50) -> LLMGenerator:
    return LLMGenerator(openai_chat("m", url, "k", max_retries=0, max_tokens=max_tokens), budget, context, max_tokens)


@pytest.mark.parametrize(("reply", "note"), [
    ((200, ""), "The LLM returned an empty answer"),
    ((200, "Uploads are limited by a setting."), "cites none of its sources"),
    ((200, "See [9] for that."), "cites none of its sources"),
    ((400, "The prompt is too long for the context window"), "longer than its context window"),
    ((500, ""), "The LLM call failed (OpenAIAPIError: Error code: 500"),
])
def test_each_failure_is_the_extractive_answer_with_a_note(fake_openai: str, reply: tuple[int, str],
                                                           note: str) -> None:
    FakeOpenAI.replies = [reply]
    answer = ask(generator(fake_openai))
    assert answer.status == Status.ANSWERED and answer.generator == "extractive"  # type: ignore[attr-defined]
    assert note in answer.fallback and answer.to_json()["fallback"] == answer.fallback  # type: ignore[attr-defined]
    assert answer.references[0].url.startswith("http://docs.test/guide.html#uploading-files")  # type: ignore[attr-defined]


def test_a_used_answer_has_no_note(fake_openai: str) -> None:
    answer = ask(generator(fake_openai))
    assert answer.generator == "llm" and answer.fallback is None and "fallback" not in answer.to_json()  # type: ignore[attr-defined]


def test_a_server_that_dies_mid_stream_gives_way(fake_openai: str) -> None:
    FakeOpenAI.replies = [(200, "Set MAX_CONTENT_LENGTH to cap uploads [1], or else")]
    FakeOpenAI.die_after = 3
    answer = ask(generator(fake_openai))
    assert answer.generator == "extractive" and "stopped mid-answer" in answer.fallback  # type: ignore[attr-defined]
    assert "or else" not in answer.answer  # type: ignore[attr-defined] - no half answer


def test_an_answer_cut_at_max_tokens_loses_its_unfinished_sentence(fake_openai: str) -> None:
    FakeOpenAI.replies = [(200, "Set MAX_CONTENT_LENGTH [1]. Requests over it get a 413 [1]. Then the serv")]
    FakeOpenAI.finish = "length"
    answer = ask(generator(fake_openai))
    assert answer.generator == "llm" and answer.answer.endswith("get a 413 [1].")  # type: ignore[attr-defined]


def test_the_window_a_server_names_in_its_refusal_is_learned_and_the_prompt_packed_again(fake_openai: str) -> None:
    FakeOpenAI.replies = [(400, LLAMA_CPP_400.replace("2048", "450")), (200, "Set it [1].")]
    llm = generator(fake_openai, context=None)
    llm._probed = True  # the fake has no /v1/models
    answer = ask(llm)
    assert answer.generator == "llm" and llm.context == 450  # type: ignore[attr-defined]
    first, second = ("".join(m["content"] for m in sent["messages"]) for sent in FakeOpenAI.seen)
    assert len(second) < len(first) and len(second) / 3 + 50 < 450


def test_a_call_given_up_is_closed_so_the_server_stops_writing(fake_openai: str) -> None:
    FakeOpenAI.replies = [(200, "word [1] " * 200)]
    FakeOpenAI.drip = 0.05  # 40 s of answer
    started = time.monotonic()
    answer = ask(generator(fake_openai, budget=0.6))
    assert answer.generator == "extractive" and "within 0.6 s" in answer.fallback  # type: ignore[attr-defined]
    deadline = time.monotonic() + 3
    while not FakeOpenAI.closed_at and time.monotonic() < deadline:
        time.sleep(0.05)
    assert FakeOpenAI.closed_at and FakeOpenAI.closed_at[0] - started < 2.5


def test_settings_reach_the_generator_and_its_client(fake_openai: str) -> None:
    llm = generator_from_settings(Settings(llm="llamacpp:smollm2", llm_base_url=fake_openai, llm_context=2048,
                                          llm_max_tokens=200, llm_budget_s=90))
    assert isinstance(llm, LLMGenerator) and (llm.context, llm.max_tokens, llm.budget) == (2048, 200, 90)
    assert llm.chat.request_timeout == 90 and llm.chat.max_retries == 0 and llm.chat.max_tokens == 200
    assert llm.generate("q?", list(ask_passages())) == "Set MAX_CONTENT_LENGTH [1]."
    sent = FakeOpenAI.seen[-1]
    assert sent["model"] == "smollm2" and sent["stream"] is True
    assert sent["max_tokens"] == sent["max_completion_tokens"] == 200  # llama-cpp-python reads only max_tokens


def ask_passages() -> list:
    from docbot.answering.generate import Passage

    return [Passage(1, "Uploads", ("Guide", "Uploads"), "Set MAX_CONTENT_LENGTH to limit uploads.")]
