"""The Slack bot: slack-bolt listeners over the answer pipeline.

:class:`DocbotSlack` is the shared :class:`~docbot.slack.core.Work` (settings, worker pools, pipeline, reference
log) with the listeners of :mod:`docbot.slack.listeners` registered onto a Bolt ``App``: one module a kind of
request. Answers go back through ``respond()`` (slash commands and buttons) or ``chat.postMessage`` in the
question's thread (mentions and direct messages).

Nothing here talks to the pipeline's internals: the bot gets an ``Asker`` (``Pipeline`` in production, anything
with ``ask()`` in tests), a :class:`~docbot.reference_log.ReferenceLog` and a Bolt ``App``.
"""

from __future__ import annotations

import logging

from slack_bolt import App
from slack_sdk import WebClient

from docbot.slack.blocks import (
    ACTION_CLARIFY_PATTERN,
    ACTION_DOWN,
    ACTION_SHARE,
    ACTION_UP,
)
from docbot.slack.core import (
    DEFAULT_COMMAND,
    ReplayGuard,
    SlackSettings,
    Work,
    slack_to_text,
)
from docbot.slack.listeners.clarify import Clarify
from docbot.slack.listeners.command import SlashCommand
from docbot.slack.listeners.feedback import Votes
from docbot.slack.listeners.share import Share
from docbot.slack.listeners.thread import ThreadQuestions

__all__ = ["DEFAULT_COMMAND", "DocbotSlack", "SlackSettings", "build_app", "slack_to_text", "web_client"]


class DocbotSlack(Work):
    """The bot's behaviour, registered onto a Bolt app by :meth:`register`."""

    def register(self, app: App) -> App:
        command, thread, votes = SlashCommand(self), ThreadQuestions(self), Votes(self)
        app.use(ReplayGuard())
        app.command(self.settings.command)(command.on_command)
        app.event("app_mention")(thread.on_mention)
        app.event("message")(thread.on_message)
        app.action(ACTION_UP)(votes.on_feedback)
        app.action(ACTION_DOWN)(votes.on_feedback)
        app.action(ACTION_SHARE)(Share(self).on_share)
        app.action(ACTION_CLARIFY_PATTERN)(Clarify(self).on_clarify)
        return app


def web_client(token: str, api_url: str | None = None) -> WebClient:
    """A WebClient; ``api_url`` (env SLACK_API_URL) points it at a proxy or a local fake Slack API."""
    base = api_url or WebClient.BASE_URL
    return WebClient(token=token, base_url=base if base.endswith("/") else base + "/")


def build_app(bot: DocbotSlack, client: WebClient, signing_secret: str | None) -> App:
    """A Bolt app for ``bot``; requests are signature-checked whenever a signing secret is given (HTTP mode)."""
    app = App(
        client=client,
        signing_secret=signing_secret,
        request_verification_enabled=signing_secret is not None,
        token_verification_enabled=False,  # `docbot slack` checks the token itself, with a clearer message
        logger=logging.getLogger("docbot.slack.bolt"),
    )
    return bot.register(app)
