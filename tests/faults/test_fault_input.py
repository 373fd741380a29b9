"""Hostile questions: echoed input is cleaned as accepted input is, and a batch answers every line it can.

``docbot`` runs as a process of its own (``run_cli.py``, hash embeddings) over a site on 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.faults.hostile import Hostile

ROOT = Path(__file__).resolve().parents[2]
RUNNER = Path(__file__).with_name("run_cli.py")
GOOD = "how do I install widget 3?"
# NUL, the right-to-left override, a lone surrogate, other controls: never to be echoed.
BAD_CHARS = ("\x00", "\u202e", "\ud800", "\udcff", "\x1b", "\x07")


def docbot(tmp: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DOCBOT_", "OPENAI_", "SLACK_"))}
    cmd = [sys.executable, str(RUNNER), "--data-dir", str(tmp / "data"), "--anchor-maps", str(tmp / "maps"), *args]
    return subprocess.run(cmd, cwd=tmp, env={**env, "PYTHONPATH": str(ROOT)}, capture_output=True, timeout=300, check=False)


def built(tmp: Path, hostile: Hostile) -> None:
    assert docbot(tmp, "crawl", hostile.url, "--site", "w").returncode == 0
    assert docbot(tmp, "index").returncode == 0


def test_a_batch_answers_every_line_it_can_and_echoes_nothing_raw(tmp_path: Path, hostile: Hostile) -> None:
    built(tmp_path, hostile)
    lines = [
        GOOD,
        json.dumps({"question": "\x00\x00\x00\u202e\x01\x02 binary"}),  # rejected as binary
        json.dumps({"question": "\udcff\ud800"}),  # lone surrogates only (no pair): rejected
        json.dumps({"question": "install widget 3 \ud800 \u202e"}),  # accepted, cleaned
        json.dumps({"question": GOOD, "site": "\ud800"}),  # no such site
        json.dumps({"question": GOOD, "site": 5}),
        json.dumps({"question": 5}),
        GOOD,
    ]
    batch = tmp_path / "q.jsonl"
    batch.write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogatepass")
    run = docbot(tmp_path, "ask", "--json", "--batch", str(batch))
    assert run.returncode == 0 and b"Traceback" not in run.stderr, run.stderr.decode(errors="replace")
    rows = [json.loads(line) for line in run.stdout.decode("utf-8").splitlines()]
    assert [r["status"] for r in rows] == ["answered", "error", "error", "answered", "error", "error", "error",
                                           "answered"]
    assert rows[1]["question"] == "binary" and rows[3]["question"] == "install widget 3"
    assert "line 5: Site name '\\ud800' is not allowed" in rows[4]["error"]
    assert "line 6: \"site\" must be a site name" in rows[5]["error"]
    assert "line 7: \"question\" must be a string" in rows[6]["error"]
    for row in rows:
        shown = json.dumps(row, ensure_ascii=False)
        assert not [c for c in BAD_CHARS if c in shown], row


def test_stdin_that_is_not_utf8_is_read_as_text_not_a_crash(tmp_path: Path, hostile: Hostile) -> None:
    built(tmp_path, hostile)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DOCBOT_", "OPENAI_", "SLACK_"))}
    cmd = [sys.executable, str(RUNNER), "--data-dir", str(tmp_path / "data"), "--anchor-maps", str(tmp_path / "maps"),
           "ask", "--json", "--batch", "-"]
    run = subprocess.run(cmd, cwd=tmp_path, env={**env, "PYTHONPATH": str(ROOT)}, capture_output=True, timeout=300,
                         input=b"\xff\xfe\xfd\x00\x01\n" + GOOD.encode() + b"\n", check=False)
    assert run.returncode == 0, run.stderr.decode(errors="replace")
    rows = [json.loads(line) for line in run.stdout.decode("utf-8").splitlines()]
    assert [r["status"] for r in rows] == ["error", "answered"]
    assert not [c for c in BAD_CHARS if c in rows[0]["question"]]


def test_a_question_rejected_as_binary_is_echoed_cleaned(tmp_path: Path, hostile: Hostile) -> None:
    built(tmp_path, hostile)
    run = docbot(tmp_path, "ask", "--json", "\x01\x02\x03\x04\x05\u202eevil\x06\x1b[31m")
    data = json.loads(run.stdout.decode("utf-8"))
    assert run.returncode == 1 and data["status"] == "error" and "binary" in data["error"]
    assert data["question"] == "evil [31m"
