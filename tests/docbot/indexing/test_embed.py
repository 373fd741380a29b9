"""Embedders: the real offline MiniLM model, the hash fake, and selection from settings."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

from docbot.config import Settings, load_settings
from docbot.errors import ConfigError
from docbot.indexing.embed import HashEmbedder, LocalMiniLM, OpenAIEmbedder, embedder_from_settings, embedder_from_spec


def test_importing_docbot_index_does_not_load_torch() -> None:
    code = "import docbot.indexing.index, docbot.indexing.embed, docbot.commands.index, sys; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_embedder_from_settings(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("DOCBOT_EMBEDDINGS", raising=False)
    assert isinstance(embedder_from_settings(Settings()), LocalMiniLM)
    (tmp_path / "docbot.toml").write_text('embeddings = "local"\n')
    monkeypatch.setenv("DOCBOT_EMBEDDINGS", "openai:text-embedding-3-large")  # the environment beats the file
    chosen = embedder_from_settings(load_settings(config_path=str(tmp_path / "docbot.toml")))
    assert isinstance(chosen, OpenAIEmbedder) and chosen.name == "openai:text-embedding-3-large" and chosen.dim == 3072
    monkeypatch.setenv("DOCBOT_EMBEDDINGS", "word2vec")
    with pytest.raises(ConfigError, match="DOCBOT_EMBEDDINGS"):
        embedder_from_settings(load_settings(config_path=str(tmp_path / "docbot.toml")))


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
def test_local_model_ranks_the_related_text_first(model_cache: Path) -> None:
    model = LocalMiniLM(cache_dir=model_cache)
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


def test_onnx_batches_cover_every_text_once_and_respect_the_token_budget() -> None:
    from docbot.indexing.embed_onnx import BATCH_TOKENS, MAX_BATCH, OnnxMiniLM

    lengths = [3, 256, 40, 40, 41, 7, 256, 120, 1, 90] * 7
    groups = OnnxMiniLM.batches(lengths)
    assert sorted(i for g in groups for i in g) == list(range(len(lengths)))
    for group in groups:
        padded = len(group) * max(lengths[i] for i in group)
        assert len(group) == 1 or (padded <= BATCH_TOKENS and len(group) <= MAX_BATCH)
    widths = [max(lengths[i] for i in g) for g in groups]
    assert widths == sorted(widths)  # shortest first: each batch is padded only to its own longest text


def test_unknown_local_backend_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCBOT_LOCAL_BACKEND", "tensorflow")
    with pytest.raises(ConfigError, match="DOCBOT_LOCAL_BACKEND"):
        embedder_from_spec("local", load_settings())


@pytest.mark.slow
def test_onnx_vectors_match_sentence_transformers(model_cache: Path) -> None:
    """The ONNX runner is a speed-up, not another model: same vectors, long and code texts included."""
    texts = [
        "Configuration › SESSION_COOKIE_SECURE\n\nControls whether the session cookie is only sent over HTTPS.",
        "Tutorial › Templates\n\n```html\n{% for user in users %}<li>{{ user.name }}</li>{% endfor %}\n```",
        "x",
        "Library › asyncio › Tasks\n\n" + "Wrap the coroutine in a Task and schedule its execution. " * 60,
        "Ünïcode 文档 — emojis 🎉 and accents: café, naïve.",
    ] * 3
    onnx = LocalMiniLM(backend="onnx", cache_dir=model_cache)
    fast = onnx.embed_documents(texts)
    assert onnx.backend == "onnx"
    slow = LocalMiniLM(backend="torch").embed_documents(texts)
    cosines = [sum(a * b for a, b in zip(u, v)) for u, v in zip(fast, slow)]
    assert min(cosines) >= 0.999, cosines


@pytest.mark.slow
def test_once_exported_the_local_model_answers_queries_without_torch(model_cache: Path) -> None:
    LocalMiniLM(backend="onnx", cache_dir=model_cache).embed_query("export it now if this run has not yet")
    code = ("import sys; from docbot.config import load_settings; from docbot.indexing.embed import embedder_from_spec; "
            "m = embedder_from_spec('local', load_settings()); v = m.embed_query('hello'); "
            "print(len(v), m.backend, 'torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["384", "onnx", "False"]


def test_without_an_onnx_export_the_local_model_falls_back_to_sentence_transformers(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from docbot.indexing import embed_onnx

    class FakeST:
        def encode(self, texts: list[str], **_: object) -> list[list[float]]:
            import numpy as np

            return np.ones((len(texts), 384), dtype=np.float32) / np.sqrt(384)

    def no_export(*_: object, **__: object) -> None:
        raise embed_onnx.ExportError("exporting the model needs the 'onnx' package")

    monkeypatch.setattr(embed_onnx, "export", no_export)
    model = LocalMiniLM(backend="onnx", cache_dir=tmp_path)
    model._model = FakeST()  # what sentence-transformers would load
    with caplog.at_level("WARNING", logger="docbot.indexing.embed"):
        vector = model.embed_query("hello")
    assert len(vector) == 384 and model.backend == "torch"
    assert "'onnx' package" in caplog.text


@pytest.mark.slow
def test_a_corrupt_cached_export_is_exported_again(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    from docbot.indexing import embed_onnx

    model = LocalMiniLM(backend="onnx", cache_dir=tmp_path)
    path = embed_onnx.onnx_path(Path(model._model_dir()), tmp_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"not an onnx model")  # e.g. a disk fault, or a file from another tool
    with caplog.at_level("WARNING", logger="docbot.indexing.embed"):
        vector = model.embed_query("session cookie")
    assert model.backend == "onnx" and len(vector) == 384
    assert "does not load" in caplog.text and path.stat().st_size > 1_000_000
