"""Which passage of each source an answer quotes: what that source's link should land on (its text directive).

Pure. An answer's ``[n]`` markers say which sources its statements rest on; the statement before a marker is
matched to the facts of source ``n`` that compression chose (:mod:`docbot.answering.compress`): the extractive
answer copies a fact word for word, an LLM rephrases one, and the fact that shares the most words with the
statement is the one it rests on, if it shares enough of them (a "See also" line shares only a title). A source's
passage is the fact its first statement rests on (the prose of it: a code fact's introducing sentence; a code
block alone is no passage).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from docbot.answering.compress import Fact
from docbot.text.words import tokenize

MIN_SHARED = 0.3  # of a fact's words, the share a statement must hold to rest on it (a copied fact holds all)
MIN_SHARED_WORDS = 2
_MARKERS = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")
_FENCED = re.compile(r"^\s*(```|~~~)")


def _prose(fact: Fact) -> str:
    """What of a fact a link can land on: its text, or a code fact's introducing sentence ("" for bare code)."""
    if not fact.code:
        return fact.text
    intro, sep, _ = fact.text.partition("\n\n")
    return intro.strip() if sep and not _FENCED.match(intro) else ""


def _shared(said: set[str], text: str) -> float:
    """The share of ``text``'s words that ``said`` holds (0 below :data:`MIN_SHARED_WORDS` words)."""
    words = set(tokenize(text))
    common = len(said & words)
    return common / len(words) if words and common >= MIN_SHARED_WORDS else 0.0


def quoted_passages(answer: str, facts: Mapping[int, Sequence[Fact]]) -> dict[int, str]:
    """Source number → the passage the answer's first statement citing it rests on (sources with facts only)."""
    out: dict[int, str] = {}
    last = 0
    for marker in _MARKERS.finditer(answer):
        statement = answer[last:marker.start()]
        last = marker.end()
        said = set(tokenize(statement))
        for part in marker.group(1).split(","):
            n = int(part)
            if n in out or not any(_prose(f) for f in facts.get(n, ())):
                continue
            best = max((_shared(said, text), -i, text) for i, text in enumerate(_prose(f) for f in facts[n]) if text)
            if best[0] >= MIN_SHARED:
                out[n] = best[2]
    return out
