"""Slack fault scenarios: a failing pipeline, Slack API errors, a broken reference log, refusals and error answers.

Each test asserts what the asker sees in Slack (a friendly message with a
request id, an answer without buttons, a "not covered" reply…) and, where
the details matter to an operator, what the log says.
"""

from __future__ import annotations

import json
import logging
import re
import socket
import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from docbot.answer import Answer
from docbot.reference_log import ReferenceLog, StoredTurn
from docbot.slack.app import SlackSettings
from docbot.slack.fake import BOT_USER, Call, FakeSlack, command_body, event_body, signed_headers
from tests.docbot.slack.slack_bot import JSON, QUIET_S, UPLOAD_QUESTION, Bot, start_bot

REQUEST_ID = re.compile(r"request id `([0-9a-f]{8})`")


def mention(text: str, ts: str, event_id: str, thread_ts: str | None = None) -> str:
    event = {"type": "app_mention", "user": "U0001", "text": f"<@{BOT_USER}> {text}", "ts": ts, "channel": "C0001"}
    if thread_ts:
        event["thread_ts"] = thread_ts
    return event_body(event, event_id)


def blocks_text(call: Call) -> str:
    return json.dumps(call.body.get("blocks", []), ensure_ascii=False)


def has_buttons(call: Call) -> bool:
    return any(block["type"] == "actions" for block in call.body.get("blocks", []))


# -- the pipeline breaks ------------------------------------------------------------------

class BrokenPipeline:
    def ask(self, question: str, site: str | None = None, context: Sequence[Any] = ()) -> Answer:
        raise RuntimeError("index file is corrupt")


def _request_id_in(call: Call) -> str:
    match = REQUEST_ID.search(blocks_text(call))
    assert match, call.body
    assert "something went wrong" in call.body["text"]
    assert "index file is corrupt" not in json.dumps(call.body)  # internals stay in the log
    return match.group(1)


def _logged_with_traceback(caplog: pytest.LogCaptureFixture, request_id: str) -> None:
    records = [r for r in caplog.records if f"request {request_id}" in r.getMessage()]
    assert records, [r.getMessage() for r in caplog.records]
    assert records[0].levelno == logging.ERROR and records[0].exc_info is not None
    assert "RuntimeError: index file is corrupt" in caplog.text and "Traceback" in caplog.text


def test_a_failing_pipeline_gives_the_asker_a_request_id_that_is_in_the_log(
        tmp_path: Path, slack: FakeSlack, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="docbot")
    for bot in start_bot(tmp_path, slack, SlackSettings(), BrokenPipeline()):
        assert bot.post(command_body(UPLOAD_QUESTION, slack.response_url("fail"))).status_code == 200
        (call,) = slack.wait_for(lambda c: c.path == "/response/fail")
        assert call.body["response_type"] == "ephemeral"
        slash_id = _request_id_in(call)
        _logged_with_traceback(caplog, slash_id)

        bot.post(mention(UPLOAD_QUESTION, "500.1", "EvFail"), JSON)
        (post,) = slack.wait_for(lambda c: c.method == "chat.postMessage")
        assert post.body["thread_ts"] == "500.1"
        thread_id = _request_id_in(post)
        assert thread_id != slash_id
        _logged_with_traceback(caplog, thread_id)
        slack.wait_for(lambda c: c.method == "reactions.remove")  # the 👀 does not stay on a failed question


# -- Slack answers with errors ----------------------------------------------------------------

def test_a_missing_reaction_scope_does_not_stop_the_answer(running: Bot, caplog: pytest.LogCaptureFixture) -> None:
    running.slack.fail["reactions.add"] = "missing_scope"
    running.post(mention(UPLOAD_QUESTION, "600.1", "EvScope"), JSON)
    (post,) = running.slack.wait_for(lambda c: c.method == "chat.postMessage")
    assert post.body["thread_ts"] == "600.1" and "uploading-files" in blocks_text(post)
    assert running.slack.matching(lambda c: c.method == "reactions.remove") == []  # nothing to take back
    assert "missing_scope" in caplog.text


def test_a_failed_post_is_logged_and_the_bot_keeps_answering(running: Bot, caplog: pytest.LogCaptureFixture) -> None:
    running.slack.fail["chat.postMessage"] = "channel_not_found"
    running.post(mention(UPLOAD_QUESTION, "700.1", "EvLost"), JSON)
    running.slack.wait_for(lambda c: c.method == "chat.postMessage", count=2)  # the answer, then the apology
    running.slack.wait_for(lambda c: c.method == "reactions.remove")
    assert "could not post the error message either" in caplog.text

    del running.slack.fail["chat.postMessage"]
    running.post(mention(UPLOAD_QUESTION, "700.2", "EvNext"), JSON)
    posts = running.slack.wait_for(lambda c: c.method == "chat.postMessage", count=3)
    assert posts[-1].body["thread_ts"] == "700.2" and "uploading-files" in blocks_text(posts[-1])


