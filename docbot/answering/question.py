"""A question as the pipeline reads it: cleaned, bounded, and read with the conversation before it.

Pure. :func:`clean_question` strips control characters, collapses whitespace, truncates and refuses empty or
binary input with a message that says what to do; :func:`query_of` reads a short follow-up together with the
question before it.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import Protocol

from crawlers.urls import split_directive
from docbot.answer import Reference

MAX_QUESTION_CHARS = 2000  # longer questions are truncated (embedding models read ~256 tokens anyway)
MIN_PRINTABLE = 0.85  # below this share of printable characters a question is treated as binary junk
FOLLOW_UP_WORDS = 12  # a question this short in a conversation is read together with the previous one


class Turn(Protocol):
    """An earlier question and answer of the same conversation (a Slack thread)."""

    question: str
    answer: str
    references: Sequence[Reference]


def clean_question(question: str) -> tuple[str, str | None]:
    """(cleaned question, error message or None): strips, truncates, rejects empty and binary input.

    A rejected question comes back cleaned too: it is echoed (``--json``'s ``question``, Slack's *Q:*), and NUL,
    a right-to-left override or a lone surrogate must not be.
    """
    text = question if isinstance(question, str) else str(question)
    printable = sum(1 for c in text if c.isprintable() or c in "\n\t")
    cleaned = " ".join("".join(c if unicodedata.category(c)[0] != "C" else " " for c in text).split())
    cleaned = cleaned[:MAX_QUESTION_CHARS]  # controls (Cc), format characters (Cf), surrogates (Cs) are gone
    if not text.strip():
        return cleaned, "The question is empty — ask something like: docbot ask \"How do I set a cookie?\""
    if printable / len(text) < MIN_PRINTABLE or "\x00" in text:
        return cleaned, "The question looks like binary data, not text — ask in plain words."
    return cleaned, None


def query_of(question: str, context: Sequence[Turn]) -> str:
    """What to search for: a short follow-up is read together with the question before it."""
    if context and len(question.split()) < FOLLOW_UP_WORDS:
        return f"{context[-1].question} {question}"
    return question


def cited_before(context: Sequence[Turn]) -> list[str]:
    """URLs the conversation's earlier answers cited (retrieval favours them), without their text directives."""
    return [split_directive(r.url)[0] for turn in context for r in turn.references]
