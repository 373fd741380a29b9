"""One page's fragment evidence: its ids by letter case and slug style, and headings a paraphrase may mean.

Pure over one :class:`~crawlers.model.Page`. :class:`PageIndex` holds a page's lookup tables, built on first
use; :func:`paraphrase` finds the one section whose title or id holds every content word of a fragment (context
words from its parents) and refuses to guess between two. :mod:`docbot.references.repair` tries this evidence
in order with the site-wide kinds.
"""

from __future__ import annotations

import bisect
import difflib
import functools
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple, TypeVar

from crawlers.model import Page
from docbot.text.lexicon import API_ID as _API_ID
from docbot.text.lexicon import CAMEL as _CAMEL
from docbot.text.lexicon import WORD as _WORD
from docbot.text.lexicon import is_generated

PARAPHRASE_THRESHOLD = 0.55  # minimum similarity score for a paraphrased fragment
MIN_PREFIX_MATCH = 4  # a token matches a longer one it is a prefix of ("cert" ~ "certificate")
K = TypeVar("K")
V = TypeVar("V")
MAX_CACHED_WORDS = 4096  # query words remembered per page index
STOPWORDS = frozenset(
    "a an the and or of to in on for with as by at is are be how what why when do does your you it its "
    "this that from into via".split()
)
_DUPLICATE_SUFFIX = re.compile(r".[_-]\d+$")
_NON_ALNUM = re.compile(r"[\W_]+", re.UNICODE)
_UNDERSCORES = re.compile(r"_+")
_PARENS = re.compile(r"\([^)]*\)")
_SLUG_PREFIXES = ("user-content-", "s-")
_FORM_SEGMENT = re.compile(r"[/-]")


class Match(NamedTuple):
    """A repaired target: canonical page URL, fragment ('' for the page) and why (a tuple: one per checked URL)."""

    page: str
    fragment: str
    reason: str


def remember(cache: dict[K, V], key: K, value: V, limit: int) -> None:
    """Store in a memo that is emptied when it reaches ``limit`` entries, so its memory stays bounded."""
    if len(cache) >= limit:
        cache.clear()
    cache[key] = value


def compact(text: str) -> str:
    """Lower-case alphanumerics only: equal for slug styles that differ in separators or apostrophes."""
    return _NON_ALNUM.sub("", text.lower())


@functools.lru_cache(maxsize=256)  # a fragment's keys are wanted on its page, then site-wide
def slug_keys(text: str) -> frozenset[str]:
    low = text.lower()
    keys = {compact(low)}
    for prefix in _SLUG_PREFIXES:
        if low.startswith(prefix) and len(low) > len(prefix):
            keys.add(compact(low[len(prefix):]))
    keys.discard("")
    return frozenset(keys)


@functools.lru_cache(maxsize=65536)
def stem(token: str) -> str:
    """Light stemming: plural and -ing/-ed endings (``identified`` → ``identify``)."""
    if len(token) <= 3:
        return token
    for suffix, repl in (("ies", "y"), ("ied", "y"), ("ing", ""), ("ed", ""), ("s", "")):
        if token.endswith(suffix) and len(token) - len(suffix) >= 3:
            if suffix == "s" and token.endswith("ss"):
                return token
            return token[: -len(suffix)] + repl
    return token


def tokens(text: str) -> tuple[str, ...]:
    """Stemmed, lower-case content words, splitting on non-alphanumerics and camelCase (plus the whole word)."""
    out: list[str] = []
    for word in _WORD.findall(text):
        out += _word_tokens(word)
    return tuple(dict.fromkeys(out))


@functools.lru_cache(maxsize=65536)
def _word_tokens(word: str) -> tuple[str, ...]:
    """The tokens of one word, in order (words recur across titles, anchors and fragments, so cached)."""
    parts = _CAMEL.findall(word) or [word]
    out = [stem(low) for low in (part.lower() for part in parts) if low not in STOPWORDS]
    if len(parts) > 1:
        out.append(stem(word.lower()))
    return tuple(out)


def _token_matches(q: str, vocab: set[str], ordered: list[str]) -> set[str]:
    """Vocabulary tokens equal to ``q`` or in a prefix relation with it (both at least MIN_PREFIX_MATCH long)."""
    if len(q) < MIN_PREFIX_MATCH:
        return {q} if q in vocab else set()
    found = vocab.intersection([q[:k] for k in range(MIN_PREFIX_MATCH, len(q) + 1)])  # q and its prefixes
    i = bisect.bisect_left(ordered, q)
    while i < len(ordered) and ordered[i].startswith(q):
        found.add(ordered[i])
        i += 1
    return found


@dataclass(slots=True)
class _Section:
    anchor: str
    title: str
    kind: str
    own: frozenset[str]
    primary: tuple[str, ...]
    context: frozenset[str]


class _QueryWord(NamedTuple):
    """One query word on one page: vocabulary tokens it matches, and the sections (never API entries)
    holding one of them in their own words, in their parents' words, and in either."""

    matches: frozenset[str]
    own: frozenset[int]
    ctx: frozenset[int]
    either: frozenset[int]


