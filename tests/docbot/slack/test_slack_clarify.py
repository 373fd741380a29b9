"""Slack: a clarifying question's options are buttons, and clicking one answers that reading in the thread."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from docbot.slack.app import SlackSettings
from docbot.slack.blocks import (
    ACTION_CLARIFY,
    ACTION_CLARIFY_PATTERN,
    parse_option_value,
    render_answer,
)
from docbot.slack.fake import BOT_USER, FakeSlack, action_body, command_body, event_body
from tests.docbot.answering.test_clarify import TIE, tie_sites
from tests.docbot.ask_fakes import BASE, TIE_BASE
from tests.docbot.slack.slack_bot import JSON, QUIET_S, Bot, start_bot

ORM_SECTION = TIE_BASE + "session.html#using-sessions"
DEMO_SECTION = BASE + "guide.html#sessions"


@pytest.fixture()
def tied(tmp_path: Path, slack: FakeSlack) -> Iterator[Bot]:
    yield from start_bot(tmp_path, slack, SlackSettings(), asker=tie_sites())


def _clarify_buttons(blocks: list[dict]) -> list[dict]:
    return [e for b in blocks if b["type"] == "actions" for e in b["elements"]
            if ACTION_CLARIFY_PATTERN.match(e["action_id"])]


def test_options_render_as_one_button_each_with_their_links() -> None:
    answer = tie_sites().ask(TIE)
    message = render_answer(answer, answer_id=7)
    buttons = _clarify_buttons(message.blocks)
    assert [b["action_id"] for b in buttons] == [f"{ACTION_CLARIFY}{i}" for i in (1, 2)]
    chosen = [parse_option_value(b["value"]) for b in buttons]
    assert {(url, site) for _, url, site in chosen} == {(DEMO_SECTION, "demo"), (ORM_SECTION, "orm")}  # type: ignore[misc]
    assert all(q == TIE for q, _, _ in chosen)  # type: ignore[misc]
    text = json.dumps(message.blocks, ensure_ascii=False)
    assert f"<{DEMO_SECTION}|" in text and f"<{ORM_SECTION}|" in text
    assert answer.clarification is not None
    assert answer.clarification.question in text and message.text == answer.clarification.question


def test_a_click_answers_the_chosen_reading_in_the_thread(tied: Bot) -> None:
    event = {"type": "app_mention", "user": "U0001", "text": f"<@{BOT_USER}> {TIE}", "ts": "200.000100",
             "channel": "C0001"}
    tied.post(event_body(event, "EvTie"), JSON)
    (asked,) = tied.slack.wait_for(lambda c: c.method == "chat.postMessage")
    buttons = _clarify_buttons(asked.body["blocks"])
    orm = next(b for b in buttons if parse_option_value(b["value"])[2] == "orm")  # type: ignore[index]

    reply = {"ts": "200.000200", "thread_ts": "200.000100", "text": asked.body["text"]}
    resp = tied.post(action_body(orm["action_id"], orm["value"], tied.slack.response_url("click"), message=reply))
    assert resp.status_code == 200  # acknowledged
    posts = tied.slack.wait_for(lambda c: c.method == "chat.postMessage", count=2)
    answer = posts[1].body
    assert answer["thread_ts"] == "200.000100" and answer["channel"] == "C0001"
    text = json.dumps(answer["blocks"], ensure_ascii=False)
    assert f"<{ORM_SECTION}|" in text and DEMO_SECTION not in text and not _clarify_buttons(answer["blocks"])
    assert f"*Q:* {TIE}" in text  # the question as asked, not the link that resolved it
    turns = tied.store.thread_turns("C0001", "200.000100")
    assert len(turns) == 2 and turns[1].references[0].url == ORM_SECTION


def test_a_click_on_a_private_answer_is_answered_privately(tied: Bot) -> None:
    tied.post(command_body(TIE, tied.slack.response_url("q")))
    (asked,) = tied.slack.wait_for(lambda c: c.path == "/response/q")
    demo = next(b for b in _clarify_buttons(asked.body["blocks"]) if parse_option_value(b["value"])[2] == "demo")  # type: ignore[index]
    tied.post(action_body(demo["action_id"], demo["value"], tied.slack.response_url("pick")))
    (picked,) = tied.slack.wait_for(lambda c: c.path == "/response/pick")
    assert picked.body["response_type"] == "ephemeral" and picked.body["replace_original"] is False
    assert f"<{DEMO_SECTION}|" in json.dumps(picked.body["blocks"], ensure_ascii=False)


def test_a_forged_option_value_gets_a_polite_reply(tied: Bot) -> None:
    assert tied.post(action_body(f"{ACTION_CLARIFY}1", "not json", tied.slack.response_url("bad"))).status_code == 200
    (reply,) = tied.slack.wait_for(lambda c: c.path == "/response/bad")
    assert "no longer available" in reply.body["text"]
    time.sleep(QUIET_S)
    assert not tied.slack.matching(lambda c: c.method == "chat.postMessage")
