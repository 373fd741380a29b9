"""Training pairs written by documentation authors: every internal link names its target section in other words.

A link's sentence ("use ``select_related()`` to avoid a query per row") is a question whose answer is the section
the link lands in; an index entry ("abs › built-in function") is one too. For each site this module turns the
crawl's mentions (:class:`crawlers.model.Mention`) into (query, gold section, hard negatives) triples:

- ``sentence``: the sentence around the link, link words included;
- ``described``: the same sentence with the link's words taken out, so only the description names the target
  (kept when at least :data:`MIN_DESCRIBED_WORDS` words remain);
- ``words``: the link's own words, when they are more than a title-like single word;
- ``index``: an index entry's terms and the link's words.

Links inside their own page (tables of contents, "see below") are left out, and so are links that land on a
section with no text. Hard negatives are the sections a BM25 over the site puts above or near the gold one, leaving
out the gold's own ancestors and descendants on its page (they contain or are the answer) and any section with the
same text. Pure: sections and mentions in, pairs out; deterministic for a seed.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from crawlers.model import Mention, SectionText
from docbot.indexing.bm25 import Lexical
from docbot.indexing.chunk import embedding_text

KINDS = ("sentence", "described", "words", "index")
MIN_SECTION_CHARS = 40  # a section with less text says nothing a question could be answered from
MIN_DESCRIBED_WORDS = 5
MAX_QUERY_WORDS = 40
MAX_PER_TARGET = 3  # queries kept per gold section: a much-linked API entry would otherwise fill a site's share
NEGATIVES = 7
NEGATIVE_POOL = 30  # BM25 candidates the negatives are drawn from, best first
PASSAGE_CHARS = 2000  # of a section's text kept: far past what the model reads
INDEX_SEPARATOR = " › "
SHARES = {"sentence": 0.3, "described": 0.3, "words": 0.2, "index": 0.2}  # of a site's queries, when it has more
GENERIC = frozenset({"here", "this", "link", "see", "docs", "documentation", "more", "below", "above", "details",
                     "source", "[source]", "next", "previous", "back", "top", "¶", "#"})
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class Doc:
    """A section as the model reads it: its "Page › Section" path, then its text."""

    key: str  # url#anchor (or the url for a page's top)
    url: str
    path: tuple[str, ...]
    passage: str


@dataclass(frozen=True, slots=True)
class Pair:
    site: str
    kind: str
    query: str
    positive: str  # a Doc key
    negatives: tuple[str, ...]


def doc_key(url: str, anchor: str | None) -> str:
    return f"{url}#{anchor}" if anchor else url


def site_docs(sections: Sequence[SectionText]) -> dict[str, Doc]:
    """The sections with text enough to answer from, by key (the first of a key kept)."""
    docs: dict[str, Doc] = {}
    for s in sections:
        key = doc_key(s.url, s.anchor)
        if key in docs or len(s.text.strip()) < MIN_SECTION_CHARS:
            continue
        docs[key] = Doc(key, s.url, s.path, embedding_text(s.path, s.text[:PASSAGE_CHARS]))
    return docs


def _clean(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def _cap(text: str) -> str:
    words = text.split()
    return " ".join(words[:MAX_QUERY_WORDS])


def queries_of(mention: Mention) -> list[tuple[str, str]]:
    """(kind, query) pairs a mention gives; none for a link whose words and sentence say nothing."""
    words, context = _clean(mention.text), _clean(mention.context)
    out: list[tuple[str, str]] = []
    if INDEX_SEPARATOR in context:  # an index entry: the terms it stands under, then its own words
        terms = _cap(f"{context} {words}" if words and words not in context else context)
        return [("index", terms)] if len(terms.split()) >= 1 else []
    bare = words.lower().strip(" .:")
    bare = bare.removeprefix("the ").removeprefix("this ")
    meaningful = bare not in GENERIC and len(bare) >= 3
    if context and len(context.split()) >= 4 and context != words:
        out.append(("sentence", _cap(context)))
        if meaningful and words in context:
            described = _clean(context.replace(words, " "))
            if len(described.split()) >= MIN_DESCRIBED_WORDS:
                out.append(("described", _cap(described)))
    if meaningful and len(words.split()) >= 2:
        out.append(("words", _cap(words)))
    return out


def _related(a: Doc, b: Doc) -> bool:
    """``b`` contains or is contained in ``a`` (same page, one path a prefix of the other)."""
    if a.url != b.url:
        return False
    short, long = sorted((a.path, b.path), key=len)
    return long[: len(short)] == short


def site_pairs(site: str, sections: Sequence[SectionText], mentions: Iterable[Mention], rng: random.Random,
               limit: int | None = None, negatives: int = NEGATIVES) -> list[Pair]:
    """The site's (query, gold, negatives) triples, at most ``limit`` queries drawn at random (seeded)."""
    docs = site_docs(sections)
    first_of_page: dict[str, str] = {}
    for key, doc in docs.items():
        first_of_page.setdefault(doc.url, key)
    found: dict[tuple[str, str], str] = {}  # (query, gold key) → kind; a query seen twice for a gold kept once
    per_target: dict[str, int] = defaultdict(int)
    for m in mentions:
        if m.source.split("#")[0] == m.target:
            continue
        gold = doc_key(m.target, m.section) if m.section else first_of_page.get(m.target)
        if gold is None or gold not in docs:
            continue
        for kind, query in queries_of(m):
            if (query, gold) not in found:
                found[(query, gold)] = kind
    by_target: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for (query, gold), kind in found.items():
        by_target[gold].append((kind, query))
    chosen: list[tuple[str, str, str]] = []
    for gold in sorted(by_target):
        options = sorted(by_target[gold])
        rng.shuffle(options)
        for kind, query in options[:MAX_PER_TARGET]:
            per_target[gold] += 1
            chosen.append((kind, query, gold))
    rng.shuffle(chosen)
    if limit is not None and len(chosen) > limit:
        chosen = _by_shares(chosen, limit)
    if not chosen:
        return []
    keys = list(docs)
    lexical = Lexical.build(keys, [docs[k].passage for k in keys], set_hash=site)
    text_of = {k: docs[k].passage.split("\n\n", 1)[-1] for k in keys}
    pairs = []
    for kind, query, gold in chosen:
        ranked = [k for k, _ in lexical.search(query, NEGATIVE_POOL + 1)]
        pool = [k for k in ranked if k != gold and not _related(docs[k], docs[gold]) and text_of[k] != text_of[gold]]
        if len(pool) < negatives:  # a small site: fill from anywhere on it
            rest = [k for k in keys if k != gold and k not in pool and not _related(docs[k], docs[gold])]
            pool += rng.sample(rest, min(len(rest), negatives - len(pool)))
        if pool:
            pairs.append(Pair(site, kind, query, gold, tuple(pool[:negatives])))
    return pairs


def _by_shares(chosen: list[tuple[str, str, str]], limit: int) -> list[tuple[str, str, str]]:
    """``limit`` of the (shuffled) queries, each kind up to its share, what a kind leaves filled by the others."""
    quota = {kind: int(limit * share) for kind, share in SHARES.items()}
    taken, rest = [], []
    for item in chosen:
        if quota[item[0]] > 0:
            quota[item[0]] -= 1
            taken.append(item)
        else:
            rest.append(item)
    return taken + rest[: limit - len(taken)]


def counts(pairs: Iterable[Pair]) -> dict[str, dict[str, int]]:
    """Pairs of each kind per site, for the model's record."""
    table: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(KINDS, 0))
    for p in pairs:
        table[p.site][p.kind] += 1
    return {site: dict(row) for site, row in sorted(table.items())}
