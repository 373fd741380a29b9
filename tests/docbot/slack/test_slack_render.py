"""Pure rendering and storage: Markdown → mrkdwn, section splitting, Block Kit limits, the reference log.

No server here: these are the functions the Slack scenarios rely on, checked
on the inputs that break naive renderers (markup in text, oversized answers,
code blocks cut in half).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from slack_sdk.errors import SlackObjectFormationError
from slack_sdk.models.blocks import MarkdownTextObject, SectionBlock

from docbot.answer import GROUP_ORDER, Answer, Reference, Status
from docbot.reference_log import ReferenceLog
from docbot.references.grouping import group_references
from docbot.slack.blocks import MAX_BLOCKS, render_answer, source_lines
from docbot.slack.mrkdwn import FENCE, SECTION_LIMIT, escape, link, split_sections, to_mrkdwn, to_mrkdwn_parts

# -- Markdown → mrkdwn --------------------------------------------------------


@pytest.mark.parametrize(
    ("markdown", "mrkdwn"),
    [
        ("**bold** and *italic* and __also bold__", "*bold* and _italic_ and *also bold*"),
        ("call `app.run()` first", "call `app.run()` first"),
        ("~~old~~ new", "~old~ new"),
        ("# Install\n\n## Options", "*Install*\n\n*Options*"),
        ("- one\n- two\n  - nested", "• one\n• two\n    • nested"),
        ("3. third\n4. fourth", "3. third\n4. fourth"),
        ("> quoted\n> more", "> quoted\n> more"),
        ("```python\nprint('hi')\n```", "```\nprint('hi')\n```"),
        ("[the guide](https://docs.example/guide.html#install)", "<https://docs.example/guide.html#install|the guide>"),
        ("<https://docs.example/a.html>", "<https://docs.example/a.html>"),
        ("[mail us](mailto:docs@example.com)", "<mailto:docs@example.com|mail us>"),
    ],
)
def test_markdown_constructs_become_mrkdwn(markdown: str, mrkdwn: str) -> None:
    assert to_mrkdwn(markdown) == mrkdwn


def test_special_characters_are_escaped_in_text_code_and_link_labels() -> None:
    assert to_mrkdwn("a & b < c > d") == "a &amp; b &lt; c &gt; d"
    assert to_mrkdwn("use `a<b && c>d`") == "use `a&lt;b &amp;&amp; c&gt;d`"
    assert to_mrkdwn("```\nif a < b && c > d:\n    pass\n```") == "```\nif a &lt; b &amp;&amp; c &gt; d:\n    pass\n```"
    assert to_mrkdwn("[a & <b>](https://docs.example/x)") == "<https://docs.example/x|a &amp; &lt;b&gt;>"
    # a label cannot smuggle a second `|` into the link
    assert link("https://docs.example/x", "a | b") == "<https://docs.example/x|a / b>"


def test_link_urls_that_would_end_the_link_are_percent_encoded() -> None:
    assert to_mrkdwn("[pipe](https://docs.example/a|b)") == "<https://docs.example/a%7Cb|pipe>"
    assert to_mrkdwn("[gt](https://docs.example/a>b)") == "<https://docs.example/a%3Eb|gt>"
    assert link("https://docs.example/a|b>c", "x") == "<https://docs.example/a%7Cb%3Ec|x>"
    assert link("https://docs.example/a?x=1&y=<2>", "q") == "<https://docs.example/a?x=1&amp;y=%3C2%3E|q>"


@pytest.mark.parametrize(
    ("markdown", "mrkdwn"),
    [
        ("[click](javascript:alert(1))", "[click](javascript:alert(1))"),  # markdown-it refuses it: plain text
        ("<javascript:alert(1)|click>", "&lt;javascript:alert(1)|click&gt;"),
        ("[data](data:text/html;base64,PHNjcmlwdD4=)", "[data](data:text/html;base64,PHNjcmlwdD4=)"),
        ("[relative](/guide.html#install)", "relative"),  # only absolute http(s)/mailto links are links
    ],
)
def test_links_other_than_http_and_mailto_are_not_links(markdown: str, mrkdwn: str) -> None:
    assert to_mrkdwn(markdown) == mrkdwn


def test_slack_form_links_in_the_answer_become_links() -> None:
    out = to_mrkdwn("See <https://docs.example/api.html#app.route|App.route> and <mailto:a@docs.example|mail>.")
    assert out == "See <https://docs.example/api.html#app.route|App.route> and <mailto:a@docs.example|mail>."


def test_mentions_and_broadcasts_are_made_inert() -> None:
    out = escape("<!channel> <!here> <@U123> <#C123|general> @here @channel @everyone")
    assert out == ("&lt;!channel&gt; &lt;!here&gt; &lt;@U123&gt; &lt;#C123|general&gt; "
                   "@\u200bhere @\u200bchannel @\u200beveryone")
    assert to_mrkdwn("[<!channel>](https://docs.example/) <!subteam^S1> <@U123|ada>") == (
        "<https://docs.example/|&lt;!channel&gt;> &lt;!subteam^S1&gt; &lt;@U123|ada&gt;")


# -- splitting into sections ----------------------------------------------------

def _without_fences(text: str) -> str:
    return "".join(line for line in text.split("\n") if line.strip() != FENCE).replace(" ", "").replace("\n", "")


def test_long_answer_with_a_long_code_block_splits_into_balanced_sections() -> None:
    prose = " ".join(f"word{i}" for i in range(400))  # ~3,300 characters
    code = "\n".join(f"value_{i:03d} = compute({i}) & <mask>" for i in range(125))  # ~4,100 characters
    markdown = f"{prose}\n\n```python\n{code}\n```\n\n{prose[:2000]}"
    assert len(markdown) >= 9000 and len(code) >= 4000

    parts = to_mrkdwn_parts(markdown)
    sections = split_sections(parts)
    assert len(sections) >= 4
    for section in sections:
        assert len(section) <= SECTION_LIMIT
        fences = [line for line in section.split("\n") if line.strip() == FENCE]
        assert len(fences) % 2 == 0, section[:80]
    # every character of every part survives (only fences and the whitespace at cuts are added)
    assert _without_fences("\n".join(sections)) == _without_fences("\n".join(parts))


@pytest.mark.parametrize("width", [2990, 3100, 6000])
def test_a_cut_at_the_edge_of_a_code_block_leaves_no_empty_code_block(width: int) -> None:
    code = "\n".join(c * width for c in "yz")
    parts = to_mrkdwn_parts(f"intro\n\n```\n{code}\n```\n\nouter")
    sections = split_sections(parts)
    assert all(len(s) <= SECTION_LIMIT for s in sections)
    assert not any(re.search(r"```\n```", s) for s in sections), [s[:20] + "…" + s[-20:] for s in sections]
    assert _without_fences("\n".join(sections)) == _without_fences("\n".join(parts))


def test_short_parts_are_packed_together() -> None:
    assert split_sections(["a", "b", "c"]) == ["a\n\nb\n\nc"]
    assert split_sections(["x" * 2000, "y" * 2000]) == ["x" * 2000, "y" * 2000]


# -- Block Kit -------------------------------------------------------------------

def _refs(types: list[str]) -> tuple[Reference, ...]:
    return tuple(Reference(n, f"https://docs.example/p{n}.html#s{n}", f"Section {n}", (f"Page {n}", f"Section {n}"),
                           t, "demo", n == 1) for n, t in enumerate(types, start=1))


def _answer(text: str, types: list[str], status: Status = Status.ANSWERED) -> Answer:
    refs = _refs(types)
    return Answer("What is it?", status, text, 0.8, "semantic", "extractive", refs, group_references(refs))


def test_a_huge_answer_stays_within_fifty_blocks_and_keeps_sources_and_buttons() -> None:
    paragraph = ("lorem ipsum dolor sit amet " * 100)[:2500].strip()
    message = render_answer(_answer("\n\n".join([paragraph] * 200), ["Guides", "API reference"]), 7, shareable=True)
    assert len(message.blocks) <= MAX_BLOCKS
    text = json.dumps(message.blocks)
    assert "cut short" in text and "*Sources*" in text
    assert message.blocks[-1]["type"] == "actions"
    assert all(len(b["text"]["text"]) <= SECTION_LIMIT for b in message.blocks if b["type"] == "section")


def test_sources_list_every_reference_once_under_its_group_in_group_order() -> None:
    types = ["Guides", "API reference", "FAQ", "Something else", "Guides", "Tutorials", "Release notes"]
    answer = _answer("It is [1] and [2].", types)
    texts = source_lines(answer)
    headings = [t.split("\n", 1)[0].strip("*") for t in texts]
    assert headings == [g for g in GROUP_ORDER if g in {*types, "Other"} and g != "Something else"]
    assert headings == sorted(headings, key=GROUP_ORDER.index)
    by_group = {t.split("\n", 1)[0].strip("*"): t for t in texts}
    for ref in answer.references:
        group = ref.source_type if ref.source_type in GROUP_ORDER else "Other"
        line = f"`[{ref.n}]` <{ref.url}|{ref.path_label}>"
        assert by_group[group].count(line) == 1
        assert sum(t.count(ref.url) for t in texts) == 1

    message = render_answer(answer, 3)
    joined = json.dumps(message.blocks, ensure_ascii=False)
    assert joined.count("*Sources*") == 1 and all(joined.count(r.url) == 1 for r in answer.references)


def test_not_covered_lists_closest_topics_and_error_has_no_buttons() -> None:
    not_covered = render_answer(_answer("Not covered. Closest: Section 1 [1].", ["Guides"], Status.NOT_COVERED), 4)
    text = json.dumps(not_covered.blocks)
    assert "*Closest topics*" in text and "*Sources*" not in text and not_covered.text == "Not covered in the docs."
    error = render_answer(Answer("q", "error", "Site 'x' is not indexed.", error="Site 'x' is not indexed."), 5)
    assert [b["type"] for b in error.blocks] == ["context", "section"]
    assert ":warning: Site 'x' is not indexed." in json.dumps(error.blocks)


def test_slack_sdk_enforces_the_limits_render_answer_relies_on() -> None:
    with pytest.raises(SlackObjectFormationError):
        SectionBlock(text=MarkdownTextObject(text="x" * (SECTION_LIMIT + 1))).to_dict()
    assert SectionBlock(text=MarkdownTextObject(text="x" * SECTION_LIMIT)).to_dict()["type"] == "section"


# -- the reference log -------------------------------------------------------------

def _store(tmp_path: Path) -> ReferenceLog:
    return ReferenceLog(tmp_path / "log" / "docbot.sqlite")


def test_record_and_get_round_trip(tmp_path: Path) -> None:
    store = _store(tmp_path)
    answer = _answer("Use `x` & <y> [1][2]. ünïcode", ["Guides", "API reference"])
    answer_id = store.record(answer, "slash_command", "U1", "C1", None)
    got = store.get(answer_id)
    assert got is not None
    assert (got.question, got.answer, got.references, got.groups) == (
        answer.question, answer.answer, answer.references, answer.groups)
    assert (got.status, got.confidence, got.generator, got.resolution) == (Status.ANSWERED, 0.8, "extractive", "semantic")
    assert store.get(answer_id + 100) is None


def test_thread_turns_are_oldest_first_and_limited(tmp_path: Path) -> None:
    store = _store(tmp_path)
    for i in range(5):
        store.record(Answer(f"q{i}", Status.ANSWERED, f"a{i}"), "mention", "U1", "C1", "1.0")
    store.record(Answer("elsewhere", Status.ANSWERED, "x"), "mention", "U1", "C1", "2.0")
    store.record(Answer("other channel", Status.ANSWERED, "x"), "mention", "U1", "C2", "1.0")
    assert [t.question for t in store.thread_turns("C1", "1.0", 3)] == ["q2", "q3", "q4"]
    assert [t.answer for t in store.thread_turns("C1", "1.0")] == ["a0", "a1", "a2", "a3", "a4"]
    assert store.thread_turns("C9", "1.0") == []


def test_feedback_is_one_vote_per_user_and_the_latest_wins(tmp_path: Path) -> None:
    store = _store(tmp_path)
    answer_id = store.record(Answer("q", Status.ANSWERED, "a"), "dm")
    assert store.add_feedback(answer_id, "U1", 1) and store.add_feedback(answer_id, "U1", 1)
    assert store.feedback(answer_id) == {"up": 1, "down": 0}
    assert store.add_feedback(answer_id, "U1", -1)
    assert store.feedback(answer_id) == {"up": 0, "down": 1}
    assert store.add_feedback(answer_id, "U2", 1)
    assert store.feedback(answer_id) == {"up": 1, "down": 1}
    assert store.add_feedback(answer_id + 1, "U1", 1) is False
    with pytest.raises(ValueError):
        store.add_feedback(answer_id, "U1", 2)


def test_first_seen_dedupes_event_ids(tmp_path: Path) -> None:
    store = _store(tmp_path)
    assert store.first_seen("Ev1") is True
    assert store.first_seen("Ev1") is False
    assert store.first_seen("Ev2") is True
    assert ReferenceLog(store.path).first_seen("Ev1") is False  # survives a restart


def test_iter_links_lists_every_link_sent_oldest_first(tmp_path: Path) -> None:
    store = _store(tmp_path)
    first = store.record(_answer("a", ["Guides", "FAQ"]), "cli")
    second = store.record(_answer("b", ["API reference"]), "cli")
    store.record(Answer("no links", Status.NOT_COVERED, "nothing"), "cli")
    assert store.iter_links() == [
        (first, "https://docs.example/p1.html#s1"),
        (first, "https://docs.example/p2.html#s2"),
        (second, "https://docs.example/p1.html#s1"),
    ]


def test_a_flagged_answer_shows_its_may_not_cover_line_first_with_a_warning() -> None:
    from dataclasses import replace

    from docbot.answering.gate import FLAG_LINE

    answer = replace(_answer(f"{FLAG_LINE}\n\nThe closest section says this. [1]", ["Guides"]), flagged=True)
    body = [b for b in render_answer(answer, 3).blocks if b["type"] == "section"]
    assert body[0]["text"]["text"].startswith(":warning: The documentation may not cover this question")


def test_an_llm_fallback_says_why_in_the_footer_escaped() -> None:
    ref = Reference(1, "http://docs.test/a.html#x", "X", ("A", "X"), "Guides", "demo")
    answer = Answer("q", Status.ANSWERED, "Set it [1].", confidence=0.8, generator="extractive", references=(ref,),
                    groups=group_references((ref,)),
                    fallback="The LLM gave no answer within 90 s <!channel>; answered extractively")
    footer = json.dumps([b for b in render_answer(answer).blocks if b["type"] == "context"], ensure_ascii=False)
    assert "Extractive answer (quoted from the docs): The LLM gave no answer within 90 s" in footer
    assert "<!channel>" not in footer
    plain = json.dumps(render_answer(Answer("q", Status.ANSWERED, "Set it [1].", references=(ref,))).blocks)
    assert "no LLM" in plain
