"""Indexing one staged generation: its chunks, their vectors, its BM25, what the ranker reads, then its manifest.

:mod:`docbot.updating` stages a generation and commits it; :func:`index_generation` fills it in between. The vectors
go into the generation's own collection through :class:`~docbot.indexing.index.Index` (copied from the generation
before where a chunk is unchanged, embedded otherwise); a generation whose chunks are all unchanged shares its
predecessor's collection and BM25. The manifest is written last: its presence marks the generation indexed.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from crawlers.model import AnchorMap, SectionText
from crawlers.texts import read_mentions
from docbot.indexing.bm25 import Lexical, build_lexical, chunks_hash
from docbot.indexing.chunk import Chunk, chunk_sections
from docbot.indexing.generations import Generation, link_or_copy
from docbot.indexing.index import Index, Progress
from docbot.indexing.manifest import Manifest, collection_name
from docbot.indexing.ranking_data import RankingData
from docbot.indexing.title_vectors import HeadingVectors


@dataclass(frozen=True, slots=True)
class IndexStats:
    """What indexing one generation did."""

    site: str
    chunks: int
    embedded: int
    deleted: int
    seconds: float
    generation: int = 0
    reused: int = 0  # vectors copied (or shared) from the generation before

    def to_json(self) -> dict[str, Any]:
        return {"site": self.site, "generation": self.generation, "chunks": self.chunks, "embedded": self.embedded,
                "reused": self.reused, "deleted": self.deleted, "seconds": round(self.seconds, 3)}


def index_generation(index: Index, generation: Generation, previous: Generation | None,
                     progress: Progress | None = None, *, rebuild: bool = False,
                     old: Manifest | None = None) -> IndexStats:
    """Chunk ``generation``'s texts against its map; store its vectors (from ``previous`` where a chunk is
    unchanged, embedded otherwise) in its collection; write its BM25, then its manifest. Nothing is committed:
    a failure leaves no manifest and no collection of its own behind. ``old`` stands for ``previous``'s manifest
    when the vectors to reuse are not in a generation (a data dir from before generations)."""
    started = time.perf_counter()
    site = generation.site
    sections, amap = generation.load_texts(), generation.load_map()
    chunks = chunk_sections(sections, amap)
    if old is None and previous is not None and not rebuild:
        old = Manifest.read(previous)
    if old is not None:
        index.check_model(site, old.model)
    before = RankingData(previous.path, index.embedder).headings(site) if previous is not None else None
    if old is not None and chunks_hash(old.chunks) == chunks_hash(chunks) and previous is not None:
        if Lexical.usable(previous.bm25_dir):  # nothing changed: share the vectors and BM25
            _link_tree(previous.bm25_dir, generation.bm25_dir)
        else:  # another docbot's tokenizer built it: this generation gets one of its own, not rebuilt on every load
            build_lexical(chunks).save(generation.bm25_dir)
        _ranking_data(index, generation, sections, amap, chunks, before)
        Manifest(site, old.model, old.dim, old.collection, tuple(chunks)).write(generation)
        if progress:
            progress(0, 0)
        return IndexStats(site, len(chunks), 0, 0, time.perf_counter() - started, generation.number, len(chunks))
    name = collection_name(site, generation.number)
    try:
        reused, embedded = index.store_vectors(name, chunks, old, progress)
        build_lexical(chunks).save(generation.bm25_dir)
        _ranking_data(index, generation, sections, amap, chunks, before)
        Manifest(site, index.embedder.name, index.embedder.dim, name, tuple(chunks)).write(generation)
    except BaseException:
        index.drop_collection(name)
        raise
    gone = len({c.id for c in old.chunks} - {c.id for c in chunks}) if old else 0
    return IndexStats(site, len(chunks), embedded, gone, time.perf_counter() - started, generation.number, reused)


def _ranking_data(index: Index, generation: Generation, sections: Sequence[SectionText], amap: AnchorMap,
                  chunks: Sequence[Chunk], before: HeadingVectors | None) -> None:
    """What the ranker reads beside the chunks (:mod:`docbot.indexing.ranking_data`), in the generation's folder;
    the title paths embedded for the generation before are not embedded again."""
    RankingData(generation.path, index.embedder).build(generation.site, sections, amap, chunks,
                                                       read_mentions(generation.mentions_file), previous=before)


def _link_tree(source: Path, target: Path) -> None:
    target.mkdir(parents=True, exist_ok=True)
    for path in source.iterdir():
        link_or_copy(path, target / path.name)
