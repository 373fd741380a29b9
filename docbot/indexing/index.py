"""The index: the Chroma adapter, and what readers and the writer of a generation reach it through.

The only module that talks to Chroma (:mod:`docbot.indexing.store` opens the client). A generation (:mod:`docbot.indexing.generations`) keeps its vectors in a
collection of its own, ``docbot_<site>_g<n>`` (cosine space, embeddings passed explicitly: chromadb's own
embedding function never runs), named in its chunk manifest. Indexing a generation (:mod:`docbot.indexing.build`)
stores its vectors here: those of unchanged chunks copied from the generation before, new and changed ones embedded.
A collection is deleted once no kept generation names it, and its segment folder with it
(:mod:`docbot.indexing.segments`).

Readers take an :class:`~docbot.indexing.view.IndexView` (loaded by :mod:`docbot.indexing.loader`): each site's
generation current at that moment, loaded once per process and kept until a newer one is committed. A reader on a
data dir it may not write opens a private copy of the vector store (Chroma writes when it opens one).
"""

from __future__ import annotations

import functools
import logging
import os
import re
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from docbot.config import Settings
from docbot.errors import EmbeddingMismatch, IndexMissing
from docbot.indexing.chunk import Chunk
from docbot.indexing.embed import Embedder, batched
from docbot.indexing.generations import Generation
from docbot.indexing.loader import GenerationLoader
from docbot.indexing.manifest import Manifest, collection_name
from docbot.indexing.segments import sweep_segments
from docbot.indexing.store import make_client
from docbot.indexing.view import IndexView

log = logging.getLogger(__name__)

QUERY_VECTORS = 64  # recent questions whose embeddings are kept
EMBED_BATCH = 256  # texts per embedding call (the model sorts and sub-batches them)
UPSERT_BATCH = 1000  # under Chroma's maximum batch size

Progress = Callable[[int, int], None]  # (chunks embedded so far, chunks to embed)


def _metadata(chunk: Chunk) -> dict[str, Any]:
    return {"site": chunk.site, "deep_url": chunk.deep_url, "content_hash": chunk.content_hash, "part": chunk.part}


