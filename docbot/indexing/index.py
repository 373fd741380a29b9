"""The index: every site's current generation of chunks, searched densely (Chroma) and lexically (BM25).

The only module that talks to Chroma (:mod:`docbot.indexing.store` opens the client). A generation (:mod:`docbot.indexing.generations`) keeps its vectors in a
collection of its own, ``docbot_<site>_g<n>`` (cosine space, embeddings passed explicitly: chromadb's own
embedding function never runs), named in its chunk manifest. Building a generation copies the vectors of
unchanged chunks from the generation before it and embeds only new and changed ones; a generation whose chunks
are all unchanged shares its predecessor's collection. A collection is deleted once no kept generation names it,
and its segment folder with it (:mod:`docbot.indexing.segments`).

Readers take an :class:`~docbot.indexing.view.IndexView`: each site's generation current at that moment, loaded
once per process and kept until a newer one is committed. A reader on a data dir it may not write opens a
private copy of the vector store (Chroma writes when it opens one).
"""

from __future__ import annotations

import functools
import logging
import os
import re
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from crawlers.errors import AnchorMapError
from crawlers.model import AnchorMap, SectionText
from crawlers.texts import read_mentions
from docbot.config import Settings
from docbot.errors import EmbeddingMismatch, IndexMissing
from docbot.indexing.bm25 import Lexical, chunk_set_hash
from docbot.indexing.chunk import Chunk, chunk_sections
from docbot.indexing.embed import Embedder, batched
from docbot.indexing.generations import Generation, Generations, link_or_copy, served_sites
from docbot.indexing.manifest import Manifest, collection_name
from docbot.indexing.ranking_data import RankingData
from docbot.indexing.segments import sweep_segments
from docbot.indexing.store import make_client
from docbot.indexing.title_vectors import HeadingVectors
from docbot.indexing.view import IndexView, Loaded, PageTextTable

log = logging.getLogger(__name__)

QUERY_VECTORS = 64  # recent questions whose embeddings are kept
EMBED_BATCH = 256  # texts per embedding call (the model sorts and sub-batches them)
UPSERT_BATCH = 1000  # under Chroma's maximum batch size

Progress = Callable[[int, int], None]  # (chunks embedded so far, chunks to embed)


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


def _metadata(chunk: Chunk) -> dict[str, Any]:
    return {"site": chunk.site, "deep_url": chunk.deep_url, "content_hash": chunk.content_hash, "part": chunk.part}


