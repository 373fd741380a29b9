"""Hybrid retrieval: dense + BM25 fused with reciprocal rank fusion, section-merged, then MMR for diversity.

The unit returned is a *section* (one deep link), not a chunk: the parts of a
long section are merged back together, and a tiny subsection carries its
parent's lead paragraph as context (its reference stays the subsection).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from crawlers.model import SourceType
from docbot.answer import Resolution
from docbot.indexing.chunk import FENCED_BLOCK, Chunk, embedding_text
from docbot.retrieval.candidates import CandidateFeatures, Fused
from docbot.retrieval.cross import CrossRanker
from docbot.retrieval.fusion import rrf
from docbot.retrieval.ranker import Ranker
from docbot.text.words import tokenize

POOL = 40  # chunks taken from each retriever before fusion
# Relevance vs. novelty; 1.0 = plain relevance order. Novelty cost answers: the right section's
# neighbours on its own page are the likeliest runners-up and share its words, so diversity pushed
# them out of the top 3. On the five dev sites 1.0 gave the best hit@3 on every site (0.75: 85.1 %,
# 0.9: 87.2 %, 1.0: 88.3 %; hit@1 unchanged), so it is also what every leave-one-site-out fold picks.
# Only true duplicates (the same text on two pages) are skipped, see DUPLICATE_JACCARD.
MMR_LAMBDA = 1.0
DUPLICATE_JACCARD = 0.9  # a section sharing this much of its words with one already chosen is a copy
TINY_WORDS = 40  # a section shorter than this brings its parent's lead
LEAD_WORDS = 80  # how much of the parent's lead it brings
BOOST_WEIGHT = 1.0  # weight of the "cited earlier in the conversation" list in the fusion
MENTION_POOL = 20  # sections taken from what other pages say about them (docbot.indexing.mentions)
MENTION_WEIGHT = 0.0  # their list's weight in the fusion (0: a ranker feature only; see docs/experiments.md)
LISTING_CODE_SHARE = 0.95  # a page whose text is at least this share code is a source listing
# Preferences among sections whose evidence is alike. They reorder, they never change a hit's score
# (the evidence, which the gate and the clarify rule read). Fused RRF scores are compressed: the top of
# both rankings scores 2/61, fifth in both 2/65, so a weight of 0.95 moves a section down about four
# places and 0.9 about eight.
# Release notes say what changed; the documentation of the thing says how it works. When both match a
# question about using something, the documentation comes first. (On the dev set SQLAlchemy's changelog
# entries led 3 answers; on the Python docs, unseen, "What's New" entries led 3 of 6 how-to questions of
# ours ahead of the library reference they name, and none does at 0.9; 0.5–0.9 give the same dev figures.)
RELEASE_NOTES = SourceType.RELEASE_NOTES
RELEASE_NOTES_WEIGHT = 0.9
# A tiny section (under TINY_WORDS: an attribute's description, a heading over one sentence) rarely holds
# the answer to a question; when it scores like a fuller section, the fuller one comes first. Weight chosen
# leave-one-site-out between 1.0 and 0.95 on the dev set: 0.95 gained a hit@1 on Requests and one on
# SQLAlchemy and lost none on any site, so every fold picks it (0.7 and 0.9 give the same figures). The
# size is the one that makes a section tiny elsewhere (it brings its parent's lead): at 40 words rather than
# the earlier 25, DRF gains a hit@1 and two hit@3 and no other site of the eight we measure changes.
TERSE_WEIGHT = 0.95
CROSS_CHARS = 4000  # of a section's text given to docbot's trained model: well past the word pieces it reads
_PARA = re.compile(r"\n\s*\n")


class SearchIndex(Protocol):
    """What retrieval needs from :class:`docbot.indexing.index.Index`."""

    def sites(self) -> list[str]: ...

    def chunks(self, site: str) -> list[Chunk]: ...

    def dense(self, query: str, k: int = 20, sites: Sequence[str] | None = None) -> list[tuple[Chunk, float]]: ...

    def lexical(self, query: str, k: int = 20, sites: Sequence[str] | None = None) -> list[tuple[Chunk, float]]: ...


def count_doc_freq(chunks: Sequence[Chunk]) -> tuple[dict[str, int], int]:
    """(token → number of chunks holding it, number of chunks), counted."""
    freq: dict[str, int] = {}
    for chunk in chunks:
        for token in set(tokenize(chunk.embed_text)):
            freq[token] = freq.get(token, 0) + 1
    return freq, len(chunks)


def site_doc_freq(index: SearchIndex, site: str) -> tuple[dict[str, int], int]:
    """One site's document frequencies: read off its BM25 index when it has one, else counted."""
    doc_freq = getattr(index, "doc_freq", None)
    return doc_freq(site) if doc_freq is not None else count_doc_freq(index.chunks(site))


