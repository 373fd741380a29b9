"""Rank a page's headings against a paraphrased fragment; rewrite only when one is clearly ahead.

Pure functions over a page's sections (no site, page or case is named here).
Each fragment word is weighted by how rare it is among the page's headings
(words of the page's own title say nothing about which section is meant and
are left out) and matched against each heading's words by, strongest first:
the same Snowball stem, a compound (``selectin`` ~ "Select IN"), a prefix
(``cert`` ~ "Certificate"), a WordNet synonym, and a parent heading's word.
A heading's score is the mean of how much of the fragment it covers and how
much of the heading the fragment covers, plus a bonus when the heading's id
is a proper prefix of the fragment (an embellished id). The best heading wins
only when it scores at least ``RANK_MIN_SCORE`` and ``RANK_MARGIN`` more than
the next one: a wrong rewrite is worse than dropping the fragment.

When no heading is clearly ahead, the sections' own words can still tell
(``how-do-i-stream-large-result-sets``: "Multiple Result Sets" and "Result Set
API" match two of its words, "Using Server Side Cursors (a.k.a. stream
results)" two others). :func:`settle` reads the opening text of every heading
that matched a word: when exactly one holds all the fragment words its heading
lacks ("very large result sets"), it is the one meant.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass

from crawlers.model import Page
from docbot.text.lexicon import API_ID, CAMEL, WORD, is_generated, synonym_stems
from docbot.text.words import stem

# Calibrated leave-one-site-out on the dev repair cases: scripts/calibrate_repair.py.
RANK_MIN_SCORE = 0.55
RANK_MARGIN = 0.16
FAMILY_WINDOW = 0.05  # a section and its subsection this close in score fit equally well: take the section
PREFIX_BONUS = 0.15  # the heading's id is a proper prefix of the fragment's words
SAME, COMPOUND, PREFIX, SYNONYM, CONTEXT = 1.0, 1.0, 0.8, 0.6, 0.3
MIN_PREFIX = 4  # shortest stem that may match as a prefix of a longer one
OPENING_WORDS = 300  # how much of a section's text :func:`settle` reads
QUERY_STOPWORDS = frozenset(
    "a an the and or of to in on for with as by at is are be how what why when where which do does did "
    "i we my our me your you it its this that from into via can should would could will".split()
)


def words(text: str) -> list[str]:
    """Lower-case words of ``text``, split on non-alphanumerics and camelCase, stopwords kept."""
    out: list[str] = []
    for word in WORD.findall(text):
        out += [p.lower() for p in (CAMEL.findall(word) or [word])]
    return out


@dataclass(frozen=True, slots=True)
class _Word:
    raw: str
    stem: str


def _content(ws: list[str]) -> list[_Word]:
    seen: dict[str, _Word] = {}
    for w in ws:
        if w not in QUERY_STOPWORDS:
            seen.setdefault(stem(w), _Word(w, stem(w)))
    return list(seen.values())


@dataclass(frozen=True, slots=True)
class _Heading:
    anchor: str
    title: str
    words: tuple[_Word, ...]  # content words of the title, page words left out
    anchor_stems: tuple[str, ...]  # the id's words, in order (stopwords out, repeats kept)
    id_words: frozenset[str]  # stems of the id's words the title lacks (label ids often carry them)
    joined: frozenset[str]  # adjacent title words run together ("select" + "in")
    context: frozenset[str]  # stems of the parents' headings
    path: tuple[str, ...]  # titles from the page's top down to this heading


@dataclass(frozen=True, slots=True)
class Ranked:
    """The winning heading, its score, the runner-up's score and why."""

    anchor: str
    title: str
    score: float
    second: float
    evidence: str
    # Every heading that matched a word, best first: (anchor, title, stems of the fragment's words the heading
    # does not match, path), for :func:`settle`.
    candidates: tuple[tuple[str, str, frozenset[str], tuple[str, ...]], ...] = ()
    words: int = 0  # the fragment's content words that were matched against the headings


