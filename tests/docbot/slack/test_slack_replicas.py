"""Two `docbot slack` processes serving one Slack app, as replicas behind a load balancer: one PostgreSQL reference
log and one `chroma run` server between them, each bot with its own copy of the data directory.

Slack is the local fake; every request is signed and goes through the real Bolt HTTP server of one bot or the other.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

import docbot.indexing.embed
from docbot.cli import main
from docbot.indexing.embed import HashEmbedder
from docbot.reference_log import ReferenceLog
from docbot.slack.blocks import ACTION_DOWN, ACTION_UP
from docbot.slack.fake import (
    BOT_TOKEN,
    BOT_USER,
    SECRET,
    FakeSlack,
    action_body,
    command_body,
    event_body,
    fake_slack,
    signed_headers,
)
from tests.conftest import serve_directory
from tests.docbot.slack.slack_bot import FORM, JSON, QUIET_S
from tests.docbot.slack.test_slack_cli import HASH_DOCBOT, STARTUP_S, common, read_line, write_site
from tests.postgres import Postgres

ANSWER_S = 60.0  # an answer on a busy machine


@pytest.fixture()
def env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in ("SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_API_URL", "PORT", "CHROMA_URL",
                 "OPENAI_API_KEY", "OPENAI_BASE_URL", "DOCBOT_CONFIG", "DOCBOT_DATA_DIR", "DOCBOT_ANCHOR_MAPS",
                 "DOCBOT_EMBEDDINGS", "DOCBOT_REFERENCE_LOG"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


@contextmanager
def bot(folder: Path, slack: FakeSlack, extra: dict[str, str]) -> Iterator[subprocess.Popen[str]]:
    """``docbot slack`` in HTTP mode over ``folder``'s data dir, maps and docbot.toml; stopped if still running."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SLACK_", "OPENAI_", "DOCBOT_")) and k not in ("CHROMA_URL", "PORT")}
    env.update(SLACK_BOT_TOKEN=BOT_TOKEN, SLACK_SIGNING_SECRET=SECRET, SLACK_API_URL=slack.api_url, **extra)
    with (folder / "bot.stderr").open("w", encoding="utf-8") as stderr:
        proc = subprocess.Popen([sys.executable, "-c", HASH_DOCBOT, *common(folder), "slack", "--http", "--host",
                                 "127.0.0.1", "--port", "0", "--json"], stdout=subprocess.PIPE, stderr=stderr,
                                text=True, env=env)
        try:
            yield proc
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stdout.close()  # type: ignore[union-attr]


def post(url: str, body: str, content_type: str = FORM) -> None:
    assert httpx.post(url, content=body.encode(), headers=signed_headers(body, content_type), timeout=10).status_code == 200


def answer_id(call: Any) -> int:
    """The reference log's id of an answer, from the value of its 👍 button."""
    actions = next(b for b in call.body["blocks"] if b["type"] == "actions")
    return int(next(e["value"] for e in actions["elements"] if e["action_id"] == ACTION_UP))


