"""Every section's "Page › Section" path, embedded once at index time (the ranker's heading cosine).

The ranker weighs how close a question is to a section's title path by the index's own model
(:mod:`docbot.retrieval.features`). Embedding ten paths while answering cost 40 ms a question on the Python
docs; embedded with the index (17,000 paths, about a minute), a question reads them. Self-contained: built from
the chunks and an embedder (reusing the vectors of paths embedded before), saved to and loaded from a directory
the caller gives.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from docbot.indexing.bm25 import replace_dir
from docbot.indexing.chunk import PATH_SEPARATOR, Chunk

META_FILE = "headings.json"
VECTORS_FILE = "vectors.npy"


def label(path: Sequence[str]) -> str:
    return PATH_SEPARATOR.join(path)


class HeadingVectors:
    """Unit vectors of title paths by one embedding model."""

    def __init__(self, model: str, labels: list[str], vectors: np.ndarray) -> None:
        self.model = model
        self.labels = labels
        self.vectors = vectors
        self._row = {text: i for i, text in enumerate(labels)}

    @classmethod
    def build(cls, chunks: Sequence[Chunk], embedder: Any, previous: HeadingVectors | None = None) -> HeadingVectors:
        """The paths of ``chunks``; those ``previous`` holds (by the same model) are not embedded again."""
        labels = list(dict.fromkeys(label(c.path) for c in chunks))
        reuse = previous if previous is not None and previous.model == embedder.name else None
        missing = [t for t in labels if reuse is None or t not in reuse._row]
        fresh = dict(zip(missing, embedder.embed_documents(missing))) if missing else {}
        dim = int(getattr(embedder, "dim", 0) or (len(next(iter(fresh.values()))) if fresh else 0))
        vectors = np.zeros((len(labels), dim), dtype=np.float32)
        for i, text in enumerate(labels):
            v = np.asarray(fresh[text], dtype=np.float32) if text in fresh else reuse.vectors[reuse._row[text]]  # type: ignore[union-attr]
            vectors[i] = v / (np.linalg.norm(v) or 1.0)
        return cls(embedder.name, labels, vectors)

    def cosines(self, query_vector: Sequence[float], paths: Sequence[Sequence[str]]) -> list[float | None]:
        """Cosine of the question to each path; None for a path this index does not hold."""
        q = np.asarray(query_vector, dtype=np.float32)
        q /= np.linalg.norm(q) or 1.0
        rows = [self._row.get(label(p)) for p in paths]
        return [None if r is None else float(self.vectors[r] @ q) for r in rows]

    def save(self, directory: Path) -> None:
        """Write to a sibling temp dir, then swap it in."""
        def write(tmp: Path) -> None:
            np.save(tmp / VECTORS_FILE, self.vectors)
            (tmp / META_FILE).write_text(json.dumps({"model": self.model, "labels": self.labels}), encoding="utf-8")

        replace_dir(directory, write)

    @classmethod
    def load(cls, directory: Path) -> HeadingVectors | None:
        """The saved vectors, or None when there are none."""
        try:
            meta = json.loads((directory / META_FILE).read_text(encoding="utf-8"))
            vectors = np.load(directory / VECTORS_FILE)
        except (FileNotFoundError, json.JSONDecodeError, ValueError):
            return None
        return cls(str(meta["model"]), list(meta["labels"]), vectors)
