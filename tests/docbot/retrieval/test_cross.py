"""docbot's trained re-ranking model in retrieval: it re-orders a fresh question's first candidates after the ranker,
leaves follow-ups and the gate's evidence alone, and is chosen by settings (builtin, off or a folder)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from docbot.config import Settings, load_settings
from docbot.errors import ConfigError
from docbot.indexing.chunk import embedding_text
from docbot.retrieval.cross import CrossRanker, cross_ranker_from_settings, fused
from docbot.retrieval.hybrid import Retriever
from tests.docbot.ask_fakes import FakeIndex, make_chunks


class ShortestFirst(CrossRanker):
    """A stand-in model that scores a passage by how short it is (the real one is trained in tests/docbot/training)."""

    def __init__(self, depth: int = 20) -> None:
        super().__init__(Path("unused"), depth=depth)
        self.seen: list[int] = []

    def order(self, query: str, passages: Sequence[str]) -> list[int]:
        n = min(self.depth, len(passages))
        self.seen.append(n)
        return fused([-float(len(p)) for p in passages[:n]], self.weight) + list(range(n, len(passages)))


def test_the_model_orders_a_fresh_questions_first_candidates_and_the_gates_evidence_stays() -> None:
    chunks = make_chunks()
    plain = Retriever(FakeIndex(chunks), rank=False).search("upload size limit", k=5)
    model = ShortestFirst()
    ranked = Retriever(FakeIndex(chunks), rank=False, cross=model).search("upload size limit", k=5)
    sizes = [len(embedding_text(h.path, h.text)) for h in ranked.hits]  # what the model read: path, then text
    assert sizes == sorted(sizes) and model.seen
    assert ranked.leading == plain.leading and ranked.top_dense == plain.top_dense


def test_a_follow_up_keeps_the_order_that_favours_what_was_cited() -> None:
    chunks = make_chunks()
    model = ShortestFirst()
    first = Retriever(FakeIndex(chunks), rank=False).search("upload size limit", k=5)
    follow = Retriever(FakeIndex(chunks), rank=False, cross=model).search("upload size limit", k=5,
                                                                         boost=[first.hits[-1].deep_url])
    assert not model.seen and follow.hits


def test_fusion_weighs_the_given_order_against_the_scores() -> None:
    assert fused([0.1, 0.9, 0.5], None) == [1, 2, 0]  # the model alone
    assert fused([0.1, 0.9, 0.5], 1.0) == [1, 0, 2]  # equal weights: the model's first and the given first tie, the model wins on rank 1 + 2 against 1 + 3
    assert fused([0.1, 0.9, 0.5], 100.0) == [1, 2, 0]  # a heavy weight is the model's order
    assert fused([0.3, 0.3], None) == [0, 1]  # ties keep the given order


def test_settings_choose_builtin_off_or_a_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DOCBOT_RANK_MODEL", raising=False)
    assert cross_ranker_from_settings(Settings(rank_model="off")) is None
    folder = tmp_path / "model"
    folder.mkdir()
    chosen = cross_ranker_from_settings(Settings(rank_model=str(folder)))
    assert chosen is not None and chosen.model_dir == folder
    with pytest.raises(ConfigError, match="not a model folder"):
        cross_ranker_from_settings(Settings(rank_model=str(tmp_path / "absent")))
    (tmp_path / "docbot.toml").write_text(f'rank_model = "{folder}"\n')
    monkeypatch.setenv("DOCBOT_RANK_MODEL", "off")
    assert cross_ranker_from_settings(load_settings(config_path=str(tmp_path / "docbot.toml"))) is None  # the environment wins
