"""The prompt fitted to the model's context window, and the model's answer held to the sources it was shown.

Pure functions over plain data (:mod:`docbot.answering.generate` makes the call). Tokens are counted
conservatively as characters / 3: BPE vocabularies spend about one token on four characters of English prose and
nearer three on code and symbols, so an estimate of three errs towards sending less. Each message adds the chat
template's own tokens (role markers, separators). What the answer may use (``max_tokens``) is kept free; when the
best source alone does not fit, its least facts go first, and when nothing fits the call is not made at all.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from docbot.answering.compress import Fact
from docbot.errors import GenerationError
from docbot.references.scan import outside_code, sub_markers
from docbot.text.words import tokenize

CHARS_PER_TOKEN = 3.0
MESSAGE_TOKENS = 8  # a chat template's tokens around one message (ChatML spends 5: <|im_start|>role\n…<|im_end|>\n)
SAFETY_TOKENS = 32  # the template's opening of the answer, and slack for an estimate that runs short

Messages = list[tuple[str, str]]


@dataclass(frozen=True, slots=True)
class Packed:
    """The prompt that fits, the sources it shows and those left out for room."""

    messages: Messages
    sent: tuple[int, ...]  # the numbers of the sources whose facts the prompt holds
    left_out: tuple[int, ...] = ()  # sources with facts that did not fit
    tokens: int = 0  # the estimate of the prompt's tokens


def tokens(text: str) -> int:
    """A conservative token count of ``text`` (characters / 3, rounded up)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def prompt_tokens(messages: Messages) -> int:
    return sum(tokens(content) + MESSAGE_TOKENS for _, content in messages)


def room(window: int, max_tokens: int) -> int:
    """The prompt's share of a window of ``window`` tokens once the answer's ``max_tokens`` are kept free."""
    return window - max_tokens - SAFETY_TOKENS


def pack(build: Callable[[Sequence[Fact]], Messages], facts: Sequence[Fact], window: int | None,
         max_tokens: int) -> Packed:
    """The prompt ``build`` makes of as many ``facts`` as fit a window of ``window`` tokens (all without one).

    Sources are numbered best first: the last source goes first, then the best one's facts compression ranked
    lowest. Raises
    :class:`GenerationError` when not even one fact fits (the caller answers extractively)."""
    numbers = sorted({f.n for f in facts})
    kept = list(facts)
    messages = build(kept)
    if window is None:
        return Packed(messages, tuple(numbers), (), prompt_tokens(messages))
    limit = room(window, max_tokens)
    while kept and prompt_tokens(messages) > limit:
        last = max(f.n for f in kept)
        if last != min(f.n for f in kept):
            kept = [f for f in kept if f.n != last]
        else:
            kept.remove(max(kept, key=lambda f: f.rank))  # the fact compression thought least of
        messages = build(kept)
    if not kept:
        raise GenerationError(
            f"The prompt does not fit the model's context window ({window} tokens, {max_tokens} of them kept for "
            f"the answer) — give the server a larger context (llama.cpp: --n_ctx) and set it as DOCBOT_LLM_CONTEXT, "
            f"or lower DOCBOT_LLM_MAX_TOKENS")
    sent = sorted({f.n for f in kept})
    return Packed(messages, tuple(sent), tuple(n for n in numbers if n not in sent), prompt_tokens(messages))


def held_to_sources(text: str, sent: Sequence[int]) -> str:
    """``text`` with every ``[n]`` the prompt did not show removed; :class:`GenerationError` when no marker is left
    (an answer that cites nothing it was shown is not checked against anything, so it is not sent)."""
    shown = set(sent)
    kept = 0

    def keep(blank: str, nums: str) -> str:
        nonlocal kept
        ours = [n for n in (int(p) for p in nums.split(",")) if n in shown]
        kept += len(ours)
        return blank + "".join(f"[{n}]" for n in ours) if ours else ""

    cleaned = outside_code(text, lambda part: sub_markers(part, keep)).strip()
    if not kept:
        raise GenerationError("The LLM's answer cites none of its sources with an [n] marker; answered extractively")
    return cleaned


def states_a_fact(text: str, facts: Sequence[Fact], question: str) -> str:
    """``text`` when it says at least one word of the facts it was shown that the question did not already say;
    else :class:`GenerationError` ("The answer to your question is: [1] [2]." cites sources and says nothing)."""
    said = set(tokenize(outside_code(text, lambda part: sub_markers(part, lambda blank, nums: blank))))
    shown = set(tokenize(" ".join(f.text for f in facts))) - set(tokenize(question))
    if not said & shown:
        raise GenerationError("The LLM's answer says nothing its sources say; answered extractively")
    return text