class Index:
    """Chroma over every site's generations: readers take views of it (:mod:`docbot.indexing.loader`); the writer
    of a generation (:mod:`docbot.indexing.build`, run by :mod:`docbot.updating`) stores its vectors in it."""

    def __init__(self, data_dir: Path, embedder: Embedder, client: Any, owns_client: bool = False,
                 chroma_url: str | None = None) -> None:
        self.data_dir = Path(data_dir)
        self.embedder = embedder
        self.client = client
        self._owns_client = owns_client
        self._chroma_url = chroma_url
        self._collections: dict[str, Any] = {}
        self._generations = GenerationLoader(self)
        # One ask embeds its question for every retrieval (the site's own, a retry, one page) and for compression:
        # the model runs once per question.
        self.query_vector: Callable[[str], list[float]] = functools.lru_cache(maxsize=QUERY_VECTORS)(embedder.embed_query)

    @classmethod
    def open(cls, data_dir: Path, embedder: Embedder, chroma_url: str | None = None, client: Any = None) -> Index:
        """Open the index in ``data_dir``; ``client`` (a chromadb client) overrides ``chroma_url``."""
        if client is not None:
            return cls(Path(data_dir), embedder, client)
        return cls(Path(data_dir), embedder, make_client(Path(data_dir), chroma_url), owns_client=True,
                   chroma_url=chroma_url)

    @classmethod
    def from_settings(cls, settings: Settings, embedder: Embedder) -> Index:
        """Open the index of ``settings``: its data dir, and the Chroma server it names (if any)."""
        client = make_client(Path(settings.data_dir), settings.chroma_url, settings.chroma_origin)
        return cls(Path(settings.data_dir), embedder, client, owns_client=True, chroma_url=settings.chroma_url)

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

    # -- readers -------------------------------------------------------------
    def view(self) -> IndexView:
        """Each served site's current generation, loading the ones committed since the last view."""
        return self._generations.view()

    def collection(self, name: str) -> Any:
        if name not in self._collections:
            from chromadb.errors import NotFoundError

            try:
                self._collections[name] = self.client.get_collection(name, embedding_function=None)
            except NotFoundError:
                if not self._owns_client or self._chroma_url or os.access(self.data_dir / "chroma", os.W_OK):
                    raise
                self.client = make_client(self.data_dir)  # a read-only store's copy predates it: copy again
                self._collections.clear()
                self._collections[name] = self.client.get_collection(name, embedding_function=None)
        return self._collections[name]

    def check_model(self, site: str, model: str) -> None:
        if model != self.embedder.name:
            raise EmbeddingMismatch(
                f"The index of site {site!r} was built with embeddings {model!r} but {self.embedder.name!r} "
                f"is configured — re-index with `docbot index --site {site} --rebuild` "
                f"(or set DOCBOT_EMBEDDINGS back to {model!r})"
            )

    # The reader API of a view, for callers that ask one thing (scripts, tests): each call takes a fresh view.
    def sites(self) -> list[str]:
        return self.view().sites()

    def chunks(self, site: str) -> list[Chunk]:
        return self.view().chunks(site)

    def get(self, chunk_id: str) -> Chunk | None:
        return self.view().get(chunk_id)

    def dense(self, query: str, k: int = 20, sites: Sequence[str] | None = None) -> list[tuple[Chunk, float]]:
        return self.view().dense(query, k, sites)

    def lexical(self, query: str, k: int = 20, sites: Sequence[str] | None = None) -> list[tuple[Chunk, float]]:
        return self.view().lexical(query, k, sites)

    def doc_freq(self, site: str) -> tuple[dict[str, int], int]:
        return self.view().doc_freq(site)

    # -- writers (:mod:`docbot.indexing.build`) -------------------------------
    def store_vectors(self, name: str, chunks: Sequence[Chunk], old: Manifest | None,
                      progress: Progress | None) -> tuple[int, int]:
        """Fill collection ``name`` with a vector for every chunk; returns (copied, embedded)."""
        self.drop_collection(name)  # an attempt that died before its manifest was written
        metadata = {"embedding_model": self.embedder.name, "dim": self.embedder.dim}
        collection = self.client.create_collection(name, metadata=metadata, configuration={"hnsw": {"space": "cosine"}},
                                                   embedding_function=None)
        self._collections[name] = collection

        def upsert(batch: Sequence[Chunk], vectors: Sequence[Any]) -> None:
            for part in range(0, len(batch), UPSERT_BATCH):
                piece = batch[part : part + UPSERT_BATCH]
                collection.upsert(ids=[c.id for c in piece], embeddings=list(vectors[part : part + UPSERT_BATCH]),
                                  metadatas=[_metadata(c) for c in piece])

        copied = self._copy_unchanged(chunks, old, upsert)
        todo = sorted((c for c in chunks if c.id not in copied), key=lambda c: len(c.embed_text))  # less padding
        if progress:
            progress(0, len(todo))
        done = 0
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
                if progress:
                    progress(len(todo), len(todo))
        return len(copied), len(todo)

    def _copy_unchanged(self, chunks: Sequence[Chunk], old: Manifest | None,
                        upsert: Callable[[Sequence[Chunk], Sequence[Any]], None]) -> set[str]:
        """Copy the vectors of chunks whose text is unchanged since ``old``; returns their ids."""
        if old is None:
            return set()
        before = {c.id: c.content_hash for c in old.chunks}
        same = [c for c in chunks if before.get(c.id) == c.content_hash]
        try:
            source = self.collection(old.collection)
        except Exception as exc:  # noqa: BLE001 - the old vectors are gone: embed everything
            log.warning("the vectors of %s are gone (%s); embedding every chunk", old.collection, exc)
            return set()
        copied: set[str] = set()
        for piece in batched(same, UPSERT_BATCH):
            held = source.get(ids=[c.id for c in piece], include=["embeddings"])
            vectors = dict(zip(held["ids"], held["embeddings"]))
            found = [c for c in piece if c.id in vectors]
            upsert(found, [vectors[c.id] for c in found])
            copied.update(c.id for c in found)
        return copied

    def prune(self, site: str, kept: Sequence[Generation]) -> None:
        """Drop the site's collections that no kept generation names (retired generations' vectors), and the
        segment folders of every deleted collection."""
        names = {m.collection for m in (Manifest.read(g) for g in kept) if m is not None}
        own = re.compile(rf"docbot_{re.escape(site)}(?:_g\d+)?")
        for existing in self.client.list_collections():
            name = str(getattr(existing, "name", existing))
            if own.fullmatch(name) and name not in names:
                self.drop_collection(name)
        if self._owns_client and not self._chroma_url:  # our own embedded store: chromadb leaves the folders
            sweep_segments(self.data_dir / "chroma")

    def drop_collection(self, name: str) -> None:
        self._collections.pop(name, None)
        try:
            self.client.delete_collection(name)
        except Exception:  # noqa: BLE001 - chromadb raises different errors for a missing collection across versions
            log.debug("no collection %s to drop", name)


__all__ = ["Index", "IndexMissing", "IndexView", "Manifest", "collection_name", "make_client"]
