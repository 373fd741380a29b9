"""The index: chunks in Chroma (dense) and BM25 (lexical), built incrementally per site.

The only module that talks to Chroma. Layout in the data directory:

- ``chroma/``: the embedded Chroma store (unless a Chroma server is used),
  one collection ``docbot_<site>`` per site, cosine space, embeddings passed
  explicitly (chromadb's own embedding function never runs).
- ``index/<site>.json``: the chunk manifest (model, dim, every chunk), written
  atomically at the end of a build: the commit point of an index run.
- ``bm25/<site>/``: the BM25 index (see :mod:`docbot.indexing.bm25`).
- ``mentions/<site>/``, ``headings/<site>/``: what the ranker reads besides the chunks (see
  :mod:`docbot.indexing.ranking_data`).

A build upserts new and changed chunks before deleting removed ones and only
then replaces the manifest, so an interrupted run leaves the previous index
usable; re-indexing an unchanged site embeds zero chunks.
"""

from __future__ import annotations

import functools
import json
import logging
import re
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import numpy as np

from crawlers.model import AnchorMap, Mention, SectionText, write_atomic
from docbot.indexing.chunk import Chunk, chunk_sections
from docbot.indexing.embed import Embedder, batched
from docbot.errors import EmbeddingMismatch, IndexMissing
from docbot.indexing.bm25 import Lexical, chunk_set_hash
from docbot.indexing.headings import HeadingVectors
from docbot.indexing.mentions import MentionIndex
from docbot.indexing.ranking_data import RankingData

log = logging.getLogger(__name__)

QUERY_VECTORS = 64  # recent questions whose embeddings are kept
EMBED_BATCH = 256  # texts per embedding call (the model sorts and sub-batches them)
UPSERT_BATCH = 1000  # under Chroma's maximum batch size
MANIFEST_VERSION = 1

Progress = Callable[[int, int], None]  # (chunks embedded so far, chunks to embed)


@dataclass(frozen=True, slots=True)
class IndexStats:
    """What one ``Index.build`` did."""

    site: str
    chunks: int
    embedded: int
    deleted: int
    seconds: float

    def to_json(self) -> dict[str, Any]:
        return {"site": self.site, "chunks": self.chunks, "embedded": self.embedded,
                "deleted": self.deleted, "seconds": round(self.seconds, 3)}


@dataclass(frozen=True, slots=True)
class _Manifest:
    site: str
    model: str
    dim: int
    chunks: tuple[Chunk, ...]


def collection_name(site: str) -> str:
    """Chroma collection name for a site: ``docbot_<site>`` with only [a-zA-Z0-9._-]."""
    return "docbot_" + (re.sub(r"[^A-Za-z0-9._-]+", "_", site).strip("._-") or "site")


