"""Everything docbot knows about one candidate section for one question, as numbers a ranker can weigh.

Pure: the retrieval's evidence for each candidate (:class:`Evidence`: the fused rank, dense and BM25 scores
and ranks, what other pages say about it) and the section itself (:class:`Section`: title, path, text, kind,
source type) in; one row of :data:`FEATURES` per candidate out. Every feature is scale-free (a rank, a ratio
to the question's best, a share of the question's words), so one model serves a 700-chunk site and a
17,000-chunk one. Title and path words are matched as fragment repair matches a heading
(:mod:`docbot.references.headings`): the same Snowball stem, a prefix, or a WordNet synonym.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from crawlers.model import SourceType
from docbot.references.headings import QUERY_STOPWORDS, words
from docbot.text.lexicon import synonym_stems
from docbot.text.words import stem, tokenize

SOURCE_TYPES = tuple(t for t in SourceType if t is not SourceType.OTHER)  # one feature each; "Other": all zero
FEATURES = (
    "fused", "order", "dense", "dense_rank", "lexical", "lexical_rank", "mention", "mention_rank", "inlinks",
    "title", "path", "heading_cosine", "coverage", "rarest", "page_candidates", "page_first", "words", "depth", "api", "repeated",
    *(f"type:{t}" for t in SOURCE_TYPES),
)
MIN_PREFIX = 4
SYNONYM = 0.6
PREFIX = 0.8


@dataclass(frozen=True, slots=True)
class Evidence:
    """What retrieval saw of one candidate: ranks count from 1, 0 when the candidate was not in that list."""

    key: str
    fused: float
    order: int
    dense: float = 0.0
    dense_rank: int = 0
    lexical: float = 0.0
    lexical_rank: int = 0
    mention: float = 0.0
    mention_rank: int = 0
    inlinks: int = 0
    heading: float = 0.0  # cosine of the question to the section's "Page › Section" path


@dataclass(frozen=True, slots=True)
class Section:
    """The candidate section as the index holds it."""

    url: str
    title: str
    path: tuple[str, ...]
    text: str
    kind: str
    source_type: str
    repeated: int = 1  # sections of the site with this same text


def query_weights(query: str, doc_freq: Mapping[str, int], docs: int) -> dict[str, float]:
    """The question's BM25 terms, each weighted by its IDF in the site."""
    return {t: math.log(1 + max(docs, 1) / (1 + doc_freq.get(t, 0))) for t in dict.fromkeys(tokenize(query))}


def content_stems(text: str) -> set[str]:
    return {stem(w) for w in words(text) if w not in QUERY_STOPWORDS}


def heading_match(query_stems: Mapping[str, float], heading: set[str]) -> float:
    """IDF-weighted share of the question's words a heading holds: the same stem 1, a prefix 0.8, a synonym 0.6."""
    total = sum(query_stems.values())
    if not total or not heading:
        return 0.0
    got = 0.0
    for q, weight in query_stems.items():
        if q in heading:
            got += weight
        elif len(q) >= MIN_PREFIX and any(h.startswith(q) or (len(h) >= MIN_PREFIX and q.startswith(h)) for h in heading):
            got += PREFIX * weight
        elif synonym_stems(q) & heading:
            got += SYNONYM * weight
    return got / total


def _stem_weights(query: str, doc_freq: Mapping[str, int], docs: int) -> dict[str, float]:
    return {s: math.log(1 + max(docs, 1) / (1 + doc_freq.get(s, 0))) for s in content_stems(query)}


def rows(query: str, evidence: Sequence[Evidence], sections: Sequence[Section], doc_freq: Mapping[str, int],
         docs: int) -> list[tuple[float, ...]]:
    """One row of :data:`FEATURES` per candidate, in the order given."""
    terms = query_weights(query, doc_freq, docs)
    total = sum(terms.values()) or 1.0
    known = {t: w for t, w in terms.items() if doc_freq.get(t, 0)}
    rarest = max(known, key=lambda t: known[t]) if known else None
    stems = _stem_weights(query, doc_freq, docs)
    top_fused = max((e.fused for e in evidence), default=0.0) or 1.0
    top_dense = max((e.dense for e in evidence), default=0.0)
    top_lexical = max((e.lexical for e in evidence), default=0.0) or 1.0
    top_mention = max((e.mention for e in evidence), default=0.0) or 1.0
    top_heading = max((e.heading for e in evidence), default=0.0)
    per_page: dict[str, int] = {}
    first_on_page: dict[str, int] = {}
    for i, s in enumerate(sections):
        per_page[s.url] = per_page.get(s.url, 0) + 1
        first_on_page.setdefault(s.url, i)
    out = []
    for i, (e, s) in enumerate(zip(evidence, sections)):
        tokens = set(tokenize(" ".join((*s.path, s.text))))
        cover = sum(w for t, w in terms.items() if t in tokens) / total
        out.append((
            e.fused / top_fused,
            math.log(1 + e.order),
            e.dense - top_dense,
            _rank(e.dense_rank),
            e.lexical / top_lexical,
            _rank(e.lexical_rank),
            e.mention / top_mention,
            _rank(e.mention_rank),
            math.log(1 + e.inlinks),
            heading_match(stems, content_stems(s.title)),
            heading_match(stems, content_stems(" ".join(s.path[:-1]))),
            e.heading - top_heading,
            cover,
            1.0 if rarest is not None and rarest in tokens else 0.0,
            math.log(per_page[s.url]),
            1.0 if first_on_page[s.url] == i else 0.0,
            math.log(1 + len(s.text.split())),
            float(len(s.path)),
            1.0 if s.kind == "api" else 0.0,
            math.log(max(s.repeated, 1)),
            *(1.0 if s.source_type == t else 0.0 for t in SOURCE_TYPES),
        ))
    return out


def _rank(rank: int) -> float:
    """A rank as a number that falls off like reciprocal rank fusion's; 0 when absent."""
    return 1.0 / math.log2(1 + rank) if rank else 0.0
