"""Embedders: the real offline MiniLM model, the hash fake, and selection from settings."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

from docbot.config import Settings
from docbot.embed import HashEmbedder, LocalMiniLM, OpenAIEmbedder, embedder_from_settings
from docbot.errors import ConfigError


def test_importing_docbot_index_does_not_load_torch() -> None:
    code = "import docbot.index, docbot.embed, docbot.commands.index, sys; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_embedder_from_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DOCBOT_EMBEDDINGS", raising=False)
    assert isinstance(embedder_from_settings(Settings()), LocalMiniLM)
    monkeypatch.setenv("DOCBOT_EMBEDDINGS", "openai:text-embedding-3-large")
    chosen = embedder_from_settings(Settings())
    assert isinstance(chosen, OpenAIEmbedder) and chosen.name == "openai:text-embedding-3-large" and chosen.dim == 3072
    monkeypatch.setenv("DOCBOT_EMBEDDINGS", "word2vec")
    with pytest.raises(ConfigError, match="DOCBOT_EMBEDDINGS"):
        embedder_from_settings(Settings())


def test_openai_embedder_uses_injected_client() -> None:
    class FakeEmbeddings:
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return [[float(len(t)), 1.0] for t in texts]

        def embed_query(self, text: str) -> list[float]:
            return [float(len(text)), 1.0]

    emb = OpenAIEmbedder("custom-model", client=FakeEmbeddings())
    assert emb.embed_documents(["ab", "abc"]) == [[2.0, 1.0], [3.0, 1.0]]
    assert emb.dim == 2 and emb.name == "openai:custom-model"


def test_hash_embedder_is_deterministic_and_normalised() -> None:
    a, b = HashEmbedder(), HashEmbedder()
    assert a.embed_query("session cookie") == b.embed_query("session cookie")
    assert math.isclose(sum(x * x for x in a.embed_query("session cookie")), 1.0, rel_tol=1e-9)


@pytest.mark.slow
def test_local_model_ranks_the_related_text_first() -> None:
    model = LocalMiniLM()
    docs = [
        "Configuration › SESSION_COOKIE_SECURE\n\nControls whether the session cookie is only sent over HTTPS.",
        "Tutorial › Templates\n\nRender HTML pages with Jinja templates.",
        "API › Blueprint\n\nBlueprints group routes into reusable components.",
    ]
    vectors = model.embed_documents(docs)
    assert len(vectors) == 3 and all(len(v) == model.dim == 384 for v in vectors)
    assert all(math.isclose(sum(x * x for x in v), 1.0, rel_tol=1e-4) for v in vectors)
    query = model.embed_query("how do I make cookies secure with https?")
    scores = [sum(q * d for q, d in zip(query, v)) for v in vectors]
    assert scores.index(max(scores)) == 0