@dataclass(slots=True)
class PageIndex:
    """Lookup tables for one page, built on first use."""

    url: str
    anchors: frozenset[str]
    lower: dict[str, list[str]]
    slug: dict[str, list[str]]
    sections: list[_Section]
    vocab: set[str]
    ordered: list[str]
    ctx_vocab: set[str]
    ctx_ordered: list[str]
    titles: dict[str, tuple[str, tuple[str, ...]]]  # anchor -> (title, path)
    # paraphrase candidates: token -> indexes of the sections (never API entries) whose own / parents' words hold it
    para_own: dict[str, list[int]]
    para_ctx: dict[str, list[int]]
    _api: dict[str, list[tuple[str, list[str]]]] | None = None  # dotted prefix (lower) -> [(anchor, last words)]
    _tails: dict[str, list[str]] | None = None  # last segment of a path-form anchor -> its anchors
    _segments: frozenset[str] = frozenset()  # the other segments of those anchors, compacted (built with _tails)
    _words: dict[str, _QueryWord] = field(default_factory=dict)  # query word -> its matches, filled on first use

    @classmethod
    def build(cls, page: Page) -> PageIndex:
        anchors = frozenset(page.anchors)
        lower: dict[str, list[str]] = defaultdict(list)
        slug: dict[str, list[str]] = defaultdict(list)
        for anchor in sorted(anchors):
            lower[anchor.lower()].append(anchor)
            for key in slug_keys(anchor):
                slug[key].append(anchor)
        sections: list[_Section] = []
        titles: dict[str, tuple[str, tuple[str, ...]]] = {}
        contexts: dict[tuple[str, ...], frozenset[str]] = {}  # sections under the same parents share one
        for s in page.sections:
            if not s.anchor or s.anchor not in anchors:
                continue
            titles.setdefault(s.anchor, (s.title, s.path))
            titled = () if s.kind == "api" else (s.title, _PARENS.sub("", s.title))  # API titles are signatures
            for text in titled:
                for key in slug_keys(text):
                    if s.anchor not in slug[key]:
                        slug[key].append(s.anchor)
            primary = tokens(s.title) or tokens(s.anchor)
            own = frozenset(primary) | frozenset(tokens(s.anchor))
            context = contexts.get(s.path[:-1])
            if context is None:
                context = contexts[s.path[:-1]] = frozenset(t for p in s.path[:-1] for t in tokens(p))
            sections.append(_Section(s.anchor, s.title, s.kind, own, primary, context))
        para_own: dict[str, list[int]] = defaultdict(list)
        para_ctx: dict[str, list[int]] = defaultdict(list)
        for i, sec in enumerate(sections):
            if sec.kind == "api" or _API_ID.match(sec.anchor):
                continue  # API entries are matched by name (_api_paraphrase), never by loose words
            for t in sec.own:
                para_own[t].append(i)
            for t in sec.context:
                para_ctx[t].append(i)
        vocab = {t for sec in sections for t in sec.own}
        ctx_vocab = {t for sec in sections for t in sec.context}
        return cls(page.url, anchors, dict(lower), dict(slug), sections, vocab, sorted(vocab),
                   ctx_vocab, sorted(ctx_vocab), titles, dict(para_own), dict(para_ctx))

    def query_word(self, q: str) -> _QueryWord:
        """The vocabulary tokens ``q`` matches and the paraphrase candidates they select (cached per word)."""
        found = self._words.get(q)
        if found is None:
            matches = frozenset(_token_matches(q, self.vocab, self.ordered))
            own = frozenset().union(*[self.para_own.get(t, ()) for t in matches])
            ctx_tokens = _token_matches(q, self.ctx_vocab, self.ctx_ordered)
            ctx = frozenset().union(*[self.para_ctx.get(t, ()) for t in ctx_tokens])
            found = _QueryWord(matches, own, ctx, own | ctx)
            remember(self._words, q, found, MAX_CACHED_WORDS)
        return found

    def api_ids(self) -> dict[str, list[tuple[str, list[str]]]]:
        """Dotted anchors by lower-case object path, with the words of their last component (built on first use)."""
        if self._api is None:
            api: dict[str, list[tuple[str, list[str]]]] = defaultdict(list)
            for anchor in self.anchors:
                a_prefix, dot, a_last = anchor.rpartition(".")
                if dot:
                    api[a_prefix.lower()].append((anchor, _api_words(a_last)))
            self._api = dict(api)
        return self._api


    def tails(self) -> dict[str, list[str]]:
        """Path-form anchors (``tag/pet/operation/addPet``, ``/pet/addPet``) by their last segment (built on first
        use)."""
        if self._tails is None:
            tails: dict[str, list[str]] = defaultdict(list)
            for anchor in sorted(self.anchors):
                _, slash, tail = anchor.rpartition("/")
                if slash and tail and "?" not in anchor:
                    tails[tail].append(anchor)
            self._tails = dict(tails)
            self._segments = frozenset(compact(s) for anchors in tails.values() for a in anchors
                                       for s in a.split("/")[:-1])
        return self._tails

    def segments(self) -> frozenset[str]:
        """Every segment but the last of the page's path-form anchors (``tag``, ``operation``, the tags), compacted."""
        self.tails()
        return self._segments


