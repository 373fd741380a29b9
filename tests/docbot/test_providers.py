"""The provider registry: a spec names a chat model, an embedder or a re-ranker; adding one is one registration."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from docbot.answering.generate import LLMGenerator, generator_from_settings
from docbot.config import Settings
from docbot.errors import ConfigError
from docbot.indexing.embed import HashEmbedder, LocalMiniLM, OpenAIEmbedder, embedder_from_settings
from docbot.pipeline import Pipeline
from docbot.providers import CHAT, EMBEDDERS, RANK_MODELS, RERANKERS, Spec, parse
from docbot.retrieval.cross import CrossRanker, cross_ranker_from_settings
from docbot.retrieval.rerank import Reranker, reranker_from_settings


class FakeChat:
    def __init__(self, model: str) -> None:
        self.model = model

    def invoke(self, prompt: object) -> str:
        return "ok [1]"


@pytest.fixture()
def acme() -> Iterator[dict[str, Spec]]:
    """An "acme" provider of every kind, registered as a deployment would, and removed afterwards."""
    seen: dict[str, Spec] = {}

    @EMBEDDERS.register("acme", "acme:<dim>")
    def _embedder(spec: Spec, settings: Settings) -> HashEmbedder:
        seen["embeddings"] = spec
        return HashEmbedder(int(spec.name), name="acme")

    @CHAT.register("acme", "acme:<model>")
    def _chat(spec: Spec, settings: Settings) -> FakeChat:
        seen["chat"] = spec
        return FakeChat(spec.name)

    @RERANKERS.register("acme", "acme:<model>")
    def _reranker(spec: Spec, settings: Settings) -> Reranker:
        seen["rerank"] = spec
        return Reranker(spec.name, loader=lambda _: None)

    @RANK_MODELS.register("acme", "acme:<folder>")
    def _rank(spec: Spec, settings: Settings) -> CrossRanker:
        seen["rank"] = spec
        return CrossRanker(spec.name)

    yield seen
    for registry in (EMBEDDERS, CHAT, RERANKERS, RANK_MODELS):
        registry.unregister("acme")


def test_a_registered_provider_is_used_by_the_pipeline_without_other_edits(acme: dict[str, Spec],
                                                                            tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", anchor_maps=tmp_path / "maps", embeddings="acme:64",
                        llm="acme:big-model", rerank_model="acme:mpnet", rank_model="acme:/models/cross")
    pipeline = Pipeline.from_settings(settings, live_pages=None)
    try:
        assert pipeline.index.embedder.name == "acme" and pipeline.index.embedder.dim == 64
        assert isinstance(pipeline.generator, LLMGenerator) and pipeline.generator.chat.model == "big-model"
        assert pipeline.reranker is not None and pipeline.reranker.model_dir == "mpnet"
        assert cross_ranker_from_settings(settings).model_dir == Path("/models/cross")  # type: ignore[union-attr]
    finally:
        pipeline.index.close()
    assert acme["chat"] == Spec("acme", "big-model", "acme:big-model")
    assert set(acme) == {"embeddings", "chat", "rerank", "rank"}
    assert "acme:<dim>" in EMBEDDERS.unknown("nope")  # and it is offered in messages


def test_an_unknown_spec_names_the_known_ones_and_what_to_do() -> None:
    with pytest.raises(ConfigError) as caught:
        embedder_from_settings(Settings(embeddings="word2vec:300"))
    message = str(caught.value)
    assert "Unknown embeddings 'word2vec:300'" in message and "DOCBOT_EMBEDDINGS" in message
    assert all(f"'{usage}'" in message for usage in ("local", "openai:<model>", "hash[:<dim>]"))
    assert "register a provider" in message


def test_a_provider_that_builds_no_embedder_is_refused() -> None:
    EMBEDDERS.register("broken", "broken")(lambda spec, settings: object())
    try:
        with pytest.raises(ConfigError, match="not an Embedder"):
            embedder_from_settings(Settings(embeddings="broken"))
    finally:
        EMBEDDERS.unregister("broken")


def test_every_spec_docbot_documented_still_chooses_the_same_model(tmp_path: Path) -> None:
    assert isinstance(embedder_from_settings(Settings()), LocalMiniLM)
    assert isinstance(embedder_from_settings(Settings(embeddings="all-MiniLM-L6-v2")), LocalMiniLM)
    local = embedder_from_settings(Settings(embeddings="local", local_backend="torch", model_cache=tmp_path))
    assert isinstance(local, LocalMiniLM) and local.backend == "torch" and local.cache_dir == tmp_path
    chosen = embedder_from_settings(Settings(embeddings="openai"))
    assert isinstance(chosen, OpenAIEmbedder) and chosen.name == "openai:text-embedding-3-small"
    assert embedder_from_settings(Settings(embeddings="hash:384")).dim == 384
    assert reranker_from_settings(Settings()) is None
    assert reranker_from_settings(Settings(rerank_model="C:/models/mpnet")).model_dir == "C:/models/mpnet"  # type: ignore[union-attr]
    assert cross_ranker_from_settings(Settings(rank_model="off")) is None
    assert generator_from_settings(Settings(llm="gpt-4o")) is None  # no key and no server: extractive


def test_a_spec_splits_at_its_first_colon() -> None:
    assert parse(" ollama:llama3.1:8b ") == Spec("ollama", "llama3.1:8b", "ollama:llama3.1:8b")
    assert parse("local") == Spec("local", "", "local")


def test_openai_embeddings_get_the_key_and_server_from_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    local = embedder_from_settings(Settings(embeddings="openai:nomic", openai_base_url="http://127.0.0.1:9/v1"))
    client = local.client  # type: ignore[attr-defined]
    assert client.openai_api_base == "http://127.0.0.1:9/v1" and client.openai_api_key.get_secret_value() == "unused"
    hosted = embedder_from_settings(Settings(embeddings="openai", openai_api_key="sk-test")).client  # type: ignore[attr-defined]
    assert hosted.openai_api_key.get_secret_value() == "sk-test" and "OPENAI_API_KEY" not in os.environ
