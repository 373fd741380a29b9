"""What a reader sees: one generation of every served site, fixed for the life of the view.

An :class:`IndexView` is taken once per question (:meth:`docbot.indexing.index.Index.view`), so a question's
retrieval, its anchor maps and the validation of its links all come from the same generation of each site,
however many generations are committed while it is answered. Dense search asks the generation's own Chroma
collection; lexical search its BM25, loaded once per generation.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from crawlers.errors import AnchorMapError
from crawlers.model import AnchorMap
from crawlers.page_text import PageText
from docbot.errors import IndexMissing
from docbot.indexing.bm25 import Lexical
from docbot.indexing.chunk import Chunk
from docbot.indexing.embed import Embedder
from docbot.indexing.generations import Generation
from docbot.indexing.mentions import MentionIndex
from docbot.indexing.ranking_data import RankingData
from docbot.indexing.title_vectors import HeadingVectors

log = logging.getLogger(__name__)


class Vectors(Protocol):
    """What a view needs of :class:`~docbot.indexing.index.Index`: the model, and the collections by name."""

    data_dir: Path
    embedder: Embedder
    query_vector: Callable[[str], list[float]]

    def collection(self, name: str) -> Any: ...

    def check_model(self, site: str, model: str) -> None: ...


@dataclass(frozen=True, slots=True)
class Loaded:
    """One generation of one site, in memory."""

    site: str
    generation: int
    model: str
    collection: str  # the Chroma collection holding its vectors
    chunks: tuple[Chunk, ...]
    by_id: Mapping[str, Chunk]
    lexical: Lexical
    amap: AnchorMap
    ranking: RankingData  # what other pages say about its sections, its title paths embedded (for the ranker)
    pages: PageTextTable  # each page's visible text, read when a text directive first needs it


class PageTextTable:
    """A generation's page texts by URL, read from its ``pages.jsonl`` on first use (none: a crawl that kept none)."""

    def __init__(self, generation: Generation) -> None:
        self._generation = generation
        self._table: dict[str, PageText] | None = None
        self._lock = threading.Lock()

    def get(self, page: str) -> PageText | None:
        if self._table is None:
            with self._lock:
                if self._table is None:
                    try:
                        self._table = {p.url: p for p in self._generation.load_pages()}
                    except (AnchorMapError, OSError, ValueError) as exc:
                        log.warning("no page texts in generation %s of %s (%s); its text directives are dropped",
                                    self._generation.number, self._generation.site, exc)
                        self._table = {}
        return self._table.get(page)


class IndexView:
    """Search over one generation of each site (the :class:`~docbot.retrieval.hybrid.SearchIndex` protocol)."""

    def __init__(self, index: Vectors, sites: Mapping[str, Loaded]) -> None:
        self._index = index
        self._sites = dict(sites)

    @property
    def embedder(self) -> Embedder:
        return self._index.embedder

    @property
    def query_vector(self) -> Callable[[str], list[float]]:
        return self._index.query_vector

    @property
    def key(self) -> tuple[tuple[str, int], ...]:
        """(site, generation) of every site: equal keys, equal views."""
        return tuple((site, loaded.generation) for site, loaded in sorted(self._sites.items()))

    def sites(self) -> list[str]:
        """Sites with a committed generation, sorted."""
        return sorted(self._sites)

    def generations(self) -> dict[str, int]:
        return {site: loaded.generation for site, loaded in self._sites.items()}

    def maps(self) -> dict[str, AnchorMap]:
        """Each site's anchor map, of the generation this view reads."""
        return {site: loaded.amap for site, loaded in self._sites.items()}

    def _site(self, site: str) -> Loaded:
        loaded = self._sites.get(site)
        if loaded is None:
            raise IndexMissing(f"No index for site {site!r} in {self._index.data_dir}/ — run `docbot index --site {site}`")
        return loaded

    def _targets(self, sites: Sequence[str] | None) -> list[Loaded]:
        return [self._site(s) for s in (sites if sites is not None else self.sites())]

    def chunks(self, site: str) -> list[Chunk]:
        return list(self._site(site).chunks)

    def get(self, chunk_id: str) -> Chunk | None:
        """The chunk with this id in any site, or None."""
        return next((c for loaded in self._sites.values() if (c := loaded.by_id.get(chunk_id)) is not None), None)

    def dense(self, query: str, k: int = 20, sites: Sequence[str] | None = None) -> list[tuple[Chunk, float]]:
        """Top ``k`` chunks by cosine similarity (higher is better) across ``sites`` (default all)."""
        targets = self._targets(sites)
        for loaded in targets:
            self._index.check_model(loaded.site, loaded.model)
        if not targets or k <= 0:
            return []
        vector = self._index.query_vector(query)
        hits: list[tuple[Chunk, float]] = []
        for loaded in targets:
            if not loaded.chunks:
                continue
            result: Any = self._index.collection(loaded.collection).query(
                query_embeddings=[vector], n_results=min(k, len(loaded.chunks)), include=["distances"])
            for cid, distance in zip(result["ids"][0], result["distances"][0]):
                chunk = loaded.by_id.get(cid)
                if chunk is not None:
                    hits.append((chunk, 1.0 - float(distance)))
        hits.sort(key=lambda h: -h[1])
        return hits[:k]

    def lexical(self, query: str, k: int = 20, sites: Sequence[str] | None = None) -> list[tuple[Chunk, float]]:
        """Top ``k`` chunks by BM25 score across ``sites`` (default all); only chunks sharing a term."""
        hits: list[tuple[Chunk, float]] = []
        for loaded in self._targets(sites):
            table = loaded.by_id
            hits.extend((table[cid], score) for cid, score in loaded.lexical.search(query, k) if cid in table)
        hits.sort(key=lambda h: -h[1])
        return hits[:k]

    def doc_freq(self, site: str) -> tuple[dict[str, int], int]:
        """Document frequency of every token in the site's chunks, and the number of chunks (from BM25)."""
        return self._site(site).lexical.doc_freq()

    def mentions(self, site: str) -> MentionIndex | None:
        """What other pages say about the site's sections (None: its crawl kept none)."""
        return self._site(site).ranking.mentions(site)

    def headings(self, site: str) -> HeadingVectors | None:
        """The site's section title paths, embedded at index time."""
        return self._site(site).ranking.headings(site)

    def chunk_scores(self, query: str, site: str, ids: Sequence[str]) -> tuple[list[float], list[float]]:
        """(cosine, BM25 score) of ``query`` against each of the site's chunks ``ids``, wherever they rank (for the
        ranker's features: the lists above hold only each retriever's best)."""
        if not ids:
            return [], []
        loaded = self._site(site)
        got = self._index.collection(loaded.collection).get(ids=list(ids), include=["embeddings"])
        vectors = dict(zip(got["ids"], got["embeddings"]))
        q = np.asarray(self._index.query_vector(query), dtype=float)
        q /= np.linalg.norm(q) or 1.0
        cosines = [float(np.dot(q, v) / (np.linalg.norm(v) or 1.0)) if (v := vectors.get(i)) is not None else 0.0
                   for i in ids]
        return cosines, loaded.lexical.scores_of(query, ids)

    def page_text(self, site: str, page: str) -> PageText | None:
        """The visible text of one of the site's pages, of this view's generation."""
        loaded = self._sites.get(site)
        return loaded.pages.get(page) if loaded is not None else None
