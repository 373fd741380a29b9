"""`docbot slack`: configuration errors, the manifest, and the bot run for real as a process.

The end-to-end test crawls a tiny site served on 127.0.0.1, indexes it, starts
`docbot slack --http --port 0 --json` as a subprocess with Slack played by a
local fake, sends it one signed slash command and stops it with SIGTERM.
"""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
import yaml

import docbot.indexing.embed
from docbot.cli import main
from docbot.indexing.embed import HashEmbedder
from docbot.slack.fake import BOT_TOKEN, BOT_USER, SECRET, FakeSlack, command_body, fake_slack, signed_headers
from tests.conftest import serve_directory

FORM = "application/x-www-form-urlencoded"
SLACK_ENV = ("SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_API_URL", "PORT")
STARTUP_S = 120.0  # the real embedding model loads in the subprocess before the bot listens
# `docbot` itself (docbot.cli:main), with the deterministic test embedder in place of the local model
HASH_DOCBOT = ("import sys, docbot.indexing.embed as e; e.embedder_from_settings = lambda settings: e.HashEmbedder(); "
               "from docbot.cli import main; sys.exit(main(sys.argv[1:]))")


@pytest.fixture()
def env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in (*SLACK_ENV, "OPENAI_API_KEY", "OPENAI_BASE_URL", "CHROMA_URL", "DOCBOT_CONFIG", "DOCBOT_DATA_DIR",
                 "DOCBOT_ANCHOR_MAPS", "DOCBOT_EMBEDDINGS"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def common(tmp_path: Path) -> list[str]:
    config = tmp_path / "docbot.toml"
    if not config.exists():
        config.write_text("", encoding="utf-8")
    return ["--data-dir", str(tmp_path / "data"), "--anchor-maps", str(tmp_path / "maps"), "--config", str(config)]


def slack_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main([*common(tmp_path), "slack", *args])
    out, err = capsys.readouterr()
    return code, out, err


# -- configuration errors -----------------------------------------------------------------

def test_missing_bot_token_names_it(tmp_path: Path, env: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    env.setenv("SLACK_SIGNING_SECRET", SECRET)
    code, out, err = slack_cli(tmp_path, capsys)
    assert code == 1 and out == ""
    assert "SLACK_BOT_TOKEN is not set" in err and "--print-manifest" in err


def test_token_without_app_token_or_signing_secret_names_both(tmp_path: Path, env: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    env.setenv("SLACK_BOT_TOKEN", BOT_TOKEN)
    code, _, err = slack_cli(tmp_path, capsys)
    assert code == 1 and "SLACK_APP_TOKEN" in err and "SLACK_SIGNING_SECRET" in err
    env.setenv("SLACK_APP_TOKEN", "xapp-test")
    code, _, err = slack_cli(tmp_path, capsys, "--http")  # --http ignores the app token: the secret is needed
    assert code == 1 and "SLACK_SIGNING_SECRET" in err


@pytest.mark.parametrize("command", ["docs", "/two words"])
def test_a_bad_slash_command_name_is_refused(tmp_path: Path, env: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str], command: str) -> None:
    code, out, err = slack_cli(tmp_path, capsys, "--command", command, "--print-manifest")
    assert code == 1 and out == "" and "must start with '/'" in err and "/docs" in err


def test_print_manifest_fills_in_command_and_request_url(tmp_path: Path, env: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    url = "https://x.example/slack/events"
    code, out, _ = slack_cli(tmp_path, capsys, "--print-manifest", "--command", "/ask", "--request-url", url)
    assert code == 0 and "/ask" in out and url in out and "socket_mode_enabled: false" in out
    manifest = yaml.safe_load(out)
    (command,) = manifest["features"]["slash_commands"]
    assert command["command"] == "/ask" and command["url"] == url
    assert manifest["settings"]["event_subscriptions"]["request_url"] == url
    assert manifest["settings"]["interactivity"]["request_url"] == url
    assert manifest["settings"]["socket_mode_enabled"] is False

    code, out, _ = slack_cli(tmp_path, capsys, "--print-manifest")  # no URL: Socket Mode, needs none
    assert code == 0 and yaml.safe_load(out)["settings"]["socket_mode_enabled"] is True
    assert "- command: /docs" in out


# -- a tiny site, crawled and indexed --------------------------------------------------------

def write_site(root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "index.html").write_text(
        '<html><head><title>Tiny</title></head><body><h1 id="tiny">Tiny</h1><p>Tiny is a small web framework.</p>'
        '<a href="guide.html">Guide</a></body></html>', encoding="utf-8")
    (root / "guide.html").write_text(
        '<html><head><title>Guide</title></head><body><h1 id="guide">Guide</h1>'
        '<h2 id="uploading-files">Uploading files</h2><p>Set MAX_CONTENT_LENGTH to limit the upload size. '
        'Requests over the limit get a 413 error.</p>'
        '<h2 id="sessions">Sessions</h2><p>Sessions keep user data between requests in a signed cookie.</p>'
        '</body></html>', encoding="utf-8")


@pytest.fixture()
def served_site(tmp_path: Path) -> Iterator[str]:
    write_site(tmp_path / "site")
    with serve_directory(tmp_path / "site") as base:
        yield base


def crawl(tmp_path: Path, base: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*common(tmp_path), "crawl", base, "--site", "tiny"]) == 0
    capsys.readouterr()


def test_rejected_token_and_missing_index_say_what_to_do(tmp_path: Path, env: pytest.MonkeyPatch, served_site: str,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    env.setattr(docbot.indexing.embed, "embedder_from_settings", lambda settings: HashEmbedder())
    env.setenv("SLACK_BOT_TOKEN", BOT_TOKEN)
    env.setenv("SLACK_SIGNING_SECRET", SECRET)
    code, _, err = slack_cli(tmp_path, capsys)
    assert code == 1 and "No index" in err and "docbot index" in err

    crawl(tmp_path, served_site, capsys)
    assert main([*common(tmp_path), "index"]) == 0
    capsys.readouterr()
    with fake_slack() as slack:
        env.setenv("SLACK_API_URL", slack.api_url)
        slack.fail["auth.test"] = "invalid_auth"
        code, _, err = slack_cli(tmp_path, capsys, "--port", "0")
        assert code == 1 and "Slack rejected SLACK_BOT_TOKEN (invalid_auth)" in err and "xoxb-" in err


# -- the bot as a process ---------------------------------------------------------------------

def read_line(proc: subprocess.Popen[str], timeout: float) -> str:
    """The process's first line of output (AssertionError if it exits or stays silent)."""
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    line = proc.stdout.readline() if ready else ""
    assert line, f"no startup line within {timeout}s (exit code {proc.poll()})"
    return line


@contextmanager
def bot_process(tmp_path: Path, docbot: list[str], slack: FakeSlack) -> Iterator[tuple[subprocess.Popen[str], dict]]:
    """``docbot slack`` in HTTP mode on 127.0.0.1, as a process of its own (stderr in ``bot.stderr``); yields it
    and its startup summary, and kills it if the test did not stop it."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SLACK_", "OPENAI_", "DOCBOT_")) and k not in ("CHROMA_URL", "PORT")}
    env.update(SLACK_BOT_TOKEN=BOT_TOKEN, SLACK_SIGNING_SECRET=SECRET, SLACK_API_URL=slack.api_url)
    with (tmp_path / "bot.stderr").open("w", encoding="utf-8") as stderr:
        proc = subprocess.Popen([*docbot, *common(tmp_path), "slack", "--http", "--host", "127.0.0.1", "--port", "0",
                                 "--json"], stdout=subprocess.PIPE, stderr=stderr, text=True, env=env)
        try:
            yield proc, json.loads(read_line(proc, STARTUP_S))
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stdout.close()  # type: ignore[union-attr]


def run_bot_process(tmp_path: Path, docbot: list[str], slack: FakeSlack) -> None:
    with bot_process(tmp_path, docbot, slack) as (proc, summary):
        assert summary["mode"] == "http" and summary["sites"] == ["tiny"] and summary["bot_user_id"] == BOT_USER
        assert summary["command"] == "/docs" and summary["url"].startswith("http://127.0.0.1:")
        url = summary["url"]
        health = httpx.get(url.replace("/slack/events", "/healthz"), timeout=10)
        assert health.status_code == 200 and health.text == "ok"

        body = command_body("How do I limit the upload size?", slack.response_url("e2e"))
        started = time.perf_counter()
        resp = httpx.post(url, content=body.encode(), headers=signed_headers(body, FORM), timeout=10)
        assert resp.status_code == 200 and time.perf_counter() - started < 3
        assert resp.json()["text"] == "Searching the docs…"
        (call,) = slack.wait_for(lambda c: c.path == "/response/e2e", timeout=60)
        blocks = json.dumps(call.body["blocks"], ensure_ascii=False)
        # the link lands on the quoted sentence (a text directive after the anchor); its text stays the title
        assert re.search(r"guide\.html#uploading-files:~:text=[^|>]+\|Guide › Uploading files>", blocks)
        assert "MAX_CONTENT_LENGTH" in blocks

        forged = httpx.post(url, content=body.encode(), headers=signed_headers(body, FORM, secret="x"), timeout=10)
        assert forged.status_code == 401

        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
    assert "stopping" in (tmp_path / "bot.stderr").read_text(encoding="utf-8")


def test_docbot_slack_runs_answers_a_signed_command_and_stops_on_sigterm(
        tmp_path: Path, env: pytest.MonkeyPatch, served_site: str, capsys: pytest.CaptureFixture[str]) -> None:
    env.setattr(docbot.indexing.embed, "embedder_from_settings", lambda settings: HashEmbedder())
    crawl(tmp_path, served_site, capsys)
    assert main([*common(tmp_path), "index"]) == 0
    with fake_slack() as slack:
        run_bot_process(tmp_path, [sys.executable, "-c", HASH_DOCBOT], slack)


@pytest.mark.slow
def test_the_installed_docbot_command_serves_slack_with_the_local_model(
        tmp_path: Path, env: pytest.MonkeyPatch, served_site: str, capsys: pytest.CaptureFixture[str]) -> None:
    docbot_script = Path(sys.executable).with_name("docbot")
    if not docbot_script.is_file():
        pytest.skip(f"{docbot_script} is not installed (pip install -e .)")
    crawl(tmp_path, served_site, capsys)
    indexed = subprocess.run([str(docbot_script), *common(tmp_path), "index"], capture_output=True, text=True,
                             env={k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}, timeout=300, check=False)
    assert indexed.returncode == 0, indexed.stderr
    with fake_slack() as slack:
        run_bot_process(tmp_path, [str(docbot_script)], slack)
