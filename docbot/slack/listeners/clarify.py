"""The options of a clarifying question: the reading the user picked, answered in the question's thread."""

from __future__ import annotations

import logging
from dataclasses import replace
from functools import partial
from typing import Any

from slack_sdk import WebClient

from docbot.answer import Status
from docbot.slack.blocks import Message, parse_option_value, render_answer, render_error
from docbot.slack.core import Listener, new_request_id

log = logging.getLogger(__name__)


class Clarify(Listener):
    """Answers the option a user picks under a clarifying question."""

    def on_clarify(self, ack: Any, body: dict[str, Any], action: dict[str, Any], client: WebClient,
                    respond: Any) -> None:
        ack()
        chosen = parse_option_value(str(action.get("value", "")))
        if chosen is None:
            gone = Message(text="Sorry, that option is no longer available — please ask again.", blocks=[])
            self.work.submit(self.work.io, partial(self.work.respond_quietly, respond, gone, response_type="ephemeral",
                                           replace_original=False))
            return
        self.work.submit(self.work.jobs, self._answer_option, chosen, dict(body), client, respond)

    def _answer_option(self, chosen: tuple[str, str, str], body: dict[str, Any], client: WebClient,
                       respond: Any) -> None:
        """Answer the reading the user picked, in the question's thread (or privately, under a private answer)."""
        question, url, site = chosen
        container = body.get("container") or {}
        message = body.get("message") or {}
        channel = str((body.get("channel") or {}).get("id") or container.get("channel_id") or "")
        ts = message.get("ts") or container.get("message_ts")
        thread_ts = str(message.get("thread_ts") or container.get("thread_ts") or ts or "")
        user = (body.get("user") or {}).get("id")
        in_thread = bool(channel and thread_ts and not container.get("is_ephemeral"))
        try:
            # The option's section link in the question makes it an explicit reference: the resolver puts it first.
            answer = replace(self.work.asker.ask(f"{question} {url}", site=site), question=question)
            answer_id = self.work.record(answer, "clarify", user, channel if in_thread else None,
                                     thread_ts if in_thread else None)
            reply = render_answer(answer, answer_id, shareable=not in_thread and answer.status != Status.ERROR)
            if in_thread:
                client.chat_postMessage(channel=channel, thread_ts=thread_ts, text=reply.text, blocks=reply.blocks,
                                        unfurl_links=False, unfurl_media=False)
            else:
                respond(text=reply.text, blocks=reply.blocks, response_type="ephemeral", replace_original=False,
                        unfurl_links=False, unfurl_media=False)
        except Exception:
            request_id = new_request_id()
            log.exception("request %s: answering a clarifying option failed for %r", request_id, question[:200])
            self.work.respond_quietly(respond, render_error(request_id), response_type="ephemeral", replace_original=False)
