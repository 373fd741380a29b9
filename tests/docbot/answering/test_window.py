"""The prompt fitted to a context window, and an answer held to the sources its prompt showed."""

from __future__ import annotations

import pytest

from docbot.answering.compress import Fact
from docbot.answering.generate import Passage, messages
from docbot.answering.window import SAFETY_TOKENS, held_to_sources, pack, prompt_tokens, tokens
from docbot.errors import GenerationError

PASSAGES = [Passage(n, f"Source {n}", ("Guide", f"Source {n}"), "") for n in (1, 2, 3)]
FACTS = [Fact(n, f"Fact {n}.{i}: " + "word " * 40, i, rank=i) for n in (1, 2, 3) for i in range(3)]


def build(chosen: list[Fact]) -> list[tuple[str, str]]:
    return messages("how?", PASSAGES, chosen)


def test_without_a_window_every_fact_is_sent() -> None:
    packed = pack(build, FACTS, None, 600)
    assert packed.sent == (1, 2, 3) and packed.left_out == ()
    assert all(f.text in packed.messages[1][1] for f in FACTS)


def test_the_last_sources_go_first_and_the_answer_keeps_its_room() -> None:
    whole = prompt_tokens(build(FACTS))
    window = whole + 600 + SAFETY_TOKENS - 1  # one token short of everything
    packed = pack(build, FACTS, window, 600)
    assert packed.sent == (1, 2) and packed.left_out == (3,)
    assert packed.tokens + 600 + SAFETY_TOKENS <= window
    assert "[3]" not in packed.messages[1][1] and "Fact 2.2" in packed.messages[1][1]


def test_the_best_source_alone_loses_its_lowest_ranked_facts() -> None:
    one = build([f for f in FACTS if f.n == 1][:2])
    packed = pack(build, FACTS, prompt_tokens(one) + 100 + SAFETY_TOKENS, 100)
    prompt = packed.messages[1][1]
    assert packed.sent == (1,) and "Fact 1.0" in prompt and "Fact 1.1" in prompt and "Fact 1.2" not in prompt


def test_a_window_too_small_for_any_fact_says_what_to_do() -> None:
    with pytest.raises(GenerationError, match=r"context window \(700 tokens, 600 of them kept.*--n_ctx"):
        pack(build, FACTS, 700, 600)


def test_tokens_are_counted_high() -> None:
    assert tokens("abcd") == 2 and tokens("") == 0


@pytest.mark.parametrize(("text", "kept"), [
    ("Set it [1]. Or [2][7].", "Set it [1]. Or [2]."),
    ("Both [1, 3].", "Both [1]."),  # 3 was left out of the prompt: the model cannot have read it
    ("Use `a[3]` here [2].", "Use `a[3]` here [2]."),  # code is code
])
def test_markers_of_sources_not_shown_are_dropped(text: str, kept: str) -> None:
    assert held_to_sources(text, (1, 2)) == kept


@pytest.mark.parametrize("text", ["No citations at all.", "Only unknown ones [5].", "In code only `x[1]`."])
def test_an_answer_citing_nothing_it_was_shown_is_refused(text: str) -> None:
    with pytest.raises(GenerationError, match="cites none of its sources"):
        held_to_sources(text, (1, 2))


def test_an_answer_that_cites_sources_but_says_nothing_they_say_is_refused() -> None:
    from docbot.answering.window import states_a_fact

    facts = [Fact(1, "MAX_CONTENT_LENGTH limits the size of an upload; larger ones get 413.", 0, rank=0)]
    with pytest.raises(GenerationError, match="says nothing its sources say"):
        states_a_fact("The answer to your question is: [1] [2].", facts, "How do I limit the upload size?")
    with pytest.raises(GenerationError, match="says nothing its sources say"):
        states_a_fact("You limit the upload size [1].", facts, "How do I limit the upload size?")  # the question back
    said = "Set MAX_CONTENT_LENGTH [1]."
    assert states_a_fact(said, facts, "How do I limit the upload size?") == said