@dataclass(frozen=True, slots=True)
class Hit:
    """One retrieved section: a deep link with its merged text and the evidence behind it."""

    site: str
    url: str
    anchor: str | None
    deep_url: str
    title: str
    path: tuple[str, ...]
    source_type: str
    text: str
    score: float = 0.0  # fused (RRF) score
    dense: float = 0.0  # best cosine similarity of any of its chunks (0 when not in the dense pool)
    lexical: float = 0.0  # best BM25 score of any of its chunks
    origin: Resolution = Resolution.SEMANTIC  # or EXPLICIT: a section the question named
    context: str = ""  # parent's lead for a tiny subsection

    @classmethod
    def from_chunk(cls, chunk: Chunk, text: str | None = None, **extra: Any) -> Hit:
        return cls(chunk.site, chunk.url, chunk.anchor, chunk.deep_url, chunk.title, chunk.path,
                   chunk.source_type, chunk.text if text is None else text, **extra)


@dataclass(frozen=True, slots=True)
class Retrieval:
    """Sections best first, with the strongest raw evidence seen (for the gate)."""

    hits: tuple[Hit, ...]
    top_dense: float = 0.0  # best cosine of any chunk
    top_lexical: float = 0.0  # best BM25 score of any chunk
    agreement: int = 1  # best rank dense and lexical retrieval both give one section (see agreement_rank)
    leading: tuple[Hit, ...] = ()  # the best sections by evidence alone, before the ordering preferences


def agreement_rank(first: Sequence[str], second: Sequence[str], none: int) -> int:
    """Smallest r such that one key is in the top r of both rankings; ``none`` when they share no key."""
    rank_in_second = {key: rank for rank, key in enumerate(second, start=1)}
    ranks = [max(rank, rank_in_second[key]) for rank, key in enumerate(first, start=1) if key in rank_in_second]
    return min(ranks, default=none)


def _site_agreement(first: Sequence[str], second: Sequence[str], site_of: dict[str, str], none: int) -> int:
    """The best agreement rank within any one site."""
    # Per site, because BM25 scores of different sites' indexes are not comparable, so neither is a merged ranking.
    return min((agreement_rank([k for k in first if site_of[k] == site], [k for k in second if site_of[k] == site],
                               none) for site in set(site_of.values())), default=none)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def mmr(scores: Sequence[float], token_sets: Sequence[frozenset[str]], k: int, lam: float = MMR_LAMBDA,
        duplicate: float = DUPLICATE_JACCARD) -> list[int]:
    """Indices chosen by maximal marginal relevance (relevance = score / max score, similarity = token Jaccard),
    never one whose similarity to a chosen one reaches ``duplicate``."""
    if not scores:
        return []
    top = max(scores) or 1.0
    chosen: list[int] = []
    left = list(range(len(scores)))
    while left and len(chosen) < k:
        def value(i: int) -> float:
            redundancy = max((jaccard(token_sets[i], token_sets[j]) for j in chosen), default=0.0)
            return lam * scores[i] / top - (1 - lam) * redundancy
        best = max(left, key=value)
        left.remove(best)
        if all(jaccard(token_sets[best], token_sets[j]) < duplicate for j in chosen):
            chosen.append(best)
    return chosen


def _dedupe(keys: Iterable[str]) -> list[str]:
    seen: dict[str, None] = {}
    for key in keys:
        seen.setdefault(key, None)
    return list(seen)


def listing_pages(chunks: Iterable[Chunk], share: float = LISTING_CODE_SHARE) -> frozenset[str]:
    """Pages whose text is (almost) all code: source listings such as Sphinx's ``_modules/`` or Javadoc's
    ``src-html/``. They stay valid link targets, but are never retrieved as an answer's source: the
    question is better answered by the documentation of that code."""
    code: dict[str, int] = {}
    total: dict[str, int] = {}
    for chunk in chunks:
        total[chunk.url] = total.get(chunk.url, 0) + len(chunk.text)
        code[chunk.url] = code.get(chunk.url, 0) + sum(len(m.group(0)) for m in FENCED_BLOCK.finditer(chunk.text))
    return frozenset(url for url, size in total.items() if size and code[url] >= share * size)


def _lead(text: str, words: int = LEAD_WORDS) -> str:
    first = _PARA.split(text.strip(), maxsplit=1)[0]
    parts = first.split()
    return " ".join(parts[:words]) + (" …" if len(parts) > words else "")


