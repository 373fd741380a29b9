"""A generation's chunk manifest: the embedding model, the Chroma collection holding its vectors, every chunk.

Written last when a generation is indexed (``chunks.json``): its presence marks the generation indexed. A data
dir from before generations kept one manifest per site in ``index/<site>.json``; :mod:`docbot.indexing.legacy` reads
it so that its vectors can be reused.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from crawlers.model import write_atomic
from docbot.indexing.chunk import Chunk
from docbot.indexing.generations import Generation

MANIFEST_VERSION = 2


@dataclass(frozen=True, slots=True)
class Manifest:
    """A generation's chunk manifest: its model, its collection and every chunk."""

    site: str
    model: str
    dim: int
    collection: str
    chunks: tuple[Chunk, ...]

    @classmethod
    def read(cls, generation: Generation) -> Manifest | None:
        try:
            data = json.loads(generation.chunks_file.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        return cls(generation.site, data["embedding_model"], int(data["dim"]), data["collection"],
                   tuple(Chunk.from_json(c) for c in data["chunks"]))

    def write(self, generation: Generation) -> None:
        write_atomic(generation.chunks_file, json.dumps({
            "format_version": MANIFEST_VERSION, "site": self.site, "generation": generation.number,
            "embedding_model": self.model, "dim": self.dim, "collection": self.collection,
            "chunks": [c.to_json() for c in self.chunks],
        }, ensure_ascii=False))


def collection_name(site: str, generation: int) -> str:
    """Chroma collection of one generation: ``docbot_<site>_g<n>`` (a site name is already in Chroma's alphabet,
    [A-Za-z0-9._-] without '..', and the name ends in a digit as Chroma requires)."""
    return f"docbot_{site}_g{generation}"
