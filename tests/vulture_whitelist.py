"""Functions vulture finds no caller of in docbot/, crawlers/ and scripts/ that are used all the same.

Read by vulture (``tests/test_house.py``), never imported or run. vulture counts a name as used wherever it is read,
so each entry reads one name; its comment says who calls it. Decorated functions are left to the test's
``IGNORE_DECORATORS`` (provider registrations, pydantic validators).
"""

from __future__ import annotations

from typing import Any

from crawlers.page_text import PageText
from docbot import config_schema, reference_log
from docbot.slack import fake, mrkdwn

_: Any = None  # stands for an object of the class that defines the method: vulture reads only the name

USED = (
    # Called by Python or a library, never by name.
    _.__getattr__,  # docbot/__init__.py: Python calls a module's __getattr__ for a name it lacks (PEP 562)
    _.forward,  # torch.nn.Module.__call__ runs it (indexing/embed_onnx.py, training/finetune.py)
    _.log_message,  # http.server.BaseHTTPRequestHandler logs through it (slack/, scripts/): overridden to be quiet
    _.do_POST,  # http.server.BaseHTTPRequestHandler answers a POST with it (slack/fake.py)
    _.setup,  # socketserver.BaseRequestHandler runs it before handle() (slack/server.py)
    _.process_request,  # socketserver.BaseServer hands it each accepted connection (slack/server.py)
    _.writable,  # io.BufferedIOBase asks it before a write (slack/server.py)
    # Test support kept beside what it supports: the tests that call it check something else.
    PageText.of_runs,  # a page text from (section, text) runs: the pages of the text-directive tests
    config_schema.schema_keys,  # the README's configuration section is checked against it (tests/docbot/test_config.py)
    reference_log.ReferenceLog.feedback,  # reads back the votes the Slack buttons record (tests/docbot/slack/)
    # The reference log's label API (docbot/labels.py), which learning from labels writes and reads; each is
    # tested on SQLite and PostgreSQL in tests/docbot/test_reference_log.py.
    reference_log.ReferenceLog.add_labels,  # stores a vote's, a pick's or a curator's labels,
    reference_log.ReferenceLog.relabel,  # carries them through a refresh's renames and removals,
    reference_log.ReferenceLog.answers_since,  # and reads the answers logged, for the reports
    mrkdwn.to_mrkdwn,  # the whole answer as one mrkdwn string, as the Markdown-to-mrkdwn tests compare it
    fake.FakeSlack.posts,  # the fake Slack Web API the Slack tests run against: what a response_url received,
    fake.fake_slack,  # the fake started and closed around a test,
    fake.event_body,  # an Events API request body,
    fake.action_body,  # and a button click's
)