def test_an_unreachable_response_url_is_logged_and_the_bot_keeps_answering(
        running: Bot, caplog: pytest.LogCaptureFixture) -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{sock.getsockname()[1]}/response/nobody-listens"
    running.post(command_body(UPLOAD_QUESTION, dead))
    running.post(command_body(UPLOAD_QUESTION, running.slack.response_url("after"), trigger="t9"))
    (call,) = running.slack.wait_for(lambda c: c.path == "/response/after")
    assert "uploading-files" in blocks_text(call)
    assert "could not post to the response_url" in caplog.text


# -- the reference log is unavailable ---------------------------------------------------------

class UnavailableLog(ReferenceLog):
    """A reference log whose database cannot be written or read (locked, disk full…)."""

    def record(self, answer: Answer, origin: str, user_id: str | None = None, channel: str | None = None,
               thread_ts: str | None = None) -> int:
        raise sqlite3.OperationalError("database is locked")

    def thread_turns(self, channel: str, thread_ts: str, limit: int = 5) -> list[StoredTurn]:
        raise sqlite3.OperationalError("database is locked")

    def first_seen(self, event_id: str) -> bool:
        raise sqlite3.OperationalError("database is locked")


def test_without_the_reference_log_answers_still_go_out_without_buttons(
        running: Bot, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    running.bot.store = UnavailableLog(tmp_path / "unavailable.sqlite")

    running.post(command_body(UPLOAD_QUESTION, running.slack.response_url("nolog")))
    (call,) = running.slack.wait_for(lambda c: c.path == "/response/nolog")
    assert "uploading-files" in blocks_text(call) and not has_buttons(call)

    first = mention(UPLOAD_QUESTION, "800.1", "EvNoLog")
    assert running.post_as_is(first, signed_headers(first, JSON, timestamp=int(time.time()) - 30)).status_code == 200
    # Slack's retry is signed anew, so only the event id (remembered in memory now) shows it is a repeat
    assert running.post(first, JSON, **{"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"}
                        ).status_code == 200
    running.post(mention("and the error code?", "800.2", "EvNoLog2", thread_ts="800.1"), JSON)
    posts = running.slack.wait_for(lambda c: c.method == "chat.postMessage", count=2)
    assert [p.body["thread_ts"] for p in posts] == ["800.1", "800.1"]
    assert not any(has_buttons(p) for p in posts)
    time.sleep(QUIET_S)
    assert len(running.slack.matching(lambda c: c.method == "chat.postMessage")) == 2
    assert "could not write the reference log" in caplog.text
    assert "answering without context" in caplog.text


# -- answers that are not answers ----------------------------------------------------------------

def test_a_question_the_docs_do_not_cover_says_so_and_lists_closest_topics(running: Bot) -> None:
    running.post(command_body("kubernetes helm chart ingress zzz", running.slack.response_url("nc")))
    (call,) = running.slack.wait_for(lambda c: c.path == "/response/nc")
    text = blocks_text(call)
    assert call.body["text"] == "Not covered in the docs."
    assert "does not seem to be covered" in text and "Not covered in the indexed documentation" in text
    assert "*Closest topics*" in text and "*Sources*" not in text
    assert re.search(r"`\[1\]` <http://docs\.test/[a-z]+\.html#[\w.-]+\|", text)


@pytest.mark.parametrize("where", ["slash", "mention"])
def test_a_pipeline_error_answer_says_what_to_do_next_without_buttons(tmp_path: Path, slack: FakeSlack,
                                                                      where: str) -> None:
    for bot in start_bot(tmp_path, slack, SlackSettings(site="nope")):
        if where == "slash":
            bot.post(command_body(UPLOAD_QUESTION, slack.response_url("err")))
            (call,) = slack.wait_for(lambda c: c.path == "/response/err")
        else:
            bot.post(mention(UPLOAD_QUESTION, "900.1", "EvErr"), JSON)
            (call,) = slack.wait_for(lambda c: c.method == "chat.postMessage")
        text = blocks_text(call)
        assert ":warning: Site 'nope' is not indexed (indexed: demo)" in text
        assert "`docbot index --site nope`" in text
        assert not has_buttons(call) and "*Sources*" not in text
