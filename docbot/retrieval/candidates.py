"""One question's retrieval lists (:class:`Fused`), and the ranker's features of its candidate sections.

:class:`CandidateFeatures` gathers, for each candidate, what retrieval saw of it (its fused score and rank in
each list; its own cosine and BM25 score read from the index wherever it ranked; what other pages say about
it) and the section itself, and turns them into rows of :data:`docbot.retrieval.features.FEATURES`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from docbot.indexing.chunk import Chunk
from docbot.retrieval import features as feat

MAX_HEADING_VECTORS = 50_000


@dataclass(slots=True)
class Fused:
    """One question's retrieval lists and their fusion, before any ordering."""

    dense: list[tuple[Chunk, float]]
    lexical: list[tuple[Chunk, float]]
    pool: int
    site_of: dict[str, str] = field(default_factory=dict)
    best_dense: dict[str, float] = field(default_factory=dict)
    best_lex: dict[str, float] = field(default_factory=dict)
    mention: dict[str, float] = field(default_factory=dict)
    dense_keys: list[str] = field(default_factory=list)
    lexical_keys: list[str] = field(default_factory=list)
    mention_keys: list[str] = field(default_factory=list)
    boosted: list[str] = field(default_factory=list)  # sections cited earlier in the conversation
    fused: dict[str, float] = field(default_factory=dict)


def text_key(text: str) -> str:
    return " ".join(text.split())


class CandidateFeatures:
    """Feature rows for candidate sections; keeps per-site tables (how often each text repeats)."""

    def __init__(self, index: Any) -> None:
        self.index = index
        self._repeats: dict[str, dict[str, int]] = {}
        self._heading_vectors: dict[str, Any] = {}  # a section's "Page › Section" path, embedded once

    def _heading_cosines(self, query: str, site: str, paths: Sequence[tuple[str, ...]]) -> list[float]:
        """Cosine of the question to each section's title path, by the index's own model (0s without one): read
        from the index when it embedded them, else embedded here once."""
        embedder = getattr(self.index, "embedder", None)
        query_vector = getattr(self.index, "query_vector", None)
        if embedder is None or query_vector is None or not paths:
            return [0.0] * len(paths)
        stored = getattr(self.index, "headings", lambda site: None)(site)
        known = stored.cosines(query_vector(query), paths) if stored is not None else [None] * len(paths)
        if all(c is not None for c in known):
            return [float(c or 0.0) for c in known]
        labels = [" › ".join(p) for p in paths]
        missing = [label for label in dict.fromkeys(labels) if label not in self._heading_vectors]
        if missing:
            if len(self._heading_vectors) > MAX_HEADING_VECTORS:
                self._heading_vectors.clear()
            for label, vector in zip(missing, embedder.embed_documents(missing)):
                v = np.asarray(vector, dtype=float)
                self._heading_vectors[label] = v / (np.linalg.norm(v) or 1.0)
        q = np.asarray(query_vector(query), dtype=float)
        q /= np.linalg.norm(q) or 1.0
        return [float(c) if c is not None else float(q @ self._heading_vectors[label]) for c, label in zip(known, labels)]

    def rows(self, query: str, site: str, keys: Sequence[str], f: Fused, table: Mapping[str, list[Chunk]],
             mentions: Any, doc_freq: tuple[dict[str, int], int]) -> list[tuple[float, ...]]:
        """One row per key (deep URLs of one site's sections, in retrieval's order)."""
        dense_rank = {key: i for i, key in enumerate(f.dense_keys, start=1)}
        lexical_rank = {key: i for i, key in enumerate(f.lexical_keys, start=1)}
        mention_rank = {key: i for i, key in enumerate(f.mention_keys, start=1)}
        said = mentions.scores(query, keys) if mentions is not None else [0.0] * len(keys)
        inlinks = mentions.inlinks if mentions is not None else {}
        repeats = self._repeated(site, table)
        pairs = [(key, p.id) for key in keys for p in table[key]]
        scores_of = getattr(self.index, "chunk_scores", None)  # every candidate's own scores, where it ranks
        cosine, bm25 = scores_of(query, site, [cid for _, cid in pairs]) if scores_of is not None else ([], [])
        best_cos: dict[str, float] = {}
        best_bm25: dict[str, float] = {}
        for (key, _), c, b in zip(pairs, cosine, bm25):
            best_cos[key] = max(best_cos.get(key, -1.0), c)
            best_bm25[key] = max(best_bm25.get(key, 0.0), b)
        headings = self._heading_cosines(query, site, [table[key][0].path for key in keys])
        evidence, sections = [], []
        for i, key in enumerate(keys):
            evidence.append(feat.Evidence(key, f.fused[key], i, best_cos.get(key, f.best_dense.get(key, 0.0)),
                                          dense_rank.get(key, 0), best_bm25.get(key, f.best_lex.get(key, 0.0)),
                                          lexical_rank.get(key, 0), said[i], mention_rank.get(key, 0),
                                          inlinks.get(key, 0), headings[i]))
            parts = table[key]
            text = "\n\n".join(p.text for p in parts)
            head = parts[0]
            sections.append(feat.Section(head.url, head.title, head.path, text, head.kind, head.source_type,
                                         repeats.get(text_key(text), 1)))
        return feat.rows(query, evidence, sections, *doc_freq)

    def _repeated(self, site: str, table: Mapping[str, list[Chunk]]) -> dict[str, int]:
        """How many of the site's sections hold each text (pages that include the same text)."""
        if site not in self._repeats:
            counts: dict[str, int] = {}
            for parts in table.values():
                key = text_key("\n\n".join(p.text for p in parts))
                counts[key] = counts.get(key, 0) + 1
            self._repeats[site] = counts
        return self._repeats[site]
