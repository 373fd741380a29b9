"""Context compression: from the retrieved sections, the few sentences that answer *this* question.

The last step before any generation. Each section is cut into units (a sentence, a list
item, or a code block); units that cannot be an answer (questions, heading echoes,
navigation, signatures, labels, and captions or attributions without a sentence's end) are never
candidates. The rest are scored by how much of the question's weight they carry (question words rare among the candidates count
more), how relevant their section is (its rank, and the question's words in its title),
a lead bonus (a section's first sentence often defines it), and, when an embedding model is at hand,
how close the unit's meaning is to the question's (the cosine of their vectors: "my new Mac" meets
"macOS Monterey", "the session doesn't keep it" meets "not persisted across requests"). Facts are then picked
greedily: each pick halves the weight of the question words it covered, so the next
covers another part of the question. When the question tells a story before it asks ("Our app
runs behind a load balancer… How do I make the pool test connections?"), the words of the
asking sentence weigh more. The primary source carries the first fact; at most
:data:`MAX_SOURCES` sources carry facts. A sentence that ends in ':' takes the code block
(or list items) it introduces, or is not given at all: an answer never ends a sentence in a
colon that introduces nothing; one that opens by leaning on the sentence before it ("However, …"), or on the code
before it ("This will make test_function XFAIL."), comes only right after it, and one pointing at code brings that
code first. When nothing qualifies, a section's lead is the fact.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Callable, Sequence, Set
from dataclasses import dataclass, replace
from functools import partial

from docbot.answering.leaning import Unit, leaning_back, lend, reach
from docbot.answering.units import Source, answerable, clip, is_label, lead, never_a_fact, norm, trim_code, units
from docbot.text.words import tokenize

log = logging.getLogger(__name__)

MIN_FACTS = 3
MAX_FACTS = 7
MAX_SOURCES = 3  # sources that carry facts; the rest are "see also"
TOKEN_BUDGET = 900  # what an LLM sees of the facts (about 4 characters a token)
CHARS_PER_TOKEN = 4
MAX_CODE_FACTS = 2  # code blocks in one answer
LIST_WORDS = 40  # an introduction brings the list items after it up to about this many words
REACH_WORDS = 100  # ... or up to the item that lent it its score, when the items up to it are at most this many words
PAIR_WORDS = 90  # a fact takes the next sentence too when both are relevant and together this short
MIN_WORDS = 5  # shorter prose is a label or a fragment, not a fact (list items may be shorter)
MIN_FRAGMENT_WORDS = 8  # prose without a sentence's end is a fact only from this long: shorter, it is a caption,
# an epigraph's attribution or a heading in the text ("Twitter API rate limiting response"), and it would be
# read as the start of the sentence it is paired with
LEAD_BONUS = 0.5  # a section's first sentence, scaled by the share of the question in the section's title
FOLLOW_BONUS = 0.15  # for the sentence right after a picked one
RANK_DECAY = 0.35  # source n weighs 1 / (1 + RANK_DECAY * (n - 1)), plus its title's share of the question
TITLE_WEIGHT = 0.5  # how much the question's words in a section's title add to its relevance
STOP_SHARE = 0.2  # past MIN_FACTS, a fact scoring below this share of the best one is not worth its words
ASK_WEIGHT = 2.0  # the words of the sentence that asks weigh this much more than the story around it
DENSE_WEIGHT = 0.5  # a unit's cosine to the question, added to its share of the question's words
DENSE_UNITS = 32  # prose units embedded per answer: those that share the most of the question's words
DENSE_CHARS = 300  # what of a unit is embedded


# Cosines of texts to the question (an embedding model's); ``None`` scores by words alone.
Similarity = Callable[[Sequence[str]], Sequence[float]]


@dataclass(frozen=True, slots=True)
class Fact:
    """One or two sentences (or a short code block) copied from source ``n``."""

    n: int
    text: str
    position: int  # index of the unit in its source, for document order
    rank: int = 0  # 0 = picked first; the extractive answer drops the highest ranks to fit its word limit
    code: bool = False  # the text is (or ends in) a fenced code block
    item: bool = False  # the text is one list item (or table row) alone: a line of a list where the answer gives it


_SENTENCE_END = re.compile(r"[.!?:;][\"')\]\u201d\u2019]*$")  # closing quotes and brackets may follow


def _prose_fact(text: str) -> bool:
    """Long enough to be a fact: a sentence of :data:`MIN_WORDS`, or a fragment of :data:`MIN_FRAGMENT_WORDS`."""
    words = len(text.split())
    return words >= MIN_WORDS and (words >= MIN_FRAGMENT_WORDS or bool(_SENTENCE_END.search(text.rstrip())))


def _candidates(source: Source, question: str) -> list[Unit]:
    """The source's units that may be facts; an introduction (ending in ':') and the code block right after it
    share their words, since either is read with the other."""
    found: list[Unit] = []
    for i, (text, code, item) in enumerate(units(source.text)):
        if code or (answerable(text, source, question) and (item or _prose_fact(text))):
            found.append(Unit(source.n, i, text, code, item, frozenset(tokenize(text))))
        elif item and is_label(text) and not never_a_fact(text, source, question):
            found.append(Unit(source.n, i, text, code, item, frozenset(tokenize(text)), follower=True))
    for k in range(len(found) - 1):
        intro, block = found[k], found[k + 1]
        if intro.text.rstrip().endswith(":") and not intro.code and block.code and block.position == intro.position + 1:
            both = intro.terms | block.terms
            found[k], found[k + 1] = replace(intro, terms=both, lead_in=True), replace(block, terms=both)
        elif intro.text.rstrip().endswith(":") and not intro.code and not intro.item and block.follower \
                and block.position == intro.position + 1:  # "Several pytest plugins support this:" and the plugins
            names = [i for i in _list_items(found[k + 1:]) if i.follower]  # items that are facts alone keep theirs
            found[k] = replace(intro, terms=intro.terms.union(*(i.terms for i in names)))
    return found


def _list_items(following: Sequence[Unit], through: int | None = None) -> list[Unit]:
    """The list items an introduction brings: those that follow it, until about :data:`LIST_WORDS` words, or up to
    the item at position ``through`` if the items up to it are :data:`REACH_WORDS` words at most."""
    items: list[Unit] = []
    words = 0
    for u in following:
        size = len(u.text.split())
        reaching = through is not None and u.position <= through and words + size <= REACH_WORDS
        if not u.item or (words > LIST_WORDS and not reaching):
            break
        items.append(u)
        words += size
    return items


_QUESTION_SENTENCE = re.compile(r"(?<=[.!?;])\s+")


def ask_terms(question: str) -> frozenset[str]:
    """The terms of the sentence that asks ("How do I make the pool test connections?") when the question
    also tells a story around it (the setting, the symptom); empty for a question of one sentence."""
    sentences = [s for s in _QUESTION_SENTENCE.split(question.strip()) if s.strip()]
    if len(sentences) < 2:
        return frozenset()
    asking = [s for s in sentences if s.rstrip().endswith("?")]
    return frozenset(tokenize(asking[-1])) if asking else frozenset()


def _weights(question: str, candidates: Sequence[Unit]) -> dict[str, float]:
    """Question terms weighted by rarity among the candidate units (inverse document frequency), and more
    when the sentence that asks holds them."""
    terms = set(tokenize(question))
    asked = ask_terms(question)
    count = len(candidates) or 1
    return {t: math.log(1 + count / (1 + sum(t in u.terms for u in candidates))) * (ASK_WEIGHT if t in asked else 1.0)
            for t in terms}


def _title_share(source: Source, weights: dict[str, float]) -> float:
    """The share of the question's weight in the section's title (and its parent's)."""
    total = sum(weights.values()) or 1.0
    title = set(tokenize(" ".join((source.title, *source.path[-2:]))))
    return sum(w for t, w in weights.items() if t in title) / total


def _shares_terms(terms: Set[str], unit: Unit) -> bool:
    """Whether ``unit`` carries any of ``terms``."""
    return bool(unit.terms & terms)


def _extend(chosen: Unit, by_source: Sequence[Unit], relevant: Callable[[Unit], bool],
            code_ok: bool, through: int | None = None) -> tuple[str, bool, list[Unit]]:
    """The unit's text, with what it introduces when it ends in ':' (a code block or list items), or with the
    next sentence when that one is relevant too (a fact is one or two sentences); and the units used."""
    text = trim_code(chosen.text) if chosen.code else clip(chosen.text)
    following = [u for u in by_source if u.position > chosen.position]
    after = following[0] if following and following[0].position == chosen.position + 1 else None
    if chosen.code:
        before = [u for u in by_source if u.position == chosen.position - 1 and u.lead_in]
        if before:  # the code block with the sentence that introduces it
            return f"{clip(before[0].text)}\n\n{text}", True, [before[0], chosen]
        return text, True, [chosen]
    if not chosen.text.rstrip().endswith(":"):
        # a paragraph without a sentence's end runs into the next one ("fragmentXml - the fragment of XML to parse
        # baseUri - base URI of …", Javadoc's parameters): "; " parts them, as between list items
        sep = " " if _SENTENCE_END.search(text.rstrip()) else "; "
        if after and not after.code and not after.item and not chosen.item and relevant(after) \
                and norm(after.text) != norm(chosen.text) \
                and len(chosen.text.split()) + len(after.text.split()) <= PAIR_WORDS:
            if not after.text.rstrip().endswith(":"):
                return f"{text}{sep}{clip(after.text)}", False, [chosen, after]
            # The next sentence introduces code or a list: the pair comes with what it introduces, or not at all.
            more, code, used = _extend(after, by_source, relevant, code_ok)
            if len(used) > 1:
                return f"{text}{sep}{more}", code, [chosen, *used]
        return text, False, [chosen]
    if after and after.code and code_ok:
        return f"{text}\n\n{trim_code(after.text)}", True, [chosen, after]
    items = _list_items(following, through)
    if not items:
        return text, False, [chosen]
    return f"{text} {_run_on(items)}", False, [chosen, *items]


def _run_on(items: Sequence[Unit]) -> str:
    """List items as the rest of their introduction's sentence: "; " between them, but a space after one that ends
    a sentence of its own ("… You do not need to implement your own. pattern is …", never "own.; pattern")."""
    out = ""
    for item in items:
        text = clip(item.text)
        out += text if not out else (" " if out.endswith((".", "!", "?")) else "; ") + text
    return out


def _closeness(candidates: Sequence[Unit], weights: dict[str, float],
               similarity: Similarity | None) -> dict[tuple[int, int], float]:
    """(source, position) → the unit's cosine to the question, for the :data:`DENSE_UNITS` prose units that share
    the most of its words (embedding every unit of a long section would cost seconds); empty without a model or
    when it fails (the words alone then decide)."""
    if similarity is None:
        return {}
    prose = sorted((u for u in candidates if not u.code), key=lambda u: (-_share(u, weights), u.n, u.position))
    chosen = prose[:DENSE_UNITS]
    if not chosen:
        return {}
    try:
        cosines = list(similarity([u.text[:DENSE_CHARS] for u in chosen]))
    except Exception as exc:  # noqa: BLE001 - a model fault costs the answer its dense scores, not the answer
        log.warning("compression without the embedding model: %s", exc)
        return {}
    if len(cosines) != len(chosen):
        return {}
    return {(u.n, u.position): max(0.0, float(c)) for u, c in zip(chosen, cosines)}


def compress(question: str, sources: Sequence[Source], max_facts: int = MAX_FACTS,
             token_budget: int = TOKEN_BUDGET, similarity: Similarity | None = None) -> list[Fact]:
    """3–7 facts for ``question``, ordered by source then document position; never empty when a source has text.

    ``similarity`` gives the cosines of texts to the question; without it, units are scored by words alone."""
    candidates = [u for source in sources for u in _candidates(source, question)]
    alone = [u for u in candidates if not u.follower]  # what may be a fact by itself
    weights = _weights(question, alone)
    close = _closeness(alone, weights, similarity)
    titled = {s.n: _title_share(s, weights) for s in sources}
    leans_back = leaning_back(candidates)
    first_prose: dict[int, int] = {}
    for u in alone:
        if not u.code:
            first_prose.setdefault(u.n, u.position)
    picked: list[Unit] = []
    facts: list[Fact] = []
    budget = token_budget * CHARS_PER_TOKEN
    best = 0.0
    primary = sources[0].n if sources else None
    while sources and len(facts) < max_facts:
        carriers = {f.n for f in facts}
        code_ok = sum(f.code for f in facts) < MAX_CODE_FACTS
        seen = {norm(u.text) for u in picked}
        pool = [u for u in alone if u not in picked and (u.n in carriers or len(carriers) < MAX_SOURCES)
                and (code_ok or not (u.code or u.lead_in)) and norm(u.text) not in seen
                and (primary is None or u.n == primary)]  # the primary source carries the first fact
        ends = {(u.n, u.position + 1) for u in picked}
        given = {(u.n, u.position) for u in picked}
        held = {(u.n, u.position) for u in pool if (u.n, u.position) in leans_back
                and not leans_back[(u.n, u.position)] & given}
        raw = [(_score(u, weights, titled[u.n], u.position == first_prose.get(u.n), (u.n, u.position) in ends,
                       close.get((u.n, u.position), 0.0)), u)
               for u in pool]
        scored = [(s, u) for s, u in lend(raw, held, leans_back) if s > 0]
        if not scored and primary is not None:
            # Nothing of the primary section shares a word with the question, or nothing in it reads as a
            # sentence (only code, a table, another script): its opening is the first fact.
            text, used = _opening(sources[0], alone)
            if text:
                facts.append(Fact(primary, text, min((u.position for u in used), default=0), 0))
                budget -= len(text)
                picked.extend(used)
            primary = None
            continue
        primary = None
        if not scored:
            break
        score, unit = max(scored, key=lambda su: (su[0], -su[1].n, -su[1].position))
        best = max(best, score)
        positive = {t: w for t, w in weights.items() if w > 0}
        if len(facts) >= MIN_FACTS and score < STOP_SHARE * best:
            break
        text, code, used = _extend(unit, [u for u in candidates if u.n == unit.n and u not in picked],
                                   partial(_shares_terms, positive.keys()), code_ok, reach(raw, unit, leans_back))
        if not code and text.rstrip().endswith(":"):  # an introduction with nothing it introduces is not given
            picked.extend(used)
            continue
        if any(norm(u.text) in seen for u in used):  # it would repeat a code block or sentence already given
            picked.extend(used)
            continue
        if len(text) > budget and facts:
            break
        budget -= len(text)
        picked.extend(used)
        facts.append(Fact(unit.n, text, min(u.position for u in used), len(facts), code, used == [unit] and unit.item))
        for t in unit.terms & weights.keys():
            weights[t] /= 2  # covered: the next fact should answer another part of the question
    return sorted(facts, key=lambda f: (f.n, f.position))


def _opening(source: Source, candidates: Sequence[Unit]) -> tuple[str, list[Unit]]:
    """The first two sentences of the section that may be facts (none that ends in ':'), else its lead paragraph or
    code block."""
    opening = [u for u in candidates if u.n == source.n and not u.code][:2]
    while opening and opening[-1].text.rstrip().endswith(":"):  # an introduction without what it introduces
        opening.pop()
    if opening:
        return " ".join(clip(u.text) for u in opening), opening
    return lead(source), []


def facts_of(question: str, sources: Sequence[Source]) -> list[Fact]:
    """The facts the pipeline attached to the sources (``facts``), or freshly compressed ones."""
    attached = [f for s in sources for f in getattr(s, "facts", ())]
    return sorted(attached, key=lambda f: (f.n, f.position)) if attached else compress(question, sources)


def _share(unit: Unit, weights: dict[str, float]) -> float:
    """The share of the question's (remaining) weight in the unit's words."""
    return sum(w for t, w in weights.items() if t in unit.terms) / (sum(weights.values()) or 1.0)


def _score(unit: Unit, weights: dict[str, float], titled: float, first: bool, follows: bool,
           cosine: float = 0.0) -> float:
    """Share of the question's (remaining) weight the unit holds and its closeness in meaning (``cosine``), plus a
    lead bonus where the title holds it, times the section's relevance: its rank, and the question's words in its
    title."""
    share = _share(unit, weights) + DENSE_WEIGHT * cosine
    bonus = LEAD_BONUS * titled if first else 0.0  # "What does X do?": X's section opens by saying so
    if follows and not unit.code:
        bonus += FOLLOW_BONUS  # the sentence after a fact often finishes what it started
    if unit.text.rstrip().endswith(":") and not unit.code and not unit.lead_in:
        bonus -= 0.1  # an introduction reads well only with what it introduces
    return max(0.0, share + bonus) * (1.0 / (1 + RANK_DECAY * (unit.n - 1)) + TITLE_WEIGHT * titled)
