"""Which passage of each source an answer quotes: the fact each source's first citing statement rests on."""

from __future__ import annotations

from docbot.answering.compress import Fact
from docbot.answering.quotes import quoted_passages

FACTS = {
    1: (Fact(1, "If typed is set to true, arguments of different types are cached separately.", 3),
        Fact(1, "The cache is threadsafe so that the wrapped function can be used in multiple threads.", 5)),
    2: (Fact(2, "Use a context manager:\n\n```python\nwith lock:\n    pass\n```", 1, code=True),),
    3: (Fact(3, "```python\nprint(1)\n```", 0, code=True),),
    4: (Fact(4, "Sessions are stored in signed cookies by default.", 0),),
}


def test_the_extractive_answer_quotes_its_facts_word_for_word() -> None:
    answer = ("The cache is threadsafe so that the wrapped function can be used in multiple threads. [1]\n\n"
              "Use a context manager: [2]\n\n```python\nwith lock:\n    pass\n```\n\nExample [3]\n\n```python\nprint(1)\n```"
              "\n\nSee also Sessions [4].")
    quoted = quoted_passages(answer, FACTS)
    assert quoted == {1: FACTS[1][1].text, 2: "Use a context manager:"}


def test_an_llm_statement_rests_on_the_fact_it_shares_most_words_with() -> None:
    answer = "Arguments of different types are cached separately when typed is true [1], and sessions live in signed cookies [4][1]."
    quoted = quoted_passages(answer, FACTS)
    assert quoted == {1: FACTS[1][0].text, 4: FACTS[4][0].text}


def test_a_marker_without_facts_or_shared_words_quotes_nothing() -> None:
    assert quoted_passages("Something unrelated entirely [1]. Also [7].", FACTS) == {}
