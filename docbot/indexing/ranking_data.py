"""What the index keeps beside the chunks for the ranker, per site, in a directory the caller gives.

- ``mentions/<site>/``: what other pages say about each section (:mod:`docbot.indexing.mentions`);
- ``headings/<site>/``: each section's title path embedded (:mod:`docbot.indexing.title_vectors`).

:class:`RankingData` builds both after the chunks (:func:`~docbot.indexing.build.index_generation` calls
:meth:`RankingData.build`) and opens them on first use. A site crawled before mentions were kept has none; one indexed before heading vectors were
kept has none either, and the ranker then embeds the paths it needs itself. A mention index another tokenizer built
(:data:`docbot.text.words.TOKENIZER`: an index from an older docbot) is built again in memory from the generation's
own files, as its chunks' BM25 is, when the caller says where they are (``sources``); left out, the ranker would lose
what other pages say of every section, silently, until the next ``docbot index``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from crawlers.model import AnchorMap, Mention, SectionText
from docbot.indexing.chunk import Chunk
from docbot.indexing.mentions import MentionIndex
from docbot.indexing.title_vectors import HeadingVectors

log = logging.getLogger(__name__)

# What a site's mention index is built from: its section texts, map, chunks and the crawl's mentions (None: none kept)
Sources = Callable[[], tuple[Sequence[SectionText], AnchorMap, Sequence[Chunk], Sequence[Mention] | None]]


class RankingData:
    """Mention indexes and heading vectors of the sites under ``directory``."""

    def __init__(self, directory: Path, embedder: Any, sources: Sources | None = None) -> None:
        self.directory = Path(directory)
        self.embedder = embedder
        self.sources = sources  # where a mention index missing or stale is built again from
        self._mentions: dict[str, MentionIndex | None] = {}
        self._headings: dict[str, HeadingVectors | None] = {}

    def mentions(self, site: str) -> MentionIndex | None:
        if site not in self._mentions:
            found = MentionIndex.load(self.directory / "mentions" / site)
            if found is None and self.sources is not None and MentionIndex.saved(self.directory / "mentions" / site):
                sections, amap, chunks, said = self.sources()
                if said is not None:
                    log.info("%s: its mention index was built by another docbot; built again in memory (the site's "
                             "next index saves one)", site)
                    found = MentionIndex.build(said, sections, amap, chunks)
            self._mentions[site] = found
        return self._mentions[site]

    def headings(self, site: str) -> HeadingVectors | None:
        if site not in self._headings:
            self._headings[site] = HeadingVectors.load(self.directory / "headings" / site)
        return self._headings[site]

    def build(self, site: str, sections: Sequence[SectionText], amap: AnchorMap, chunks: Sequence[Chunk],
              mentions: Sequence[Mention] | None, previous: HeadingVectors | None = None) -> None:
        """Both, from the site's chunks and ``mentions`` (None: the crawl kept none); title paths ``previous``
        (or this directory's own) holds are not embedded again."""
        said = mentions
        if said is not None:
            built = MentionIndex.build(said, sections, amap, chunks)
            built.save(self.directory / "mentions" / site)
            self._mentions[site] = built
        headings = HeadingVectors.build(chunks, self.embedder, previous or self.headings(site))
        headings.save(self.directory / "headings" / site)
        self._headings[site] = headings

    def forget(self, site: str) -> None:
        self._mentions.pop(site, None)
        self._headings.pop(site, None)
