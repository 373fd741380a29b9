"""The LLM path against a real local fake of the OpenAI chat completions API on 127.0.0.1 (fake_openai.py)."""

from __future__ import annotations

import logging
import os
import time

import pytest

from docbot.answer import Status
from docbot.answering.generate import (
    LLM_BUDGET_S,
    OLLAMA_URL,
    LLMGenerator,
    Passage,
    generator_from_settings,
    openai_chat,
)
from docbot.config import Settings
from docbot.errors import ConfigError, GenerationError
from docbot.pipeline import Pipeline
from tests.docbot.answering.fake_openai import FakeOpenAI
from tests.docbot.ask_fakes import FakeIndex, make_chunks, make_map, make_validator

PASSAGES = [Passage(1, "Uploading Files", ("Guide", "Uploading Files"), "Set MAX_CONTENT_LENGTH.")]


@pytest.fixture()
def llm(fake_openai: str) -> LLMGenerator:
    return LLMGenerator(openai_chat("fake-model", fake_openai, "test", max_retries=0))


def test_the_api_key_goes_to_the_client_and_never_into_the_environment(fake_openai: str,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    keyless = generator_from_settings(Settings(openai_base_url=fake_openai))  # a local server that wants no key
    assert keyless is not None and keyless.generate("q", PASSAGES) == "Set MAX_CONTENT_LENGTH [1]."
    keyed = generator_from_settings(Settings(llm="qwen2.5:7b", openai_base_url=fake_openai, openai_api_key="sk-test"))
    assert keyed is not None and keyed.generate("q", PASSAGES) == "Set MAX_CONTENT_LENGTH [1]."
    assert FakeOpenAI.keys == ["Bearer unused", "Bearer sk-test"] and "OPENAI_API_KEY" not in os.environ
    assert [sent["model"] for sent in FakeOpenAI.seen] == ["gpt-4o-mini", "qwen2.5:7b"]  # a bare name, colon and all
    assert "sk-test" not in repr(Settings(openai_api_key="sk-test"))


def test_without_a_key_or_a_server_the_answer_is_extractive(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-in-the-environment")  # only settings count, as load_settings read them
    assert generator_from_settings(Settings()) is None
    assert generator_from_settings(Settings(llm="openai:gpt-4o")) is None


def test_ollama_names_a_local_server_and_a_model(fake_openai: str) -> None:
    local = generator_from_settings(Settings(llm="ollama:llama3.1:8b"))
    assert isinstance(local, LLMGenerator)
    assert local.chat.model_name == "llama3.1:8b" and local.chat.openai_api_base == OLLAMA_URL
    elsewhere = generator_from_settings(Settings(llm="ollama:llama3.1:8b", openai_base_url=fake_openai))
    assert elsewhere is not None and elsewhere.generate("q", PASSAGES) == "Set MAX_CONTENT_LENGTH [1]."
    assert FakeOpenAI.seen[-1]["model"] == "llama3.1:8b"
    with pytest.raises(ConfigError, match=r"ollama:llama3\.1:8b"):
        generator_from_settings(Settings(llm="ollama"))


def pipeline(generator: LLMGenerator) -> Pipeline:
    return Pipeline(FakeIndex(make_chunks()), {"demo": make_map()}, make_validator(), generator)


def test_prompt_carries_numbered_sources_and_the_rules(llm: LLMGenerator) -> None:
    assert llm.generate("limit uploads?", PASSAGES) == "Set MAX_CONTENT_LENGTH [1]."
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
    with caplog.at_level(logging.WARNING, logger="docbot.answering.generate"):
        answer = pipeline(slow).ask("How do I limit the upload size with MAX_CONTENT_LENGTH?")
    assert time.monotonic() - started < 1.2
    assert answer.status == Status.ANSWERED and answer.generator == "extractive"
    assert "LLM fallback: The LLM gave no answer within 0.3 s" in caplog.text
