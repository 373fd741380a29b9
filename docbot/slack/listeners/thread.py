"""Mentions in channels and direct messages: answered in the question's thread, 👀 on the question meanwhile (and a
"writing…" message the answer replaces, when it is slow: :mod:`docbot.slack.progress`)."""

from __future__ import annotations

import logging
from typing import Any

from slack_sdk import WebClient

from docbot.slack.blocks import render_answer, render_error
from docbot.slack.core import WORKING_REACTION, Listener, new_request_id, slack_to_text
from docbot.slack.progress import ThreadProgress

log = logging.getLogger(__name__)


class ThreadQuestions(Listener):
    """Answers ``@docbot …`` and direct messages in their thread, with the thread's earlier answers as context."""

    def on_mention(self, body: dict[str, Any], event: dict[str, Any], client: WebClient) -> None:
        if str(event.get("channel", "")).startswith("D"):
            return  # direct messages are answered by the message listener
        if self.work.first_seen(body.get("event_id")):
            question = slack_to_text(event.get("text", ""))
            self.work.submit(self.work.jobs, self._answer_in_thread, question, dict(event), client, "mention")

    def on_message(self, body: dict[str, Any], event: dict[str, Any], client: WebClient) -> None:
        if event.get("channel_type") != "im" or event.get("subtype") or event.get("bot_id"):
            return  # edits, joins, bot posts (our own included) and channel chatter are not questions
        if self.work.first_seen(body.get("event_id")):
            question = slack_to_text(event.get("text", ""))
            self.work.submit(self.work.jobs, self._answer_in_thread, question, dict(event), client, "dm")

    def _answer_in_thread(self, question: str, event: dict[str, Any], client: WebClient, origin: str) -> None:
        channel, ts = str(event["channel"]), str(event["ts"])
        thread_ts = str(event.get("thread_ts") or ts)
        reacted = self._react(client, "reactions_add", channel, ts)
        progress: ThreadProgress | None = None
        try:
            if not question:
                client.chat_postMessage(channel=channel, thread_ts=thread_ts,
                                        text="Ask me a question about the docs, e.g. “how do I set a cookie?”")
                return
            progress = ThreadProgress(client, channel, thread_ts, self.work.settings.writing_after_s)
            context = self.work.context(channel, thread_ts) if event.get("thread_ts") else []
            answer = self.work.ask(question, context)
            answer_id = self.work.record(answer, origin, event.get("user"), channel, thread_ts)
            progress.deliver(render_answer(answer, answer_id), unfurl_links=False, unfurl_media=False)
        except Exception:
            request_id = new_request_id()
            log.exception("request %s: %s in %s failed for question %r", request_id, origin, channel, question[:200])
            error = render_error(request_id)
            try:
                if progress is not None:
                    progress.deliver(error)  # in place of a "writing…" message, if one was shown
                else:
                    client.chat_postMessage(channel=channel, thread_ts=thread_ts, text=error.text, blocks=error.blocks)
            except Exception:
                log.exception("request %s: could not post the error message either", request_id)
        finally:
            if reacted:
                self._react(client, "reactions_remove", channel, ts)

    @staticmethod
    def _react(client: WebClient, method: str, channel: str, ts: str) -> bool:
        """👀 on the question while working; best effort (a missing scope must not stop the answer)."""
        try:
            getattr(client, method)(channel=channel, timestamp=ts, name=WORKING_REACTION)
            return True
        except Exception as exc:  # noqa: BLE001
            log.warning("%s failed: %s", method, exc)
            return False
