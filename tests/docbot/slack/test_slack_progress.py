"""A slow answer (an LLM on a CPU) shows "writing…" first and then replaces it; a fast one goes out as before."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from docbot.answer import Answer
from docbot.pipeline import Pipeline
from docbot.slack.app import SlackSettings
from docbot.slack.fake import BOT_USER, FakeSlack, command_body, event_body
from docbot.slack.progress import WRITING
from tests.docbot.ask_fakes import FakeIndex, make_chunks, make_map, make_validator
from tests.docbot.slack.slack_bot import JSON, QUIET_S, UPLOAD_QUESTION, Bot, start_bot

SLOW_S = 0.8  # the answer's time; "writing…" shows after 0.1 s


class SlowPipeline:
    """The fake site's pipeline, answering after ``SLOW_S`` (as a local model would, much later); ``fail`` raises."""

    def __init__(self, fail: bool = False) -> None:
        self.pipeline = Pipeline(FakeIndex(make_chunks()), {"demo": make_map()}, make_validator())
        self.fail = fail

    def ask(self, question: str, site: str | None = None, context: Sequence[Any] = ()) -> Answer:
        time.sleep(SLOW_S)
        if self.fail:
            raise RuntimeError("the index went away")
        return self.pipeline.ask(question, site=site, context=context)


def slow_bot(tmp_path: Path, slack: FakeSlack, public: bool = False, fail: bool = False) -> Iterator[Bot]:
    return start_bot(tmp_path, slack, SlackSettings(public=public, writing_after_s=0.1), SlowPipeline(fail))


def mention(bot: Bot, event_id: str = "Ev1") -> None:
    event = {"type": "app_mention", "user": "U0001", "text": f"<@{BOT_USER}> {UPLOAD_QUESTION}",
             "ts": "100.000100", "channel": "C0001"}
    assert bot.post(event_body(event, event_id), JSON).status_code == 200


def test_a_slow_answer_in_a_thread_replaces_its_writing_message(tmp_path: Path, slack: FakeSlack) -> None:
    for bot in slow_bot(tmp_path, slack):
        mention(bot)
        (placeholder,) = slack.wait_for(lambda c: c.method == "chat.postMessage")
        assert placeholder.body["text"] == WRITING and placeholder.body["thread_ts"] == "100.000100"
        (update,) = slack.wait_for(lambda c: c.method == "chat.update")
        assert update.body["channel"] == "C0001" and update.body["ts"]
        assert "<http://docs.test/guide.html#uploading-files" in json.dumps(update.body["blocks"], ensure_ascii=False)
        assert update.arrived - placeholder.arrived >= SLOW_S - 0.2
        time.sleep(QUIET_S)
        assert len(slack.matching(lambda c: c.method == "chat.postMessage")) == 1  # no second message


def test_a_failed_slow_answer_replaces_the_writing_message_with_the_error(tmp_path: Path, slack: FakeSlack) -> None:
    for bot in slow_bot(tmp_path, slack, fail=True):
        mention(bot)
        (update,) = slack.wait_for(lambda c: c.method == "chat.update")
        assert update.body["text"] == "Sorry, something went wrong while answering."
        assert len(slack.matching(lambda c: c.method == "chat.postMessage")) == 1


def test_an_update_that_fails_is_posted_instead(tmp_path: Path, slack: FakeSlack) -> None:
    slack.fail["chat.update"] = "message_not_found"  # the writing message was deleted meanwhile
    for bot in slow_bot(tmp_path, slack):
        mention(bot)
        posts = slack.wait_for(lambda c: c.method == "chat.postMessage", count=2)
        assert posts[0].body["text"] == WRITING and "uploading-files" in json.dumps(posts[1].body["blocks"])


def test_a_fast_answer_is_one_message_as_before(running: Bot) -> None:
    mention(running)
    (post,) = running.slack.wait_for(lambda c: c.method == "chat.postMessage")
    assert post.body["text"] != WRITING
    time.sleep(QUIET_S)
    assert not running.slack.matching(lambda c: c.method == "chat.update")


@pytest.mark.parametrize("public", [False, True])
def test_a_slow_slash_command_shows_writing_in_place_of_searching(tmp_path: Path, slack: FakeSlack,
                                                                 public: bool) -> None:
    for bot in slow_bot(tmp_path, slack, public=public):
        bot.post(command_body(UPLOAD_QUESTION, slack.response_url("s")))
        calls = slack.wait_for(lambda c: c.path == "/response/s", count=3 if public else 2)
        writing, answer = calls[0].body, calls[1].body
        assert writing == {"text": WRITING, "response_type": "ephemeral", "replace_original": True}
        assert "uploading-files" in json.dumps(answer["blocks"])
        if public:  # the answer goes to the channel; the private "writing…" is deleted
            assert answer["response_type"] == "in_channel" and "replace_original" not in answer
            assert calls[2].body["delete_original"] is True
        else:
            assert answer["response_type"] == "ephemeral" and answer["replace_original"] is True
