"""Each served site's current generation in memory, for readers: loaded once per process, kept until a newer one is
committed, handed out as :class:`~docbot.indexing.view.IndexView` s.

A generation that cannot be loaded (a torn file, a generation retired meanwhile) leaves readers on the one they had,
and says why once, when it is loaded, not on every question.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence

from crawlers.errors import AnchorMapError
from crawlers.model import AnchorMap
from crawlers.texts import read_mentions
from docbot.errors import IndexMissing
from docbot.indexing.bm25 import Lexical, build_lexical, chunks_hash
from docbot.indexing.chunk import Chunk
from docbot.indexing.generations import Generation, Generations, served_sites
from docbot.indexing.manifest import Manifest
from docbot.indexing.ranking_data import RankingData, Sources
from docbot.indexing.view import IndexView, Loaded, PageTextTable, Vectors

log = logging.getLogger(__name__)


class GenerationLoader:
    """The generations readers of one :class:`~docbot.indexing.index.Index` see, by site; one thread loads a new one
    while the others wait and share it."""

    def __init__(self, index: Vectors) -> None:
        self._index = index
        self._loaded: dict[str, Loaded] = {}
        self._loading = threading.Lock()  # one thread loads a new generation; the others wait for it

    def view(self) -> IndexView:
        """Each served site's current generation, loading the ones committed since the last view."""
        sites: dict[str, Loaded] = {}
        for site in served_sites(self._index.data_dir):
            loaded = self._loaded.get(site)
            current = Generations(self._index.data_dir, site).current()
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
        return IndexView(self._index, sites)

    def _load(self, site: str) -> Loaded | None:
        """The site's current generation in memory (one thread loads it; the others wait and share it)."""
        generations = Generations(self._index.data_dir, site)
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
                if lexical is None or lexical.set_hash != chunks_hash(manifest.chunks):
                    lexical = build_lexical(manifest.chunks)  # another tokenizer built it: rebuild in memory
                loaded = Loaded(site, generation.number, manifest.model, manifest.collection, manifest.chunks,
                                {c.id: c for c in manifest.chunks}, lexical, amap,
                                RankingData(generation.path, self._index.embedder,
                                            _sources(generation, amap, manifest.chunks)),
                                PageTextTable(generation))
                self._loaded[site] = loaded
                return loaded
            return None


def _sources(generation: Generation, amap: AnchorMap, chunks: Sequence[Chunk]) -> Sources:
    """What the generation's mention index is built again from, read when it is needed (:class:`RankingData`)."""
    return lambda: (generation.load_texts(), amap, chunks, read_mentions(generation.mentions_file))
