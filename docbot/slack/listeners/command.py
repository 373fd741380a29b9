"""The slash command (``/docs …``): the usage when empty, "searching…" at once, "writing…" in its place when the
answer is slow (:mod:`docbot.slack.progress`), the answer through ``respond()``."""

from __future__ import annotations

import logging
from typing import Any

from docbot.answer import Status
from docbot.slack.blocks import SEARCHING, render_answer, render_error, render_usage
from docbot.slack.core import Listener, new_request_id, slack_to_text
from docbot.slack.progress import CommandProgress

log = logging.getLogger(__name__)


class SlashCommand(Listener):
    """Answers ``/docs <question>``, privately unless the bot is set public."""

    def on_command(self, ack: Any, command: dict[str, Any], respond: Any) -> None:
        question = slack_to_text(command.get("text", ""))
        if not question:
            ack(text=render_usage(self.work.settings.command), response_type="ephemeral")
            return
        ack(text=SEARCHING, response_type="ephemeral")
        self.work.submit(self.work.jobs, self._answer_command, question, dict(command), respond)

    def _answer_command(self, question: str, command: dict[str, Any], respond: Any) -> None:
        progress = CommandProgress(respond, self.work.settings.writing_after_s)
        try:
            answer = self.work.ask(question)
            answer_id = self.work.record(answer, "slash_command", command.get("user_id"), command.get("channel_id"), None)
            public = self.work.settings.public
            message = render_answer(answer, answer_id, shareable=not public and answer.status != Status.ERROR)
            progress.deliver(message, "in_channel" if public else "ephemeral", unfurl_links=False, unfurl_media=False)
        except Exception:
            request_id = new_request_id()
            log.exception("request %s: slash command failed for question %r", request_id, question[:200])
            replace = {"replace_original": True} if progress.stop() else {}
            self.work.respond_quietly(respond, render_error(request_id), response_type="ephemeral", **replace)