@pytest.mark.slow
def test_two_bots_share_votes_threads_and_events_through_one_postgresql(
        tmp_path: Path, env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], chroma_server: str,
        postgres: Postgres) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir(), two.mkdir()
    write_site(tmp_path / "site")
    env.setattr(docbot.indexing.embed, "embedder_from_settings", lambda settings: HashEmbedder())
    env.setenv("CHROMA_URL", chroma_server)  # the vectors go to the server; the maps and BM25 stay in one/data
    with serve_directory(tmp_path / "site") as site:
        assert main([*common(one), "crawl", site, "--site", "tiny"]) == 0
        assert main([*common(one), "index"]) == 0
    capsys.readouterr()
    for part in ("data", "maps"):  # the second machine: a copy of the files, nothing shared through them
        shutil.copytree(one / part, two / part)
    log_url = postgres.database()
    (one / "docbot.toml").write_text(f'reference_log = "{log_url}"\n', encoding="utf-8")  # one names it in the file,
    shared = {"CHROMA_URL": chroma_server}

    with fake_slack() as slack, ExitStack() as stack:
        procs = [stack.enter_context(bot(one, slack, shared)),
                 stack.enter_context(bot(two, slack, {**shared, "DOCBOT_REFERENCE_LOG": log_url}))]  # two in the env
        first, second = (json.loads(read_line(proc, STARTUP_S)) for proc in procs)
        assert first["reference_log"] == second["reference_log"] == log_url
        assert first["sites"] == second["sites"] == ["tiny"]
        url_one, url_two = first["url"], second["url"]

        # An answer from each bot: ids from one sequence, the links of both in the one log.
        post(url_one, command_body("How do I limit the upload size?", slack.response_url("one")))
        post(url_two, command_body("How do sessions keep user data?", slack.response_url("two")))
        (by_one,) = slack.wait_for(lambda c: c.path == "/response/one", timeout=ANSWER_S)
        (by_two,) = slack.wait_for(lambda c: c.path == "/response/two", timeout=ANSWER_S)
        asked_one, asked_two = answer_id(by_one), answer_id(by_two)
        assert asked_one != asked_two

        # Votes given to either bot, on either bot's answer.
        post(url_two, action_body(ACTION_UP, str(asked_one), slack.response_url("v1"), user="U0002"))
        post(url_one, action_body(ACTION_UP, str(asked_one), slack.response_url("v2"), user="U0004"))
        post(url_one, action_body(ACTION_DOWN, str(asked_two), slack.response_url("v3"), user="U0003"))
        for name in ("v1", "v2", "v3"):
            (thanks,) = slack.wait_for(lambda c, n=name: c.path == f"/response/{n}", timeout=ANSWER_S)
            assert thanks.body["text"] == "Thanks for the feedback!"

        # A mention answered by one; Slack's retry of it reaching two is dropped; a follow-up in the thread, sent
        # to two, is read with one's answer before it.
        mention = {"type": "app_mention", "user": "U0001", "text": f"<@{BOT_USER}> How do I limit the upload size?",
                   "ts": "100.000100", "channel": "C0001"}
        post(url_one, event_body(mention, "Ev1"), JSON)
        slack.wait_for(lambda c: c.method == "chat.postMessage", timeout=ANSWER_S)
        post(url_two, event_body(mention, "Ev1"), JSON)
        follow = {"type": "app_mention", "user": "U0001", "text": f"<@{BOT_USER}> and what is the error code?",
                  "ts": "100.000200", "thread_ts": "100.000100", "channel": "C0001"}
        post(url_two, event_body(follow, "Ev2"), JSON)
        posts = slack.wait_for(lambda c: c.method == "chat.postMessage", count=2, timeout=ANSWER_S)
        assert posts[1].body["thread_ts"] == "100.000100"
        assert "uploading-files" in json.dumps(posts[1].body["blocks"], ensure_ascii=False)
        time.sleep(QUIET_S)
        assert len(slack.matching(lambda c: c.method == "chat.postMessage")) == 2  # the retry got no answer

        for proc in procs:
            proc.send_signal(signal.SIGTERM)
        assert [proc.wait(timeout=60) for proc in procs] == [0, 0]

    with ReferenceLog(log_url) as log:
        assert log.feedback(asked_one) == {"up": 2, "down": 0} and log.feedback(asked_two) == {"up": 0, "down": 1}
        assert sorted((v.user_id, v.vote) for v in log.votes([asked_one, asked_two])) == [
            ("U0002", 1), ("U0003", -1), ("U0004", 1)]
        turns = log.thread_turns("C0001", "100.000100")
        assert [t.question for t in turns] == ["How do I limit the upload size?", "and what is the error code?"]
        assert {a.origin for a in log.answers_since("tiny", 0)} == {"slash_command", "mention"}
    assert not (one / "data" / "docbot.sqlite").exists() and not (two / "data" / "docbot.sqlite").exists()
