"""Slack scenarios: signed requests to the real Bolt HTTP server on 127.0.0.1, Slack played by a local fake.

Each test asserts on what a Slack user would see: the acknowledgement, and the
Block Kit JSON that reaches the response_url or chat.postMessage.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from docbot.slack.app import SlackSettings, slack_to_text
from docbot.slack.blocks import ACTION_DOWN, ACTION_SHARE, ACTION_UP
from docbot.slack.fake import BOT_USER, action_body, command_body, event_body, fake_slack
from tests.docbot.slack.slack_bot import JSON, QUIET_S, UPLOAD_QUESTION, Bot, start_bot


def test_slash_command_acks_at_once_then_posts_a_grouped_validated_answer(running: Bot) -> None:
    started = time.perf_counter()
    resp = running.post(command_body(UPLOAD_QUESTION, running.slack.response_url("c1")))
    ack_seconds = time.perf_counter() - started
    assert resp.status_code == 200 and ack_seconds < 3
    assert resp.json() == {"text": "Searching the docs…", "response_type": "ephemeral"}

    (call,) = running.slack.wait_for(lambda c: c.path == "/response/c1")
    body = call.body
    assert body["response_type"] == "ephemeral" and body["unfurl_links"] is False and body["unfurl_media"] is False
    text = json.dumps(body["blocks"], ensure_ascii=False)
    assert "<http://docs.test/guide.html#uploading-files|Guide › Uploading Files>" in text
    assert "*Sources*" in text and "*Guides*" in text and "`[1]`" in text
    actions = next(b for b in body["blocks"] if b["type"] == "actions")
    assert [e["action_id"] for e in actions["elements"]] == [ACTION_UP, ACTION_DOWN, ACTION_SHARE]
    # the answer and its references are in the reference log, for refresh to re-check later
    assert any(url == "http://docs.test/guide.html#uploading-files" for _, url in running.store.iter_links())


def test_empty_slash_command_gets_usage_and_no_answer(running: Bot) -> None:
    resp = running.post(command_body("   ", running.slack.response_url("empty")))
    assert resp.status_code == 200 and "/docs how do I set a cookie?" in resp.json()["text"]
    time.sleep(QUIET_S)
    assert running.slack.posts("empty") == []


def test_feedback_is_stored_and_acknowledged(running: Bot) -> None:
    running.post(command_body("What does App.set_cookie do?", running.slack.response_url("q")))
    running.slack.wait_for(lambda c: c.path == "/response/q")
    answer_id = running.store.iter_links()[0][0]
    assert running.post(action_body(ACTION_UP, str(answer_id), running.slack.response_url("fb1"))).status_code == 200
    running.slack.wait_for(lambda c: c.path == "/response/fb1")
    assert running.post(action_body(ACTION_DOWN, str(answer_id), running.slack.response_url("fb2"),
                                    user="U0003")).status_code == 200
    (thanks,) = running.slack.wait_for(lambda c: c.path == "/response/fb2")
    assert thanks.body["text"] == "Thanks for the feedback!" and thanks.body["replace_original"] is False
    assert running.store.feedback(answer_id) == {"up": 1, "down": 1}


def test_share_posts_the_answer_in_channel_and_removes_the_private_copy(running: Bot) -> None:
    running.post(command_body("What does App.route do?", running.slack.response_url("q")))
    running.slack.wait_for(lambda c: c.path == "/response/q")
    answer_id = running.store.iter_links()[0][0]
    running.post(action_body(ACTION_SHARE, str(answer_id), running.slack.response_url("share")))
    shared, deleted = running.slack.wait_for(lambda c: c.path == "/response/share", count=2)
    assert shared.body["response_type"] == "in_channel"
    assert "App.route" in json.dumps(shared.body["blocks"], ensure_ascii=False) and "shared by <@U0002>" in json.dumps(shared.body["blocks"], ensure_ascii=False)
    assert ACTION_SHARE not in json.dumps(shared.body["blocks"], ensure_ascii=False)
    assert deleted.body["delete_original"] is True


def test_public_setting_posts_answers_in_channel(tmp_path: Path) -> None:
    with fake_slack() as slack:
        for bot in start_bot(tmp_path, slack, SlackSettings(public=True)):
            bot.post(command_body("What does App.route do?", slack.response_url("p")))
            (call,) = slack.wait_for(lambda c: c.path == "/response/p")
            assert call.body["response_type"] == "in_channel"
            assert ACTION_SHARE not in json.dumps(call.body["blocks"], ensure_ascii=False)


def test_mention_reacts_answers_in_thread_and_follow_up_uses_the_thread(running: Bot) -> None:
    event = {"type": "app_mention", "user": "U0001", "text": f"<@{BOT_USER}> How do I limit the upload size?",
             "ts": "100.000100", "channel": "C0001"}
    assert running.post(event_body(event, "Ev1"), JSON).status_code == 200
    (post,) = running.slack.wait_for(lambda c: c.method == "chat.postMessage")
    assert post.body["thread_ts"] == "100.000100" and post.body["channel"] == "C0001"
    assert "uploading-files" in json.dumps(post.body["blocks"], ensure_ascii=False)
    added = running.slack.matching(lambda c: c.method == "reactions.add")
    assert added and added[0].body["name"] == "eyes"
    running.slack.wait_for(lambda c: c.method == "reactions.remove")

    follow = {"type": "app_mention", "user": "U0001", "text": f"<@{BOT_USER}> and what is the error code?",
              "ts": "100.000200", "thread_ts": "100.000100", "channel": "C0001"}
    running.post(event_body(follow, "Ev2"), JSON)
    posts = running.slack.wait_for(lambda c: c.method == "chat.postMessage", count=2)
    assert posts[1].body["thread_ts"] == "100.000100"
    # the follow-up is read with the thread's earlier question: the upload section answers it again
    assert "uploading-files" in json.dumps(posts[1].body["blocks"], ensure_ascii=False)
    assert len(running.store.thread_turns("C0001", "100.000100")) == 2


def test_direct_message_is_answered_and_bot_messages_are_ignored(running: Bot) -> None:
    own = {"type": "message", "channel_type": "im", "channel": "D0001", "user": BOT_USER, "bot_id": "B0001",
           "text": "an answer of mine", "ts": "5.1"}
    running.post(event_body(own, "EvOwn"), JSON)
    dm = {"type": "message", "channel_type": "im", "channel": "D0001", "user": "U0001",
          "text": "How do sessions work?", "ts": "5.2"}
    running.post(event_body(dm, "EvDm"), JSON)
    (post,) = running.slack.wait_for(lambda c: c.method == "chat.postMessage")
    assert post.body["channel"] == "D0001" and "sessions" in json.dumps(post.body["blocks"], ensure_ascii=False)
    time.sleep(QUIET_S)
    assert len(running.slack.matching(lambda c: c.method == "chat.postMessage")) == 1


def test_slack_markup_in_questions_is_undone() -> None:
    text = f"<@{BOT_USER}> see <https://docs.test/api.html#x|the api> in <#C1|general> &lt;b&gt; <!here>"
    assert slack_to_text(text) == "see https://docs.test/api.html#x in #general <b>"
