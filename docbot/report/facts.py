"""How much of what a correct answer must say the answer says: a crude, purely lexical measure.

A required fact (an eval question's ``answer_facts``) counts as covered when at least
:data:`FACT_SHARE` of its content words appear in the answer text. Content words are the
lowercased alphanumeric runs minus English stopwords, compared by Snowball stem ("limits"
meets "limit"), so ``SESSION_COOKIE_SECURE`` is the three words session, cookie, secure.
It is crude: a paraphrase with other words is missed, and a sentence that uses the words
to say something else counts. Only answered in-scope questions' facts count.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from docbot.indexing.chunk import FENCED_BLOCK
from docbot.text.words import stem

FACT_SHARE = 0.6  # share of a fact's content words the answer must contain
STOPWORDS = frozenset(
    "a about after all also an and any are as at be because been before being but by can could did do "
    "does doing done each either else for from get gets got had has have having how however i if in "
    "into is it its itself just may me might more most must my no not now of off on once one only or "
    "other our out over own same should so some such than that the their them then there these they "
    "this those through to too under until up use used uses using very via was we were what when "
    "where whether which while who why will with within without would yes you your".split()
)
_WORD = re.compile(r"[a-z0-9]+")
_MARKER = re.compile(r"\s*\[\d+\]")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_SEE_ALSO = re.compile(r"^See also .*$", re.M)


def content_words(text: str) -> set[str]:
    """Stemmed words of ``text`` that are not stopwords."""
    return {stem(w) for w in _WORD.findall(text.lower()) if w not in STOPWORDS}


def fact_covered(fact: str, answer: str, share: float = FACT_SHARE) -> bool:
    """At least ``share`` of the fact's content words occur in the answer (a fact of no content words: no)."""
    want = content_words(fact)
    if not want:
        return False
    return len(want & content_words(answer)) >= share * len(want) - 1e-9


def word_count(answer: str) -> int:
    """Words a reader sees: whitespace-separated tokens, ``[n]`` markers excluded."""
    return len(_MARKER.sub(" ", answer).split())


def question_sentences(answer: str, question: str = "") -> list[str]:
    """Prose sentences of the answer that end in '?', except those the question itself quotes.

    A "See also TITLE [n]." line names a source, not a sentence of it: a title such as
    "Why isn't my __init__() called?" does not count.
    """
    prose = _SEE_ALSO.sub(" ", FENCED_BLOCK.sub(" ", _MARKER.sub("", answer)))
    asked = " ".join(question.split()).lower()
    found = []
    for paragraph in re.split(r"\n\s*\n", prose):
        for sentence in _SENTENCE_END.split(" ".join(paragraph.split())):
            if sentence.endswith("?") and sentence.lower() not in asked:
                found.append(sentence)
    return found


def answer_figures(rows: Iterable[tuple[Sequence[str], str, str]]) -> dict[str, Any]:
    """Figures over (required facts, answer text, question) of answered in-scope questions.

    ``facts_covered`` is a percentage (``None`` with no facts); ``words_p50``/``words_max`` are
    over the answers; ``question_sentences`` counts answer sentences ending in '?'.
    """
    covered = total = asked = 0
    words: list[int] = []
    for facts, answer, question in rows:
        total += len(facts)
        covered += sum(fact_covered(f, answer) for f in facts)
        words.append(word_count(answer))
        asked += len(question_sentences(answer, question))
    words.sort()
    return {
        "facts_covered": None if total == 0 else 100.0 * covered / total,
        "facts": total,
        "facts_hit": covered,
        "words_p50": float(words[(len(words) - 1) // 2]) if words else None,
        "words_max": float(words[-1]) if words else None,
        "question_sentences": asked,
    }
