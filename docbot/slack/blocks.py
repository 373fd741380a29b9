"""Block Kit for answers: pure functions from an :class:`~docbot.answer.Answer` to Slack message JSON.

Built with ``slack_sdk.models`` so the library enforces Slack's limits (3000
characters a section, 50 blocks a message). Every text object is ``verbatim``:
Slack links nothing on its own, so only the ``<url|text>`` links the validator
approved are links (see :mod:`docbot.slack.mrkdwn`). Layout, top to bottom: the
question, the answer (mrkdwn, split at block boundaries), the sources grouped
by type and numbered like the ``[n]`` markers, a footer that says how the
answer was made, and the 👍 / 👎 / "Share in channel" buttons.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    ContextBlock,
    DividerBlock,
    MarkdownTextObject,
    SectionBlock,
)

from docbot.answer import Answer, LinkAction, Status
from docbot.slack.mrkdwn import (
    SECTION_LIMIT,
    escape,
    inert,
    link,
    split_sections,
    to_mrkdwn_parts,
)

MAX_BLOCKS = 50
QUESTION_CHARS = 280  # the question echoed above the answer
FALLBACK_CHARS = 280  # the plain `text` shown in notifications
ACTION_UP = "docbot_feedback_up"
ACTION_DOWN = "docbot_feedback_down"
ACTION_SHARE = "docbot_share"
ACTION_CLARIFY = "docbot_clarify_"  # + option number: one action id per option button
ACTION_CLARIFY_PATTERN = re.compile(r"^docbot_clarify_\d+$")
BUTTON_TEXT_CHARS = 75  # Slack's limit on a button's text
CLARIFY_QUESTION_CHARS = 1500  # the question carried in a button's value (Slack allows 2000 characters)
SEARCHING = "Searching the docs…"
_USER_ID = re.compile(r"^[UW][A-Z0-9]{2,20}$")


@dataclass(frozen=True, slots=True)
class Message:
    """A Slack message: the notification fallback ``text`` and the ``blocks``."""

    text: str
    blocks: list[dict[str, Any]]

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "blocks": self.blocks}


def mention(user_id: str | None) -> str:
    """``<@U…>`` for a Slack user id taken from a verified payload; nothing for anything else."""
    return f"<@{user_id}>" if user_id and _USER_ID.match(user_id) else "someone"


def _shorten(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _section(text: str) -> SectionBlock:
    return SectionBlock(text=MarkdownTextObject(text=text, verbatim=True))


def _context(text: str) -> ContextBlock:
    return ContextBlock(elements=[MarkdownTextObject(text=text, verbatim=True)])


def approved_urls(answer: Answer) -> frozenset[str]:
    """The URLs the validator let through for this answer: its references, kept or rewritten links, options."""
    kept = {o.output for o in answer.outcomes if o.output and o.action != LinkAction.LINK_DROPPED}
    return frozenset({ref.url for ref in answer.references} | kept | {url for _, url, _ in _options(answer)})


def _options(answer: Answer) -> list[tuple[str, str, str]]:
    """(label, url, site) of a clarifying question's options (validated by the pipeline)."""
    options = answer.clarification.options if answer.clarification else ()
    return [(o.label, o.url, o.site) for o in options if o.url]


def option_value(question: str, url: str, site: str) -> str:
    """What an option button carries: enough to answer that reading of the question without any lookup."""
    return json.dumps({"question": question[:CLARIFY_QUESTION_CHARS], "url": url, "site": site}, ensure_ascii=False)


def parse_option_value(value: str) -> tuple[str, str, str] | None:
    """(question, url, site) from an option button's value; None for anything else."""
    try:
        data = json.loads(value)
    except (TypeError, ValueError):
        return None
    if not isinstance(data, dict) or not all(isinstance(data.get(k), str) for k in ("question", "url", "site")):
        return None
    return data["question"], data["url"], data["site"]


def _clarify_blocks(answer: Answer) -> list[Block]:
    """The clarifying question, its options as links, one button per option, and where the best guess starts."""
    options = _options(answer)
    if answer.status != Status.NEEDS_CLARIFICATION or not options:
        return []
    lines = [f"*{escape(answer.clarification.question if answer.clarification else '')}*"]
    lines += [f"{i}. {link(url, text)}" for i, (text, url, _) in enumerate(options, start=1)]
    buttons = [
        ButtonElement(text=_shorten(f"{i}. {text}", BUTTON_TEXT_CHARS), action_id=f"{ACTION_CLARIFY}{i}",
                      value=option_value(answer.question, url, site))
        for i, (text, url, site) in enumerate(options, start=1)
    ]
    return [_section("\n".join(lines)), ActionsBlock(block_id="docbot_clarify", elements=buttons),
            _context("_Best guess meanwhile:_")]