class PageRanker:
    """A page's non-API headings, ready to be ranked against fragments."""

    def __init__(self, page: Page) -> None:
        anchors = set(page.anchors)
        page_words = words(page.title)
        for s in page.sections:
            if s.path and len(s.path) == 1 and s.level <= 1:
                page_words += words(s.title)
        self.page_stems = frozenset(stem(w) for w in page_words)
        self.page_raw = tuple(w for w in page_words if len(w) >= MIN_PREFIX)
        headings: list[_Heading] = []
        seen: set[str] = set()
        for s in page.sections:
            if not s.anchor or s.anchor not in anchors or s.anchor in seen or s.kind == "api" or API_ID.match(s.anchor):
                continue
            seen.add(s.anchor)
            title_words = words(s.title)
            own = tuple(w for w in _content(title_words) if w.stem not in self.page_stems)
            if not own:
                continue  # the page's own title: landing there is the same as dropping the fragment
            joined = frozenset(a + b for a, b in itertools.pairwise(title_words))
            context = frozenset(stem(w) for p in s.path[:-1] for w in words(p)) - self.page_stems
            anchor_words = words(s.anchor)
            id_words = frozenset() if is_generated(s.anchor) else frozenset(
                stem(w) for w in anchor_words if (len(w) >= 3 or w.isdigit()) and w not in QUERY_STOPWORDS
            ) - self.page_stems - {w.stem for w in own}
            headings.append(_Heading(s.anchor, s.title, own, _sequence(anchor_words), id_words, joined, context,
                                     tuple(s.path)))
        self.headings = headings
        df: dict[str, int] = {}
        for h in headings:
            for st in {w.stem for w in h.words}:
                df[st] = df.get(st, 0) + 1
        self._df = df

    def _weight(self, st: str) -> float:
        return 1.0 + math.log((len(self.headings) + 1) / (self._df.get(st, 0) + 1))

    def _is_page_word(self, w: _Word) -> bool:
        return w.stem in self.page_stems or any(w.raw in p for p in self.page_raw if len(w.raw) >= MIN_PREFIX)

    def rank(self, fragment: str) -> Ranked | None:
        """The best heading for ``fragment`` if it clears the score and margin; else ``None``."""
        all_words = _content(words(fragment))
        query = [w for w in all_words if not self._is_page_word(w)]
        if not query or not self.headings:
            return None
        weights = [self._weight(w.stem) for w in query]
        total = sum(weights)
        fragment_stems = _sequence(words(fragment))
        prefixes = [len(h.anchor_stems) if 2 <= len(h.anchor_stems) < len(fragment_stems)
                    and fragment_stems[: len(h.anchor_stems)] == h.anchor_stems else 0 for h in self.headings]
        longest = max(prefixes, default=0)  # only the longest id that prefixes the fragment is evidence
        scored: list[tuple[float, int, str]] = []
        missing: dict[int, frozenset[str]] = {}  # per heading: the fragment's stems it does not match
        for i, h in enumerate(self.headings):
            covered = 0.0
            hits: list[str] = []
            unmatched: set[str] = set()
            best_for_heading = [0.0] * len(h.words)
            for q, weight in zip(query, weights):
                best, why = 0.0, ""
                for k, hw in enumerate(h.words):
                    m, how = _match(q, hw)
                    if m > best_for_heading[k]:
                        best_for_heading[k] = m
                    if m > best:
                        best, why = m, how
                if best < SAME and q.stem in h.id_words:
                    best, why = SAME, f"{q.raw} (in the id)"
                if best < COMPOUND and q.raw in h.joined:
                    best, why = COMPOUND, f"{q.raw}~compound"
                if best < CONTEXT and q.stem in h.context:
                    best, why = CONTEXT, ""
                covered += weight * best
                if why:
                    hits.append(why)
                if not best:
                    unmatched.add(q.stem)
            for k, hw in enumerate(h.words):  # a compound fragment word covers both title words
                if best_for_heading[k] == 0.0 and any(hw.raw in q.raw and q.raw in h.joined for q in query):
                    best_for_heading[k] = COMPOUND
            if not hits:
                continue
            id_hits = sum(q.stem in h.id_words for q in query)  # the id's own words count as heading words too
            precision = (sum(best_for_heading) + id_hits) / (len(h.words) + len(h.id_words))
            score = 0.5 * covered / total + 0.5 * precision
            if longest and prefixes[i] == longest:
                score += PREFIX_BONUS
                hits.append("id is a prefix of the fragment")
            scored.append((score, i, ", ".join(hits)))
            missing[i] = frozenset(unmatched)
        if not scored:
            return None
        scored.sort(key=lambda x: (-x[0], x[1]))
        best_score, i, why = scored[0]
        h = self.headings[i]
        # A section and its subsections are one candidate: when several of them score about the same, land on
        # the outermost (it holds the others); the runner-up is the best section outside that family.
        family = [(sc, j, w) for sc, j, w in scored if _related(h, self.headings[j]) and best_score - sc < FAMILY_WINDOW]
        outer = min(family, key=lambda x: (len(self.headings[x[1]].path), -x[0]))
        if outer[1] != i:
            _, i, why = outer
            h = self.headings[i]
        others = [(sc, j) for sc, j, _ in scored if j != i and not _related(h, self.headings[j])]
        second = max((sc for sc, _ in others), default=0.0)
        order = [i] + [j for _, j in sorted(others, key=lambda x: (-x[0], x[1]))]
        candidates = tuple((self.headings[j].anchor, self.headings[j].title, missing[j], self.headings[j].path)
                           for j in order)
        return Ranked(h.anchor, h.title, best_score, second, why, candidates, len(query))