def make_client(data_dir: Path, chroma_url: str | None = None) -> Any:
    """An HttpClient for ``chroma_url``, else a PersistentClient in ``data_dir/chroma``; telemetry off."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    settings = ChromaSettings(anonymized_telemetry=False)
    if chroma_url:
        parts = urlsplit(chroma_url if "://" in chroma_url else f"http://{chroma_url}")
        return chromadb.HttpClient(
            host=parts.hostname or "127.0.0.1",
            port=parts.port or (443 if parts.scheme == "https" else 8000),
            ssl=parts.scheme == "https",
            settings=settings,
        )
    (data_dir / "chroma").mkdir(parents=True, exist_ok=True)
    return chromadb.PersistentClient(path=str(data_dir / "chroma"), settings=settings)


def _metadata(chunk: Chunk) -> dict[str, Any]:
    return {
        "site": chunk.site, "url": chunk.url, "anchor": chunk.anchor or "", "deep_url": chunk.deep_url,
        "title": chunk.title, "path": chunk.path_label, "level": chunk.level, "source_type": chunk.source_type,
        "content_hash": chunk.content_hash, "part": chunk.part, "kind": chunk.kind,
    }


class Index:
    """Dense (Chroma) and lexical (BM25) retrieval over the chunks of every indexed site."""

    def __init__(self, data_dir: Path, embedder: Embedder, client: Any, owns_client: bool = False) -> None:
        self.data_dir = Path(data_dir)
        self.embedder = embedder
        self.client = client
        self._owns_client = owns_client
        self._manifests: dict[str, _Manifest] = {}
        self._by_id: dict[str, dict[str, Chunk]] = {}
        self._collections: dict[str, Any] = {}
        self._lexical: dict[str, Lexical] = {}
        self.ranking = RankingData(self.data_dir, embedder)  # mentions and heading vectors, for the ranker
        # One ask embeds its question for every retrieval (the site's own, a retry, one page) and for compression:
        # the model runs once per question.
        self.query_vector: Callable[[str], list[float]] = functools.lru_cache(maxsize=QUERY_VECTORS)(embedder.embed_query)

    @classmethod
    def open(cls, data_dir: Path, embedder: Embedder, chroma_url: str | None = None, client: Any = None) -> Index:
        """Open the index in ``data_dir``; ``client`` (a chromadb client) overrides ``chroma_url``."""
        if client is not None:
            return cls(Path(data_dir), embedder, client)
        return cls(Path(data_dir), embedder, make_client(Path(data_dir), chroma_url), owns_client=True)

    def close(self) -> None:
        """Release the Chroma client if this index created it (an injected client is the caller's)."""
        if self._owns_client and hasattr(self.client, "close"):
            servers = [getattr(self.client, "_server", None), getattr(getattr(self.client, "_admin_client", None), "_server", None)]
            self.client.close()
            # chromadb 1.x gives every HttpClient its own System but never closes
            # its httpx session on close() (a ResourceWarning); close the ones we own.
            for server in servers:
                session = getattr(server, "_session", None)
                if session is not None:
                    session.close()
        self._collections.clear()

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- paths and caches --------------------------------------------------
    def _manifest_path(self, site: str) -> Path:
        return self.data_dir / "index" / f"{site}.json"

    def _bm25_dir(self, site: str) -> Path:
        return self.data_dir / "bm25" / site

    def mentions(self, site: str) -> MentionIndex | None:
        return self.ranking.mentions(site)

    def headings(self, site: str) -> HeadingVectors | None:
        return self.ranking.headings(site)

    def _read_manifest(self, site: str) -> _Manifest | None:
        try:
            data = json.loads(self._manifest_path(site).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        return _Manifest(site, data["embedding_model"], int(data["dim"]),
                         tuple(Chunk.from_json(c) for c in data["chunks"]))

    def _manifest(self, site: str) -> _Manifest:
        if site not in self._manifests:
            manifest = self._read_manifest(site)
            if manifest is None:
                raise IndexMissing(f"No index for site {site!r} in {self.data_dir}/ — run `docbot index --site {site}`")
            self._cache(manifest)
        return self._manifests[site]

    def _cache(self, manifest: _Manifest) -> None:
        self._manifests[manifest.site] = manifest
        self._by_id[manifest.site] = {c.id: c for c in manifest.chunks}

    def _check_model(self, site: str, model: str) -> None:
        if model != self.embedder.name:
            raise EmbeddingMismatch(
                f"The index of site {site!r} was built with embeddings {model!r} but {self.embedder.name!r} "
                f"is configured — re-index with `docbot index --site {site} --rebuild` "
                f"(or set DOCBOT_EMBEDDINGS back to {model!r})"
            )

    def _collection(self, site: str, create: bool = False) -> Any:
        if site not in self._collections:
            metadata = {"embedding_model": self.embedder.name, "dim": self.embedder.dim, "site": site}
            if create:
                col = self.client.get_or_create_collection(
                    collection_name(site), metadata=metadata,
                    configuration={"hnsw": {"space": "cosine"}}, embedding_function=None,
                )
            else:
                col = self.client.get_collection(collection_name(site), embedding_function=None)
            self._collections[site] = col
        return self._collections[site]

    def _lexical_index(self, site: str) -> Lexical:
        if site not in self._lexical:
            manifest = self._manifest(site)
            lex = Lexical.load(self._bm25_dir(site))
            if lex is None or lex.set_hash != _set_hash(manifest.chunks):
                lex = _build_lexical(manifest.chunks)  # missing or stale: rebuild from the manifest
                lex.save(self._bm25_dir(site))
            self._lexical[site] = lex
        return self._lexical[site]

    # -- build ---------------------------------------------------------------
    def drop(self, site: str) -> None:
        """Forget a site entirely: its collection, manifest and BM25 index."""
        try:
            self.client.delete_collection(collection_name(site))
        except Exception:  # chromadb raises different errors for a missing collection across versions
            log.debug("no collection to drop for %s", site)
        self._manifest_path(site).unlink(missing_ok=True)
        for cache in (self._manifests, self._by_id, self._collections, self._lexical):
            cache.pop(site, None)
        self.ranking.forget(site)

    def build(
        self,
        site: str,
        sections: Sequence[SectionText],
        amap: AnchorMap,
        progress: Progress | None = None,
        *,
        rebuild: bool = False,
        mentions: Sequence[Mention] | None = None,
    ) -> IndexStats:
        """Chunk, embed what changed, upsert, delete what vanished, then commit the manifest.

        ``progress(done, total)`` is called before the first and after every stored
        embedding batch. ``rebuild`` drops the site first (needed after a model
        change, whose vectors may differ in dimension), so unlike an ordinary
        run an interrupted rebuild leaves the site unindexed. ``mentions`` (default: the crawl's, from the data
        dir) become the sections' mention index.
        """
        started = time.perf_counter()
        if rebuild:
            self.drop(site)
        old = self._read_manifest(site)
        if old is not None:
            self._check_model(site, old.model)
        chunks = chunk_sections(sections, amap)
        old_hashes = {c.id: c.content_hash for c in old.chunks} if old else {}
        collection = self._collection(site, create=True)
        if (collection.metadata or {}).get("embedding_model") != self.embedder.name:
            if old is None:  # vectors of another model without a manifest: start afresh
                self.drop(site)
                collection = self._collection(site, create=True)
            else:
                self._check_model(site, str((collection.metadata or {}).get("embedding_model")))
        if collection.count() != len(old_hashes):  # store and manifest disagree: trust only what Chroma holds
            held = collection.get(include=["metadatas"])
            old_hashes = {i: str((m or {}).get("content_hash", "")) for i, m in zip(held["ids"], held["metadatas"])}
        todo = [c for c in chunks if old_hashes.get(c.id) != c.content_hash]
        todo.sort(key=lambda c: len(c.embed_text))  # similar lengths per batch: less padding
        done = 0
        if progress:
            progress(0, len(todo))

        def upsert(batch: Sequence[Chunk], vectors: list[list[float]]) -> None:
            for part in range(0, len(batch), UPSERT_BATCH):
                piece = batch[part : part + UPSERT_BATCH]
                collection.upsert(
                    ids=[c.id for c in piece],
                    embeddings=vectors[part : part + UPSERT_BATCH],
                    metadatas=[_metadata(c) for c in piece],
                    documents=[c.embed_text for c in piece],
                )

        # One batch is stored (Chroma: SQLite writes, HNSW inserts) while the next is embedded.
        with ThreadPoolExecutor(1, thread_name_prefix="docbot-upsert") as writer:
            pending: Future[None] | None = None
            for batch in batched(todo, EMBED_BATCH):
                vectors = self.embedder.embed_documents([c.embed_text for c in batch])
                if pending is not None:
                    pending.result()  # a failed write stops the run here, before anything is committed
                    done += EMBED_BATCH
                    if progress:
                        progress(done, len(todo))
                pending = writer.submit(upsert, batch, vectors)
            if pending is not None:
                pending.result()
                done = len(todo)
                if progress:
                    progress(done, len(todo))
        keep = {c.id for c in chunks}
        gone = sorted(set(old_hashes) - keep)
        for piece in batched(gone, UPSERT_BATCH):
            collection.delete(ids=list(piece))
        lex = Lexical.load(self._bm25_dir(site))
        if lex is None or lex.set_hash != _set_hash(chunks):
            lex = _build_lexical(chunks)
            lex.save(self._bm25_dir(site))
        self.ranking.build(site, sections, amap, chunks, mentions)
        manifest = _Manifest(site, self.embedder.name, self.embedder.dim, tuple(chunks))
        write_atomic(self._manifest_path(site), json.dumps({
            "format_version": MANIFEST_VERSION, "site": site, "embedding_model": manifest.model,
            "dim": manifest.dim, "collection": collection_name(site), "chunks": [c.to_json() for c in chunks],
        }, ensure_ascii=False))
        self._cache(manifest)
        self._lexical[site] = lex
        return IndexStats(site, len(chunks), len(todo), len(gone), time.perf_counter() - started)

    # -- query ---------------------------------------------------------------
    def sites(self) -> list[str]:
        """Sites with a committed index, sorted."""
        directory = self.data_dir / "index"
        return sorted(p.stem for p in directory.glob("*.json")) if directory.is_dir() else []

    def chunks(self, site: str) -> list[Chunk]:
        return list(self._manifest(site).chunks)

    def get(self, chunk_id: str) -> Chunk | None:
        """The chunk with this id in any indexed site, or None."""
        for site in self.sites():
            chunk = self._by_id[site].get(chunk_id) if self._manifest(site) else None
            if chunk is not None:
                return chunk
        return None

    def _targets(self, sites: Sequence[str] | None) -> list[str]:
        names = list(sites) if sites is not None else self.sites()
        for site in names:
            self._manifest(site)  # raises IndexMissing early, with the command to run
        return names

    def dense(self, query: str, k: int = 20, sites: Sequence[str] | None = None) -> list[tuple[Chunk, float]]:
        """Top ``k`` chunks by cosine similarity (higher is better) across ``sites`` (default all)."""
        names = self._targets(sites)
        for site in names:
            self._check_model(site, self._manifests[site].model)
        if not names or k <= 0:
            return []
        vector = self.query_vector(query)
        hits: list[tuple[Chunk, float]] = []
        for site in names:
            size = len(self._manifests[site].chunks)
            if size == 0:
                continue
            result = self._collection(site).query(query_embeddings=[vector], n_results=min(k, size), include=["distances"])
            table = self._by_id[site]
            for cid, distance in zip(result["ids"][0], result["distances"][0]):
                chunk = table.get(cid)
                if chunk is not None:  # a vector of an interrupted run not yet in the manifest
                    hits.append((chunk, 1.0 - float(distance)))
        hits.sort(key=lambda h: -h[1])
        return hits[:k]

    def chunk_scores(self, query: str, site: str, ids: Sequence[str]) -> tuple[list[float], list[float]]:
        """(cosine, BM25 score) of ``query`` against each of the site's chunks ``ids``, wherever they rank (for
        the ranker's features: the lists above hold only each retriever's best)."""
        if not ids:
            return [], []
        got = self._collection(site).get(ids=list(ids), include=["embeddings"])
        vectors = dict(zip(got["ids"], got["embeddings"]))
        q = np.asarray(self.query_vector(query), dtype=float)
        q /= np.linalg.norm(q) or 1.0
        cosines = [float(np.dot(q, v) / (np.linalg.norm(v) or 1.0)) if (v := vectors.get(i)) is not None else 0.0
                   for i in ids]
        return cosines, self._lexical_index(site).scores_of(query, ids)

    def doc_freq(self, site: str) -> tuple[dict[str, int], int]:
        """Document frequency of every token in the site's chunks, and the number of chunks (from BM25)."""
        return self._lexical_index(site).doc_freq()

    def lexical(self, query: str, k: int = 20, sites: Sequence[str] | None = None) -> list[tuple[Chunk, float]]:
        """Top ``k`` chunks by BM25 score across ``sites`` (default all); only chunks sharing a term."""
        hits: list[tuple[Chunk, float]] = []
        for site in self._targets(sites):
            table = self._by_id[site]
            hits.extend((table[cid], score) for cid, score in self._lexical_index(site).search(query, k) if cid in table)
        hits.sort(key=lambda h: -h[1])
        return hits[:k]


def _set_hash(chunks: Sequence[Chunk]) -> str:
    return chunk_set_hash([(c.id, c.content_hash) for c in chunks])


def _build_lexical(chunks: Sequence[Chunk]) -> Lexical:
    return Lexical.build([c.id for c in chunks], [c.embed_text for c in chunks], _set_hash(chunks))
