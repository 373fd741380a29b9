"""What the index keeps for the ranker: heading vectors (reused across builds) and mention indexes, per site."""

from __future__ import annotations

from pathlib import Path

from crawlers.model import Mention
from docbot.indexing.embed import HashEmbedder
from docbot.indexing.ranking_data import RankingData
from docbot.indexing.title_vectors import HeadingVectors
from tests.docbot.ask_fakes import make_chunks, make_map


class Counting(HashEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.embedded: list[str] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.embedded += texts
        return super().embed_documents(texts)


def test_heading_vectors_embed_each_path_once_and_reuse_them(tmp_path: Path) -> None:
    embedder = Counting()
    chunks = make_chunks()
    first = HeadingVectors.build(chunks, embedder)
    assert len(embedder.embedded) == len({c.path for c in chunks})
    again = HeadingVectors.build(chunks, embedder, first)
    assert len(embedder.embedded) == len({c.path for c in chunks})  # nothing embedded twice
    q = embedder.embed_query("Guide › Uploading Files")
    cos = again.cosines(q, [("Guide", "Uploading Files"), ("Guide", "Sessions"), ("No", "Such")])
    assert cos[0] is not None and cos[1] is not None and cos[0] > cos[1] and cos[2] is None
    first.save(tmp_path / "h")
    loaded = HeadingVectors.load(tmp_path / "h")
    assert loaded is not None and loaded.cosines(q, [("Guide", "Sessions")]) == first.cosines(q, [("Guide", "Sessions")])


def test_ranking_data_builds_both_and_opens_them_again(tmp_path: Path) -> None:
    from tests.docbot.indexing.test_mention_index import MENTIONS, texts

    data = RankingData(tmp_path, HashEmbedder())
    assert data.mentions("demo") is None and data.headings("demo") is None
    data.build("demo", texts(), make_map(), make_chunks(), MENTIONS)
    fresh = RankingData(tmp_path, HashEmbedder())
    mentions, headings = fresh.mentions("demo"), fresh.headings("demo")
    assert mentions is not None and mentions.search("reject huge request bodies", 1)
    assert headings is not None and len(headings.labels) == len({c.path for c in make_chunks()})
    assert isinstance(MENTIONS[0], Mention)