def other_form(index: PageIndex, fragment: str) -> Match | None:
    """The operation or tag a fragment names in another generator's form: an API's id as Swagger UI's element id
    (``operations-pet-addPet``), Redoc's route (``tag/pet/operation/addPet``) or Swagger UI's (``/pet/addPet``), on a
    page whose anchors are another of these forms. The fragment ends with an anchor's last segment, after a ``/``
    (or a ``-`` when another of the anchor's segments is in the fragment too), and names no segment of the page's
    anchors (a tag) that this one lacks; of the anchors it may mean, the one sharing most segments with it, when
    only one does."""
    tails = index.tails()
    if not tails:
        return None
    for start in range(len(fragment)):
        if start and fragment[start - 1] not in "/-":
            continue
        anchors = tails.get(fragment[start:])
        if not anchors:
            continue
        head = fragment[:start]
        words = {compact(w) for w in (*_FORM_SEGMENT.split(head), *head.split("/"))} - {""}
        named = words & index.segments()
        scored = sorted((len(own & words), a) for a in anchors
                        if named <= (own := {compact(s) for s in a.split("/")[:-1]}))
        if not scored:
            return None  # the fragment names another tag: which of the two was meant is not known
        best, anchor = scored[-1]
        if (len(scored) > 1 and scored[-2][0] == best) or (fragment[start - 1:start] == "-" and not best):
            return None  # two equally likely, or a bare word after a hyphen (a heading's slug, not an id)
        return Match(index.url, anchor, f"the same id in another form ({fragment[start:]})")
    return None


def pick(candidates: Iterable[str], fragment: str) -> str | None:
    """The single best candidate: heading/API ids before generated ones, then closest spelling; None on a tie."""
    unique = list(dict.fromkeys(candidates))
    if len(unique) <= 1:
        return unique[0] if unique else None

    def rank(a: str) -> tuple[int, int, float]:
        same = sum(x == y for x, y in zip(a, fragment))
        return (is_generated(a) or bool(_DUPLICATE_SUFFIX.search(a)), -same,
                -difflib.SequenceMatcher(None, a, fragment).ratio())

    ranked = sorted(unique, key=rank)
    return None if rank(ranked[0]) == rank(ranked[1]) else ranked[0]


def _api_words(name: str) -> list[str]:
    return [t.lower() for t in _UNDERSCORES.split(name) if t]


def _api_paraphrase(index: PageIndex, fragment: str) -> Match | None:
    """Dotted API ids: same object path, last component a whole-token prefix of the real one (never one edit away)."""
    prefix, _, last = fragment.rpartition(".")
    want = _api_words(last)
    found = []
    for anchor, have in index.api_ids().get(prefix.lower(), ()):
        short, long_ = (want, have) if len(want) <= len(have) else (have, want)
        if len(short) >= 2 and long_[: len(short)] == short:
            found.append(anchor)
    if len(found) == 1:
        return Match(index.url, found[0], f"paraphrase of API name '{found[0]}'")
    return None


def paraphrase(index: PageIndex, fragment: str) -> Match | None:
    """A section whose title/anchor covers every content word of ``fragment`` (context words from its parents)."""
    if _API_ID.match(fragment):
        return _api_paraphrase(index, fragment)
    query = tokens(fragment)
    if not query:
        return None
    # Cheap prefilter on the inverted indexes: a section must hold every query word, in its own words or
    # (the others) in its parents' words, and at least one in its own; only those are scored.
    words = [index.query_word(q) for q in query]
    candidates = words[0].own if len(words) == 1 else frozenset.intersection(*[w.either for w in words])
    if not candidates:
        return None
    any_match = words[0].matches if len(words) == 1 else frozenset().union(*[w.matches for w in words])
    scored: list[tuple[float, int, _Section]] = []
    for i in candidates:
        own_hits = 0
        for w in words:
            if i in w.own:
                own_hits += 1
        if not own_hits:
            continue
        ctx_hits = len(query) - own_hits  # every other word is in the section's context
        sec = index.sections[i]
        precision = len(any_match.intersection(sec.primary)) / len(sec.primary)  # primary words are distinct
        if precision < 0.34 or (len(query) == 1 and precision < 0.5):
            continue
        score = 0.5 * (own_hits + 0.5 * ctx_hits) / len(query) + 0.5 * precision
        if score >= PARAPHRASE_THRESHOLD:
            penalty = 1 if is_generated(sec.anchor) else 0
            scored.append((score - 0.05 * penalty, i, sec))
    if not scored:
        return None
    scored.sort(key=lambda x: (-x[0], x[1]))
    best = scored[0]
    if len(scored) > 1 and scored[1][0] >= best[0] - 1e-9 and scored[1][2].anchor != best[2].anchor:
        return None  # two sections fit equally well: do not guess
    sec = best[2]
    return Match(index.url, sec.anchor, f'paraphrase of heading "{sec.title}" (score {best[0]:.2f})')
