"""Slack security scenarios against the real Bolt HTTP server: signatures, replays, retries, markup injection.

Requests are signed (or mis-signed) for real; Slack is the local fake. What
matters is what a workspace would see: a forged or replayed request gets 401
and no answer, and nothing docbot posts can notify a channel or a user.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from docbot.answering.generate import Passage
from docbot.pipeline import Pipeline
from docbot.slack.app import SlackSettings
from docbot.slack.fake import BOT_USER, Call, FakeSlack, command_body, event_body, signed_headers
from tests.docbot.ask_fakes import FakeIndex, make_chunks, make_map, make_validator
from tests.docbot.slack.slack_bot import FORM, JSON, QUIET_S, UPLOAD_QUESTION, Bot, start_bot

INJECTION = "<!channel> <!here> <@U123> <#C123> @here @channel @everyone"
EVIL_URL = "https://evil.example/phish"


def _answers(slack: FakeSlack) -> list[Call]:
    return slack.matching(lambda c: c.path.startswith("/response/") or c.method == "chat.postMessage")


# -- signatures, replays, retries -------------------------------------------------------

def test_a_bad_signature_is_rejected_and_nothing_is_answered(running: Bot) -> None:
    body = command_body(UPLOAD_QUESTION, running.slack.response_url("forged"))
    resp = running.post_as_is(body, signed_headers(body, FORM, secret="not-the-secret"))
    assert resp.status_code == 401
    unsigned = {"Content-Type": FORM}
    assert running.post_as_is(body, unsigned).status_code == 401
    time.sleep(QUIET_S)
    assert _answers(running.slack) == []


def test_a_request_older_than_five_minutes_is_rejected(running: Bot) -> None:
    body = command_body(UPLOAD_QUESTION, running.slack.response_url("old"))
    stale = signed_headers(body, FORM, timestamp=int(time.time()) - 6 * 60)  # validly signed, but for then
    assert running.post_as_is(body, stale).status_code == 401
    time.sleep(QUIET_S)
    assert _answers(running.slack) == []


def test_an_exact_replay_is_rejected_and_answered_once(running: Bot) -> None:
    body = command_body(UPLOAD_QUESTION, running.slack.response_url("once"))
    headers = signed_headers(body, FORM)
    assert running.post_as_is(body, headers).status_code == 200
    assert running.post_as_is(body, headers).status_code == 401
    running.slack.wait_for(lambda c: c.path == "/response/once")
    time.sleep(QUIET_S)
    assert len(running.slack.posts("once")) == 1


@pytest.mark.parametrize("resigned", [False, True], ids=["same-signature", "new-signature"])
def test_a_slack_retry_of_an_event_is_acknowledged_but_not_answered_again(running: Bot, resigned: bool) -> None:
    event = {"type": "app_mention", "user": "U0001", "text": f"<@{BOT_USER}> {UPLOAD_QUESTION}",
             "ts": "200.000100", "channel": "C0001"}
    body = event_body(event, "EvRetry")
    now = int(time.time())
    # a retry signed in another second has a new signature: then the event id is what catches it
    first = signed_headers(body, JSON, timestamp=now - 30 if resigned else now)
    assert running.post_as_is(body, first).status_code == 200
    retry = signed_headers(body, JSON, timestamp=now)
    retry.update({"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"})
    assert running.post_as_is(body, retry).status_code == 200

    running.slack.wait_for(lambda c: c.method == "chat.postMessage")
    time.sleep(QUIET_S)
    assert len(running.slack.matching(lambda c: c.method == "chat.postMessage")) == 1


# -- markup injection ---------------------------------------------------------------------

def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
        try:
            decoded = json.loads(value)  # a form-encoded Web API call carries blocks as a JSON string
        except ValueError:
            return
        if not isinstance(decoded, str):
            yield from _strings(decoded)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def assert_inert(call: Call) -> None:
    """No special mention, user or channel link, and no live broadcast word anywhere in what was posted."""
    texts = [s for key in ("text", "blocks") for s in _strings(call.body.get(key))]
    assert texts, call.body
    for text in texts:
        assert "<!" not in text and "<@" not in text and "<#C" not in text, text
        for word in ("@here", "@channel", "@everyone"):
            assert word not in text, text  # only "@\u200bhere" etc. may appear


def _injected_chunks() -> list[Any]:
    out = []
    for chunk in make_chunks():
        if chunk.anchor == "uploading-files":
            chunk = dataclasses.replace(
                chunk, text=f"To limit the upload size {INJECTION} set MAX_CONTENT_LENGTH.\n\n{chunk.text}",
                title=f"Uploading Files {INJECTION}", path=("Guide", f"Uploading Files {INJECTION}"))
        out.append(chunk)
    return out


def test_markup_in_a_doc_page_reaches_slack_inert(tmp_path: Path, slack: FakeSlack) -> None:
    pipeline = Pipeline(FakeIndex(_injected_chunks()), {"demo": make_map()}, make_validator())
    for bot in start_bot(tmp_path, slack, SlackSettings(), pipeline):
        bot.post(command_body(UPLOAD_QUESTION, slack.response_url("page")))
        (call,) = slack.wait_for(lambda c: c.path == "/response/page")
        assert_inert(call)
        text = json.dumps(call.body["blocks"], ensure_ascii=False)
        assert "&lt;!channel&gt;" in text and "@\u200bhere" in text  # the page text is shown, made harmless
        assert "uploading-files|Guide › Uploading Files &lt;!channel&gt;" in text  # …in link labels too


def ask_by(bot: Bot, where: str, question: str, tag: str) -> Call:
    """Ask by slash command or by @mention; the reply Slack got."""
    if where == "slash":
        bot.post(command_body(question, bot.slack.response_url(tag)))
        (call,) = bot.slack.wait_for(lambda c: c.path == f"/response/{tag}")
        return call
    event = {"type": "app_mention", "user": "U0001", "text": f"<@{BOT_USER}> {question}", "ts": "300.1",
             "channel": "C0001"}
    bot.post(event_body(event, f"Ev{tag}"), JSON)
    (call,) = bot.slack.wait_for(lambda c: c.method == "chat.postMessage")
    return call


@pytest.mark.parametrize("where", ["slash", "mention"])
def test_markup_in_the_question_is_echoed_inert(tmp_path: Path, slack: FakeSlack, where: str) -> None:
    # what the user typed literally arrives escaped; real Slack markup arrives as markup
    typed = f"{UPLOAD_QUESTION} &lt;!channel&gt; &lt;@U123&gt; &lt;#C123&gt; <!here> @here @everyone"
    for bot in start_bot(tmp_path, slack, SlackSettings()):
        call = ask_by(bot, where, typed, "Inject")
        assert_inert(call)
        assert "&lt;!channel&gt;" in json.dumps(call.body["blocks"], ensure_ascii=False)  # echoed, not dropped


class InjectingLLM:
    """A generator that cites [1], then misbehaves: markup, a made-up URL in three forms, an unknown [7]."""

    name = "llm"

    def generate(self, question: str, passages: Sequence[Passage]) -> str:
        return (f"Set MAX_CONTENT_LENGTH to limit the upload size [1]. {INJECTION} "
                f"Log in at {EVIL_URL} or [here]({EVIL_URL}) or <{EVIL_URL}|there> [7].")


@pytest.mark.parametrize("where", ["slash", "mention"])
def test_an_llm_answer_cannot_mention_anyone_or_link_anywhere_unchecked(tmp_path: Path, slack: FakeSlack,
                                                                        where: str) -> None:
    pipeline = Pipeline(FakeIndex(make_chunks()), {"demo": make_map()}, make_validator(), generator=InjectingLLM())
    for bot in start_bot(tmp_path, slack, SlackSettings(), pipeline):
        call = ask_by(bot, where, UPLOAD_QUESTION, "LLM")
        assert_inert(call)
        posted = json.dumps(call.body, ensure_ascii=False)
        assert "evil.example" not in posted and "[7]" not in posted
        assert "Answer written by an LLM" in posted  # the generator's text was used, not the fallback
        assert "[1]" in posted and "<http://docs.test/guide.html#uploading-files|" in posted


@pytest.mark.parametrize("where", ["slash", "mention"])
def test_a_question_rejected_as_binary_is_echoed_cleaned(tmp_path: Path, slack: FakeSlack, where: str) -> None:
    # NUL, right-to-left override and controls by slash command; lone surrogates (JSON escapes, no pair) by an event
    typed = "\x00\x00\u202e\x01\x02\x03 evil" if where == "slash" else "\udcff\ud800\u202e\x01\x02 evil"
    for bot in start_bot(tmp_path, slack, SlackSettings()):
        call = ask_by(bot, where, typed, "Binary")
        posted = [s for key in ("text", "blocks") for s in _strings(call.body.get(key))]
        assert any("*Q:* evil" in s for s in posted), posted
        assert not [s for s in posted if any(c in s for c in ("\x00", "\u202e", "\ud800", "\udcff", "\x01"))]