def settle(ranked: Ranked | None, opening: Callable[[str], str | None]) -> Ranked | None:
    """When no heading is clearly ahead, the sections' text decides: the one candidate that matches at least half
    the fragment's words by its heading and holds all the others in its opening text, if exactly one does
    (``opening(anchor)`` gives a section's text); else ``None``. A section and its subsections that all fit are
    one candidate: the section."""
    if ranked is None:
        return None
    fits = []
    for anchor, title, lacking, path in ranked.candidates:
        text = opening(anchor) if lacking and 2 * len(lacking) <= ranked.words else None
        if text and lacking <= {stem(w) for w in words(" ".join(text.split()[:OPENING_WORDS]))}:
            fits.append((anchor, title, lacking, path))
    outer = [f for f in fits if not any(len(g[3]) < len(f[3]) and f[3][:len(g[3])] == g[3] for g in fits)]
    if len(outer) != 1:
        return None
    anchor, title, lacking, _ = outer[0]
    return Ranked(anchor, title, ranked.score, ranked.second,
                  f"its text also has the fragment's {', '.join(sorted(lacking))}")


def _related(a: _Heading, b: _Heading) -> bool:
    """One heading is the other or sits under it."""
    n = min(len(a.path), len(b.path))
    return a.anchor == b.anchor or (n > 0 and a.path[:n] == b.path[:n])


def _sequence(ws: list[str]) -> tuple[str, ...]:
    """Stems of the content words in order, repeats kept (``change-1.1.12`` → change, 1, 1, 12)."""
    return tuple(stem(w) for w in ws if w not in QUERY_STOPWORDS)


def _match(q: _Word, h: _Word) -> tuple[float, str]:
    """How strongly a fragment word matches a heading word, and the evidence ('' for none)."""
    if q.stem == h.stem:
        return SAME, h.raw
    short, long_ = (q.stem, h.stem) if len(q.stem) <= len(h.stem) else (h.stem, q.stem)
    if len(short) >= MIN_PREFIX and long_.startswith(short):
        return PREFIX, f"{q.raw}~{h.raw}"
    if h.stem in synonym_stems(q.raw) or q.stem in synonym_stems(h.raw):
        return SYNONYM, f"{q.raw}≈{h.raw}"
    return 0.0, ""


def decide(ranked: Ranked | None, min_score: float | None = None, margin: float | None = None) -> Ranked | None:
    """``ranked`` when it is good enough and clearly ahead of the runner-up (module limits by default)."""
    min_score = RANK_MIN_SCORE if min_score is None else min_score
    margin = RANK_MARGIN if margin is None else margin
    if ranked is None or ranked.score < min_score or ranked.score - ranked.second < margin:
        return None
    return ranked
