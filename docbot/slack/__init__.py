"""docbot in Slack: Block Kit rendering (pure), the Bolt listeners, and the HTTP / Socket Mode servers."""

from __future__ import annotations

from docbot.slack.app import DocbotSlack, SlackSettings, build_app, web_client
from docbot.slack.blocks import Message, render_answer
from docbot.slack.server import make_http_server, wsgi_app

__all__ = [
    "DocbotSlack",
    "Message",
    "SlackSettings",
    "build_app",
    "make_http_server",
    "render_answer",
    "web_client",
    "wsgi_app",
]
