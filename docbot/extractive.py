"""The offline answerer: the most relevant sentences and code of the top sources, with ``[n]`` markers.

No model: sentences are scored by overlap with the question's terms (rarer
words count more within a source), kept in document order, and each carries
the marker of the source it came from.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from docbot.chunk import split_blocks
from docbot.generate import Passage
from docbot.lexical import tokenize

MAX_SOURCES = 3  # sources quoted from
SENTENCES_PER_SOURCE = 2
MAX_SENTENCE_CHARS = 400
MAX_CODE_LINES = 12
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`\"'(])")
_FENCE = re.compile(r"^\s*(```|~~~)")


def _units(text: str) -> list[tuple[str, bool]]:
    """(sentence or code block, is_code) in document order."""
    units: list[tuple[str, bool]] = []
    for block in split_blocks(text):
        if _FENCE.match(block):
            units.append((block, True))
        else:
            units.extend((s.strip(), False) for s in _SENTENCE.split(" ".join(block.split())) if s.strip())
    return units


def _score(unit: str, terms: set[str]) -> float:
    words = tokenize(unit)
    if not words:
        return 0.0
    hits = len(terms & set(words))
    return hits + hits / len(set(words)) ** 0.5


def _trim_code(block: str) -> str:
    lines = block.splitlines()
    if len(lines) <= MAX_CODE_LINES + 2:
        return block
    return "\n".join([*lines[: MAX_CODE_LINES + 1], "...", lines[-1]])


def _clip(sentence: str) -> str:
    return sentence if len(sentence) <= MAX_SENTENCE_CHARS else sentence[:MAX_SENTENCE_CHARS].rsplit(" ", 1)[0] + " …"


def excerpt(question: str, passage: Passage, sentences: int = SENTENCES_PER_SOURCE) -> tuple[list[str], str | None]:
    """The best sentences (document order) and the best code block of one source."""
    terms = set(tokenize(question))
    units = _units(passage.text)
    prose = [(i, u) for i, (u, code) in enumerate(units) if not code]
    code = [(i, u) for i, (u, is_code) in enumerate(units) if is_code]
    ranked = sorted(prose, key=lambda iu: (-_score(iu[1], terms), iu[0]))[:sentences]
    chosen = [_clip(u) for _, u in sorted(ranked)]
    best_code = max(code, key=lambda iu: (_score(iu[1], terms), -iu[0]), default=None)
    if not chosen and passage.context:
        chosen = [_clip(passage.context)]
    return chosen, _trim_code(best_code[1]) if best_code else None


class ExtractiveGenerator:
    """Compose an answer from the top sources' own words; every paragraph ends with its ``[n]``."""

    name = "extractive"

    def __init__(self, max_sources: int = MAX_SOURCES) -> None:
        self.max_sources = max_sources

    def generate(self, question: str, passages: Sequence[Passage]) -> str:
        parts: list[str] = []
        code_used = False
        for passage in passages[: self.max_sources]:
            sentences, code = excerpt(question, passage)
            if not sentences and not code:
                parts.append(f"See {passage.title} [{passage.n}].")
                continue
            text = " ".join(sentences) if sentences else f"{passage.title}:"
            parts.append(f"{text} [{passage.n}]")
            if code and not code_used:  # one code example keeps the answer short
                parts.append(code)
                code_used = True
        for passage in passages[self.max_sources :]:
            parts.append(f"See also {passage.title} [{passage.n}].")
        return "\n\n".join(parts) if parts else "The documentation sources found do not answer this question."
