"""scripts/serve_docs.py serves several roots on 127.0.0.1 and prints where."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "serve_docs.py"


def test_serves_each_site_root_and_prints_base_urls(tmp_path: Path) -> None:
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "index.html").write_text(f"<h1 id='{name}'>{name}</h1>", encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, str(SCRIPT), "--site", f"one={tmp_path / 'one'}", "--site", f"two={tmp_path / 'two'}"],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert proc.stdout is not None
        urls = json.loads(proc.stdout.readline())
        assert sorted(urls) == ["one", "two"]
        for name, base in urls.items():
            assert base.startswith("http://127.0.0.1:") and base.endswith("/")
            with urllib.request.urlopen(base + "index.html") as response:
                assert f"id='{name}'" in response.read().decode()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        if proc.stdout:
            proc.stdout.close()
    assert proc.returncode == 0


def test_missing_root_is_reported(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--site", f"x={tmp_path / 'nope'}"], capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode != 0 and "is not a directory" in done.stderr
