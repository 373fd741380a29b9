"""The Slack test bot: docbot's Bolt app on the real HTTP server on 127.0.0.1, talking to a fake Slack.

Shared by the Slack test modules (their ``slack`` and ``running`` fixtures are in
``conftest.py``); the pipeline behind the bot is the small fake site of ``ask_fakes``.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx

from docbot.pipeline import Pipeline
from docbot.reference_log import ReferenceLog
from docbot.slack.app import DocbotSlack, SlackSettings, build_app, web_client
from docbot.slack.fake import BOT_TOKEN, SECRET, FakeSlack, signed_headers
from docbot.slack.server import make_http_server
from tests.docbot.ask_fakes import FakeIndex, make_chunks, make_map, make_validator

FORM = "application/x-www-form-urlencoded"
JSON = "application/json"
QUIET_S = 0.3  # how long "nothing else happened" is given to happen
UPLOAD_QUESTION = "How do I limit the upload size? MAX_CONTENT_LENGTH"


@dataclass
class Bot:
    url: str
    slack: FakeSlack
    store: ReferenceLog
    bot: DocbotSlack

    def post(self, body: str, content_type: str = FORM, **headers: str) -> httpx.Response:
        """A request signed as Slack signs it (``headers`` add to or override the signature's)."""
        sent = signed_headers(body, content_type)
        sent.update(headers)
        return self.post_as_is(body, sent)

    def post_as_is(self, body: str, headers: dict[str, str]) -> httpx.Response:
        """A request with exactly these headers: unsigned, stale or forged ones included."""
        return httpx.post(self.url, content=body.encode("utf-8"), headers=headers, timeout=10)


def start_bot(tmp_path: Path, slack: FakeSlack, settings: SlackSettings, asker: object | None = None,
              **options: float) -> Iterator[Bot]:
    """The bot on the real HTTP server; ``options`` go to :func:`make_http_server` (e.g. ``request_timeout``)."""
    pipeline = asker or Pipeline(FakeIndex(make_chunks()), {"demo": make_map()}, make_validator())
    store = ReferenceLog(tmp_path / "docbot.sqlite")
    bot = DocbotSlack(pipeline, store, settings)  # type: ignore[arg-type]
    app = build_app(bot, web_client(BOT_TOKEN, slack.api_url), SECRET)
    server = make_http_server(app, "127.0.0.1", 0, signing_secret=SECRET, **options)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield Bot(f"http://127.0.0.1:{server.server_port}/slack/events", slack, store, bot)
    finally:
        server.shutdown()
        server.server_close()
        bot.shutdown(wait=True)