class Retriever:
    """Hybrid section retrieval over an index; caches per-site section tables."""

    def __init__(self, index: SearchIndex, pool: int = POOL, ranker: Ranker | None = None, rank: bool = True,
                 mention_weight: float = MENTION_WEIGHT, cross: CrossRanker | None = None) -> None:
        self.index = index
        self.pool = pool
        self.ranker = ranker if ranker is not None or not rank else Ranker.load()
        self.cross = cross  # docbot's trained model re-orders the first candidates after the ranker (when on)
        self.mention_weight = mention_weight
        self._sections: dict[str, dict[str, list[Chunk]]] = {}
        self._parents: dict[str, dict[tuple[str, tuple[str, ...]], Chunk]] = {}
        self._listings: dict[str, frozenset[str]] = {}
        self._features = CandidateFeatures(index)
        self._freq: dict[str, tuple[dict[str, int], int]] = {}

    def _table(self, site: str) -> dict[str, list[Chunk]]:
        if site not in self._sections:
            table: dict[str, list[Chunk]] = {}
            parents: dict[tuple[str, tuple[str, ...]], Chunk] = {}
            for chunk in self.index.chunks(site):
                table.setdefault(chunk.deep_url, []).append(chunk)
                parents.setdefault((chunk.url, chunk.path), chunk)
            for parts in table.values():
                parts.sort(key=lambda c: c.part)
            self._sections[site], self._parents[site] = table, parents
            self._listings[site] = listing_pages(self.index.chunks(site))
        return self._sections[site]

    def _preference(self, site: str, deep_url: str) -> float:
        """How much of its fused score a section keeps: documentation over release notes, fuller over terse."""
        parts = self._table(site).get(deep_url)
        if not parts:
            return 1.0
        weight = RELEASE_NOTES_WEIGHT if parts[0].source_type == RELEASE_NOTES else 1.0
        if sum(len(p.text.split()) for p in parts) < TINY_WORDS:
            weight *= TERSE_WEIGHT
        return weight

    def _listing(self, chunk: Chunk) -> bool:
        self._table(chunk.site)
        return chunk.url in self._listings[chunk.site]

    def section(self, site: str, deep_url: str, **extra: Any) -> Hit | None:
        """The whole section behind ``deep_url`` (parts merged, tiny ones with the parent's lead)."""
        parts = self._table(site).get(deep_url)
        if not parts:
            return None
        text = "\n\n".join(p.text for p in parts if p.text.strip())
        head = parts[0]
        context = ""
        if len(text.split()) < TINY_WORDS and len(head.path) > 1:
            parent = self._parents[site].get((head.url, head.path[:-1]))
            if parent is not None and parent.deep_url != head.deep_url:
                context = _lead(parent.text)
        return Hit.from_chunk(head, text, context=context, **extra)

    def search(
        self,
        query: str,
        k: int = 5,
        sites: Sequence[str] | None = None,
        boost: Sequence[str] = (),
        within: str | None = None,
    ) -> Retrieval:
        """Top ``k`` sections for ``query``; ``boost`` deep URLs (cited earlier) join the fusion; ``within`` keeps one page."""
        names = list(sites) if sites is not None else self.index.sites()
        f = self._fuse(query, names, boost, within)
        evidence_order = sorted(f.fused, key=lambda key: -f.fused[key])[:k]
        preferred = {key: score * self._preference(f.site_of[key], key) for key, score in f.fused.items()}  # the order
        fresh = len(names) == 1 and not within and not f.boosted
        ranked = self._ordered(query, names, preferred, f, fresh, depth=max(3 * k, k + 10))
        if fresh and len(ranked) > 1 and (self.ranker is not None or self.cross is not None):
            preferred = {key: 1.0 / (1 + i) for i, key in enumerate(ranked)}  # the models' order is the order
        hits = [
            self.section(f.site_of[key], key, score=f.fused[key], dense=f.best_dense.get(key, 0.0),
                         lexical=f.best_lex.get(key, 0.0))
            for key in ranked
        ]
        found = [h for h in hits if h is not None]
        tokens = [frozenset(tokenize(h.text)) for h in found]
        chosen = tuple(found[i] for i in mmr([preferred[h.deep_url] for h in found], tokens, k))
        merged = {h.deep_url: h for h in found}
        leading = tuple(h for h in (merged.get(key) or self.section(f.site_of[key], key) for key in evidence_order)
                        if h is not None)
        return Retrieval(chosen, max((s for _, s in f.dense), default=0.0), max((s for _, s in f.lexical), default=0.0),
                         _site_agreement(f.dense_keys, f.lexical_keys, f.site_of, none=f.pool + 1), leading)

    def top_lexical(self, query: str, site: str) -> float:
        """The best BM25 score of ``query`` on ``site``, listing pages left out: what :meth:`search` reports."""
        return max((score for chunk, score in self.index.lexical(query, k=self.pool, sites=[site])
                    if not self._listing(chunk)), default=0.0)

    def _ordered(self, query: str, names: list[str], preferred: dict[str, float], f: Fused, fresh: bool,
                 depth: int) -> list[str]:
        """The first ``depth`` (or more, for the models) candidates in answer order. The ranker orders a fresh
        question's candidates, then docbot's trained model its first ones; a follow-up keeps the order that favours
        what the conversation cited before (neither was fitted on conversations)."""
        depth = max(depth, self.ranker.depth if self.ranker else 0, self.cross.depth if self.cross else 0)
        ranked = sorted(preferred, key=lambda key: -preferred[key])[:depth]
        if not fresh or len(ranked) < 2:
            return ranked
        if self.ranker is not None:
            top = ranked[: self.ranker.depth]
            order = self.ranker.order(self._rows(query, names[0], top, f))
            ranked = [top[i] for i in order] + ranked[len(top):]
        if self.cross is not None:
            top = ranked[: self.cross.depth]
            sections = [self.section(names[0], key) for key in top]
            passages = [embedding_text(h.path, h.text[:CROSS_CHARS]) if h is not None else "" for h in sections]
            ranked = [top[i] for i in self.cross.order(query, passages)] + ranked[len(top):]
        return ranked

    def ordered(self, query: str, site: str, depth: int) -> list[str]:
        """The first ``depth`` sections of ``site`` in the order a fresh question's answer takes them (to measure)."""
        f = self._fuse(query, [site], (), None)
        preferred = {key: score * self._preference(f.site_of[key], key) for key, score in f.fused.items()}
        return self._ordered(query, [site], preferred, f, fresh=True, depth=depth)[:depth]

    def candidates(self, query: str, site: str, depth: int) -> tuple[list[str], list[tuple[float, ...]]]:
        """The first ``depth`` sections in retrieval's order and their ranker features (to fit the ranker on)."""
        f = self._fuse(query, [site], (), None)
        preferred = {key: score * self._preference(f.site_of[key], key) for key, score in f.fused.items()}
        ranked = sorted(preferred, key=lambda key: -preferred[key])[:depth]
        return ranked, self._rows(query, site, ranked, f)

    def _fuse(self, query: str, names: list[str], boost: Sequence[str], within: str | None) -> Fused:
        """Dense, BM25 and mention lists for ``query``, and their reciprocal rank fusion."""
        pool = self.pool * (4 if within else 1)
        dense = self.index.dense(query, k=pool, sites=names)
        lexical = self.index.lexical(query, k=pool, sites=names)
        if within:
            dense = [h for h in dense if h[0].url == within]
            lexical = [h for h in lexical if h[0].url == within]
        else:
            dense = [h for h in dense if not self._listing(h[0])]
            lexical = [h for h in lexical if not self._listing(h[0])]
        f = Fused(dense, lexical, pool)
        for chunk, score in dense:
            f.site_of[chunk.deep_url] = chunk.site
            f.best_dense[chunk.deep_url] = max(f.best_dense.get(chunk.deep_url, -1.0), score)
        for chunk, score in lexical:
            f.site_of[chunk.deep_url] = chunk.site
            f.best_lex[chunk.deep_url] = max(f.best_lex.get(chunk.deep_url, 0.0), score)
        f.dense_keys = _dedupe(c.deep_url for c, _ in dense)
        f.lexical_keys = _dedupe(c.deep_url for c, _ in lexical)
        if not within:
            said = [(key, score, site) for site in names for key, score in self._mentioned(query, site)]
            for key, score, site in sorted(said, key=lambda m: -m[1]):
                f.site_of[key] = site
                f.mention[key] = score
                f.mention_keys.append(key)
        lists: list[tuple[Sequence[str], float]] = [(f.dense_keys, 1.0), (f.lexical_keys, 1.0)]
        if f.mention_keys and self.mention_weight > 0:
            lists.append((f.mention_keys, self.mention_weight))
        f.boosted = [b for b in boost if b in f.site_of]
        if f.boosted:
            lists.append((f.boosted, BOOST_WEIGHT))
        f.fused = rrf(lists)  # the evidence: each hit's score
        return f

    def _mentioned(self, query: str, site: str) -> list[tuple[str, float]]:
        """The sections whose mentions on other pages best match ``query`` (none without a mention index)."""
        index = self._mention_index(site)
        if index is None:
            return []
        table = self._table(site)
        return [(key, score) for key, score in index.search(query, MENTION_POOL)
                if key in table and not self._listing(table[key][0])]

    def _mention_index(self, site: str) -> Any:
        mentions = getattr(self.index, "mentions", None)
        return mentions(site) if mentions is not None else None

    def _rows(self, query: str, site: str, keys: Sequence[str], f: Fused) -> list[tuple[float, ...]]:
        """The ranker's features of ``keys`` (one site's sections, in retrieval's order)."""
        if site not in self._freq:
            self._freq[site] = site_doc_freq(self.index, site)
        return self._features.rows(query, site, keys, f, self._table(site), self._mention_index(site),
                                   self._freq[site])