def source_lines(answer: Answer) -> list[str]:
    """One mrkdwn text per source group: the type in bold, then `[n]` <deep url|Page › Section> lines."""
    by_n = {ref.n: ref for ref in answer.references}
    texts = []
    for group in answer.groups:
        lines = [f"*{escape(group.type)}*"]
        for n in group.refs:
            ref = by_n.get(n)
            if ref is not None:
                lines.append(f"`[{n}]` {link(ref.url, ref.path_label or ref.url)}")
        texts.append("\n".join(lines))
    return texts


def _footer(answer: Answer, shared_by: str | None) -> str:
    if answer.status == Status.NOT_COVERED:
        how = "Not covered in the indexed documentation"
    elif answer.fallback:  # an LLM is configured but its answer was not used: say why
        how = (f"Extractive answer (quoted from the docs): {escape(_shorten(answer.fallback, FALLBACK_CHARS))} · "
               f"confidence {answer.confidence:.0%}")
    elif answer.generator == "extractive":
        how = f"Extractive answer (quoted from the docs, no LLM) · confidence {answer.confidence:.0%}"
    else:
        how = f"Answer written by an LLM from the sources above · confidence {answer.confidence:.0%}"
    if shared_by is not None:
        how += f" · shared by {mention(shared_by)}"
    return how


def _buttons(answer_id: int, shareable: bool) -> ActionsBlock:
    value = str(answer_id)
    elements = [
        ButtonElement(text="👍 Helpful", action_id=ACTION_UP, value=value),
        ButtonElement(text="👎 Not helpful", action_id=ACTION_DOWN, value=value),
    ]
    if shareable:
        elements.append(ButtonElement(text="Share in channel", action_id=ACTION_SHARE, value=value, style="primary"))
    return ActionsBlock(block_id=f"docbot_answer_{answer_id}", elements=elements)


def render_answer(
    answer: Answer,
    answer_id: int | None = None,
    shareable: bool = False,
    shared_by: str | None = None,
) -> Message:
    """The answer as a message; buttons only when the answer was logged (``answer_id``) and is not an error."""
    head: list[Block] = []
    if answer.question:
        head.append(_context(f"*Q:* {inert(_shorten(answer.question, QUESTION_CHARS))}"))
    head += _clarify_blocks(answer)
    parts = to_mrkdwn_parts(answer.answer, approved_urls(answer))
    if answer.status == Status.ERROR or answer.flagged:  # a flagged answer opens with its "may not cover" line
        body_parts = [f":warning: {part}" if i == 0 else part for i, part in enumerate(parts)]
    else:
        body_parts = parts
    body: list[Block] = [_section(t) for t in split_sections(body_parts or ["_(no answer text)_"], SECTION_LIMIT)]

    tail: list[Block] = []
    if answer.references:
        title = "Closest topics" if answer.status == Status.NOT_COVERED else "Sources"
        tail.append(DividerBlock())
        tail += [_section(t) for t in split_sections([f"*{title}*", *source_lines(answer)], SECTION_LIMIT)]
    if answer.status != Status.ERROR:
        tail.append(_context(_footer(answer, shared_by)))
    if answer_id is not None and answer.status != Status.ERROR:
        tail.append(_buttons(answer_id, shareable))

    room = MAX_BLOCKS - len(head) - len(tail)
    if len(body) > room:
        body = [*body[:room - 1], _context("_The answer was cut short here; the sources below have the rest._")]
    blocks = [b.to_dict() for b in (*head, *body, *tail)]
    return Message(text=fallback_text(answer), blocks=blocks)


def fallback_text(answer: Answer) -> str:
    """The plain notification text (mrkdwn-escaped; never a mention)."""
    if answer.status == Status.NOT_COVERED:
        return "Not covered in the docs."
    if answer.clarification:
        return inert(_shorten(answer.clarification.question, FALLBACK_CHARS)) or "docbot answer"
    return inert(_shorten(answer.answer.replace("```", " "), FALLBACK_CHARS)) or "docbot answer"


def render_error(request_id: str) -> Message:
    """A friendly failure message; the details are in the bot's log under ``request_id``."""
    text = (f":warning: Sorry, something went wrong while answering. "
            f"Please try again in a moment (request id `{escape(request_id)}`).")
    return Message(text="Sorry, something went wrong while answering.", blocks=[_section(text).to_dict()])


def render_usage(command: str) -> str:
    """What an empty slash command gets back."""
    return f"Ask a question after the command, e.g. `{escape(command)} how do I set a cookie?`"
