"""`docbot ask` end to end on a real docs site served on 127.0.0.1, plus usage errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docbot.cli import main


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["--data-dir", str(tmp_path), "ask"]) == 2
    assert "give a question" in capsys.readouterr().err
    assert main(["--data-dir", str(tmp_path), "ask", "--batch", str(tmp_path / "missing.txt")]) == 2


def test_no_index_is_a_clear_error_status(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("DOCBOT_EMBEDDINGS", "local")
    code = main(["--data-dir", str(tmp_path), "--anchor-maps", str(tmp_path / "maps"), "ask", "--json", "hello?"])
    data = json.loads(capsys.readouterr().out)
    assert code == 1 and data["status"] == "error" and "docbot index" in data["answer"]


@pytest.mark.slow
def test_ask_on_a_real_site(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                            monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.conftest import EVAL_ROOTS, serve_directory

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("DOCBOT_EMBEDDINGS", raising=False)
    common = ["--data-dir", str(tmp_path / "d"), "--anchor-maps", str(tmp_path / "m")]
    with serve_directory(EVAL_ROOTS["requests"]) as base:
        assert main([*common, "crawl", base, "--site", "requests"]) == 0
        assert main([*common, "index"]) == 0
        capsys.readouterr()
        batch = tmp_path / "q.jsonl"
        batch.write_text("How do I set a timeout on a request?\n"
                         '{"question": "What does requests.Session.mount do?"}\n'
                         "\n"
                         '{"question": "   "}\n', encoding="utf-8")
        assert main([*common, "ask", "--json", "--batch", str(batch), "--site", "requests"]) == 0
        rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        assert [r["status"] for r in rows] == ["answered", "answered", "error"]
        assert rows[0]["references"][0]["url"].startswith(base)
        assert "#" in rows[0]["references"][0]["url"]
        assert rows[1]["resolution"] == "explicit"
        mount = rows[1]["references"][0]
        # the section's anchor, and a text directive landing on the sentence the answer quotes from it
        assert mount["url"].startswith(base + "api.html#requests.Session.mount:~:text=") and mount["quote"]
        # Short questions, as Slack users ask: against the probes' whole four or five words, two words' BM25 read as
        # off topic, and the Session Objects section was refused ("does not seem to be covered")
        assert main([*common, "ask", "--json", "--site", "requests", "How do I use sessions?"]) == 0
        sessions = json.loads(capsys.readouterr().out)
        assert sessions["status"] == "answered" and "#session-objects" in sessions["references"][0]["url"]
        assert main([*common, "ask", "How do I set a timeout on a request?"]) == 0
        text = capsys.readouterr().out
        assert "Sources" in text and "[1]" in text and "extractive answer" in text
        # A site in the config that was never indexed is not searched: the user is told which, and what to run
        # (on stderr, so the answer and a --json object stay as they are).
        config = tmp_path / "docbot.toml"
        config.write_text(f'[[sites]]\nname = "requests"\nurl = "{base}"\n\n'
                          '[[sites]]\nname = "git"\nurl = "http://127.0.0.1:9/"\n', encoding="utf-8")
        assert main([*common, "--config", str(config), "ask", "--json", "How do I set a timeout on a request?"]) == 0
        out, err = capsys.readouterr()
        assert json.loads(out)["status"] == "answered"
        assert "not indexed: git" in err and "docbot index --site git" in err and "requests" not in err
        assert main([*common, "--config", str(config), "ask", "--site", "requests", "timeouts?"]) == 0
        assert "not indexed" not in capsys.readouterr().err  # asked of one site: nothing else was to be searched


def test_unindexed_note_names_what_is_not_searched() -> None:
    from docbot.commands.ask import unindexed_note

    assert unindexed_note(["flask", "git", "requests"], ["flask", "requests"]) is not None
    assert "git" in (unindexed_note(["flask", "git"], ["flask"]) or "")
    assert unindexed_note(["flask"], ["flask"]) is None
