"""What the index keeps for the ranker: heading vectors (reused across builds) and mention indexes, per site."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

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


def test_a_mention_index_another_tokenizer_built_is_built_again_from_the_generation(tmp_path: Path) -> None:
    """An index from an older docbot (another tokenizer): its chunks' BM25 is rebuilt in memory, and so must be what
    other pages say of each section, or the ranker loses it, silently, until the next `docbot index`."""
    from docbot.indexing.bm25 import META_FILE
    from tests.docbot.indexing.test_mention_index import MENTIONS, texts

    RankingData(tmp_path, HashEmbedder()).build("demo", texts(), make_map(), make_chunks(), MENTIONS)
    meta_file = tmp_path / "mentions" / "demo" / "bm25" / META_FILE
    meta_file.write_text(json.dumps({**json.loads(meta_file.read_text()), "tokenizer": "words/1"}))
    assert RankingData(tmp_path, HashEmbedder()).mentions("demo") is None  # what it was, with nowhere to rebuild from
    reads: list[str] = []

    def sources() -> Any:
        reads.append("read")
        return texts(), make_map(), make_chunks(), MENTIONS

    data = RankingData(tmp_path, HashEmbedder(), sources)
    rebuilt = data.mentions("demo")
    assert rebuilt is not None and rebuilt.search("reject huge request bodies", 1)
    assert data.mentions("demo") is rebuilt and reads == ["read"]  # once per site
    # a site whose crawl kept no mentions has none, rebuilt or not
    assert RankingData(tmp_path / "none", HashEmbedder(), sources).mentions("demo") is None
