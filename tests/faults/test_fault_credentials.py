"""Credentials: only from docbot.toml's ``auth`` (the password from the environment), sent to the site's origin
only, and written nowhere — not in the map, the texts, the reports, the output or the logs.

``docbot`` runs as a process of its own against two recording servers on 127.0.0.1 (two origins).
"""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.crawlers.recording_server import Recorder, page, recording_server

ROOT = Path(__file__).resolve().parents[2]
RUNNER = Path(__file__).with_name("run_cli.py")
SECRET = "hunter2-s3cret"


@pytest.fixture()
def servers() -> Iterator[tuple[Recorder, Recorder]]:
    with recording_server() as site, recording_server() as elsewhere:
        site.routes.update({"/robots.txt": (200, {}, f"Sitemap: {elsewhere.origin}/sitemap.xml\n"),
                            "/docs/index.html": page("Home", '<a href="guide.html">guide</a>'),
                            "/docs/guide.html": page("Guide")})
        elsewhere.routes["/sitemap.xml"] = (200, {}, '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"/>')
        yield site, elsewhere


def docbot(tmp: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DOCBOT_", "OPENAI_", "SLACK_"))}
    cmd = [sys.executable, str(RUNNER), "--data-dir", str(tmp / "data"), "--anchor-maps", str(tmp / "maps"),
           "--config", str(tmp / "docbot.toml"), *args]
    return subprocess.run(cmd, cwd=tmp, env={**clean, "PYTHONPATH": str(ROOT), **(env or {})}, capture_output=True,
                          text=True, timeout=300, check=False)


def leaks(tmp: Path, runs: list[subprocess.CompletedProcess[str]]) -> list[str]:
    """Where the secret (or its Basic encoding) was written: files under ``tmp``, or a run's output."""
    needles = (SECRET, base64.b64encode(f"docbot:{SECRET}".encode()).decode())
    found = [str(p) for p in tmp.rglob("*") if p.is_file() and any(n.encode() in p.read_bytes() for n in needles)]
    found += [f"run {i}" for i, r in enumerate(runs) if any(n in r.stdout + r.stderr for n in needles)]
    return found


def test_credentials_in_the_start_url_are_neither_sent_nor_written(tmp_path: Path,
                                                                   servers: tuple[Recorder, Recorder]) -> None:
    site, _ = servers
    (tmp_path / "docbot.toml").write_text("", encoding="utf-8")
    url = site.origin.replace("http://", f"http://docbot:{SECRET}@") + "/docs/"
    runs = [docbot(tmp_path, "crawl", url, "--site", "w", "--json"), docbot(tmp_path, "crawl", url, "--site", "w"),
            docbot(tmp_path, "refresh", "--no-index"), docbot(tmp_path, "refresh", "--no-index", "--json")]
    assert [r.returncode for r in runs] == [0, 0, 0, 0], runs[0].stderr
    assert "carries credentials" in runs[0].stderr and "password_env" in runs[0].stderr
    assert site.authorized() == [] and "/docs/guide.html" in site.paths()
    assert leaks(tmp_path, runs) == []


def test_configured_credentials_reach_the_sites_origin_only_and_are_written_nowhere(
        tmp_path: Path, servers: tuple[Recorder, Recorder]) -> None:
    site, elsewhere = servers
    (tmp_path / "docbot.toml").write_text(
        f'[[sites]]\nname = "w"\nurl = "{site.origin}/docs/"\nallow_origins = ["{elsewhere.origin}"]\n'
        'auth = { username = "docbot", password_env = "W_DOCS_PASSWORD" }\n', encoding="utf-8")
    env = {"W_DOCS_PASSWORD": SECRET}
    runs = [docbot(tmp_path, "-vv", "crawl", "--site", "w", "--json", env=env),  # debug logs too
            docbot(tmp_path, "-vv", "refresh", "--no-index", env=env)]
    assert [r.returncode for r in runs] == [0, 0], runs[0].stderr
    assert site.paths() and site.authorized() == site.paths()  # robots.txt, pages and sitemaps of the site
    assert elsewhere.paths() == ["/sitemap.xml", "/sitemap.xml"] and elsewhere.authorized() == []
    assert leaks(tmp_path, runs) == []
