"""Fixtures of the Slack tests: a fake Slack, and docbot's bot running against it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from docbot.slack.app import SlackSettings
from docbot.slack.fake import FakeSlack, fake_slack
from tests.docbot.slack.slack_bot import Bot, start_bot


@pytest.fixture()
def slack() -> Iterator[FakeSlack]:
    with fake_slack() as fake:
        yield fake


@pytest.fixture()
def running(tmp_path: Path, slack: FakeSlack) -> Iterator[Bot]:
    yield from start_bot(tmp_path, slack, SlackSettings())