class Index:
    """Chroma and BM25 over every site's generations: readers take views; writers (:mod:`docbot.updating`, which
    stages and commits generations) have it index one."""

    def __init__(self, data_dir: Path, embedder: Embedder, client: Any, owns_client: bool = False,
                 chroma_url: str | None = None) -> None:
        self.data_dir = Path(data_dir)
        self.embedder = embedder
        self.client = client
        self._owns_client = owns_client
        self._chroma_url = chroma_url
        self._collections: dict[str, Any] = {}
        self._loaded: dict[str, Loaded] = {}
        self._loading = threading.Lock()  # one thread loads a new generation; the others wait for it
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
        sites: dict[str, Loaded] = {}
        for site in served_sites(self.data_dir):
            loaded = self._loaded.get(site)
            current = Generations(self.data_dir, site).current()
            if loaded is None or current is None or loaded.generation != current.number:
                try:
                    loaded = self._load(site)
                except (AnchorMapError, OSError, ValueError, KeyError) as exc:
                    if loaded is None:
                        raise
                    log.error("could not load the new generation of %s (%s); still answering from generation %s",
                              site, exc, loaded.generation)
            if loaded is not None:
                sites[site] = loaded
        return IndexView(self, sites)

    def _load(self, site: str) -> Loaded | None:
        """The site's current generation in memory (one thread loads it; the others wait and share it)."""
        generations = Generations(self.data_dir, site)
        with self._loading:
            for attempt in range(3):  # a generation retired between reading the pointer and loading it: again
                generation, problem = generations.resolve()
                if problem is not None:  # said when a generation is loaded, not on every question
                    log.warning("%s", generations.advice(problem, generation))
                if generation is None:
                    return None
                loaded = self._loaded.get(site)
                if loaded is not None and loaded.generation == generation.number:
                    return loaded  # another thread loaded it meanwhile
                try:
                    manifest = Manifest.read(generation)
                    if manifest is None:
                        raise IndexMissing(f"Generation {generation.number} of {site!r} has no chunk manifest "
                                           f"({generation.chunks_file}) — run `docbot index --site {site}`")
                    lexical = Lexical.load(generation.bm25_dir)
                    amap = generation.load_map()
                except (FileNotFoundError, AnchorMapError) as exc:
                    if attempt < 2 and not generation.path.is_dir():
                        continue
                    raise exc from None
                if lexical is None or lexical.set_hash != _set_hash(manifest.chunks):
                    lexical = _build_lexical(manifest.chunks)  # another tokenizer built it: rebuild in memory
                loaded = Loaded(site, generation.number, manifest.model, manifest.collection, manifest.chunks,
                            {c.id: c for c in manifest.chunks}, lexical, amap, RankingData(generation.path, self.embedder),
                                PageTextTable(generation))
                self._loaded[site] = loaded
                return loaded
            return None

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

    # -- writers ---------------------------------------------------------------
    def index_generation(self, generation: Generation, previous: Generation | None, progress: Progress | None = None,
                         *, rebuild: bool = False, old: Manifest | None = None) -> IndexStats:
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
            self.check_model(site, old.model)
        before = RankingData(previous.path, self.embedder).headings(site) if previous is not None else None
        if old is not None and _set_hash(old.chunks) == _set_hash(chunks) and previous is not None:
            _link_tree(previous.bm25_dir, generation.bm25_dir)  # nothing changed: share the vectors and BM25
            self._ranking_data(generation, sections, amap, chunks, before)
            Manifest(site, old.model, old.dim, old.collection, tuple(chunks)).write(generation)
            if progress:
                progress(0, 0)
            return IndexStats(site, len(chunks), 0, 0, time.perf_counter() - started, generation.number, len(chunks))
        name = collection_name(site, generation.number)
        try:
            reused, embedded = self._store_vectors(name, chunks, old, progress)
            _build_lexical(chunks).save(generation.bm25_dir)
            self._ranking_data(generation, sections, amap, chunks, before)
            Manifest(site, self.embedder.name, self.embedder.dim, name, tuple(chunks)).write(generation)
        except BaseException:
            self.drop_collection(name)
            raise
        gone = len({c.id for c in old.chunks} - {c.id for c in chunks}) if old else 0
        return IndexStats(site, len(chunks), embedded, gone, time.perf_counter() - started, generation.number, reused)

    def _ranking_data(self, generation: Generation, sections: Sequence[SectionText], amap: AnchorMap,
                      chunks: Sequence[Chunk], before: HeadingVectors | None) -> None:
        """What the ranker reads beside the chunks (:mod:`docbot.indexing.ranking_data`), in the generation's folder;
        the title paths embedded for the generation before are not embedded again."""
        RankingData(generation.path, self.embedder).build(generation.site, sections, amap, chunks,
                                                          read_mentions(generation.mentions_file), previous=before)

    def _store_vectors(self, name: str, chunks: Sequence[Chunk], old: Manifest | None,
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


def _set_hash(chunks: Sequence[Chunk]) -> str:
    return chunk_set_hash([(c.id, c.content_hash) for c in chunks])


def _build_lexical(chunks: Sequence[Chunk]) -> Lexical:
    return Lexical.build([c.id for c in chunks], [c.embed_text for c in chunks], _set_hash(chunks))


def _link_tree(source: Path, target: Path) -> None:
    target.mkdir(parents=True, exist_ok=True)
    for path in source.iterdir():
        link_or_copy(path, target / path.name)


__all__ = ["Index", "IndexMissing", "IndexStats", "IndexView", "Manifest", "collection_name", "make_client"]
