"""Serving while the docs change: a running bot, refreshes, rebuilds, two writers at once, full disks, read-only data.

Everything runs for real: the docs on a local HTTP server, `docbot` as processes (hash embeddings), the Slack bot in
HTTP mode against a local fake Slack. A user's promise is checked the way they would: every question answered,
every link in the map of the generation that answered it, the new anchors served within seconds of a refresh.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from crawlers.model import AnchorMap
from docbot.answer import Status
from docbot.indexing.generations import Generations
from docbot.reference_log import REFERENCE_LOG, answer_from_json
from docbot.slack.fake import BOT_TOKEN, SECRET, FakeSlack, command_body, fake_slack, signed_headers
from tests.conftest import serve_directory
from tests.faults.hostile import Hostile, make_pages, serve

ROOT = Path(__file__).resolve().parents[2]
RUNNER = Path(__file__).with_name("run_cli.py")
FORM = "application/x-www-form-urlencoded"
PAGES = 12
RENAMED = range(0, PAGES, 2)  # widgets whose "Installing" heading becomes "Setting up" (a new id)
SERVED_WITHIN_S = 2.0  # questions asked this long after a refresh finished must see its anchors


def docbot(tmp: Path, *args: str) -> list[str]:
    return [sys.executable, str(RUNNER), "--data-dir", str(tmp / "data"), "--anchor-maps", str(tmp / "maps"),
            "--config", str(tmp / "docbot.toml"), *args]


def clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "OPENAI_", "DOCBOT_", "CHROMA_"))}
    return {**env, "PYTHONPATH": str(ROOT)}


def run(tmp: Path, *args: str, data: Path | None = None) -> subprocess.CompletedProcess[str]:
    cmd = docbot(tmp, *args)
    if data is not None:
        cmd[cmd.index("--data-dir") + 1] = str(data)
    return subprocess.run(cmd, capture_output=True, text=True, env=clean_env(), timeout=180, cwd=tmp, check=False)


def ok(tmp: Path, *args: str) -> str:
    done = run(tmp, *args)
    assert done.returncode == 0, done.stderr
    return done.stdout


def current_map(tmp: Path, site: str = "w") -> tuple[int, AnchorMap]:
    current = Generations(tmp / "data", site).current()
    assert current is not None
    return current.number, current.load_map()


def rename(hostile: Hostile) -> None:
    for i in RENAMED:
        page = f"p{i}.html"
        hostile.pages[page] = hostile.pages[page].replace(f'id="install-{i}">Installing', f'id="setup-{i}">Setting up')


@contextmanager
def slack_bot(tmp: Path, slack: FakeSlack) -> Iterator[str]:
    """`docbot slack` in HTTP mode as a process; yields its events URL, stops it with SIGTERM."""
    env = {**clean_env(), "SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_SIGNING_SECRET": SECRET, "SLACK_API_URL": slack.api_url}
    with (tmp / "bot.stderr").open("w", encoding="utf-8") as stderr:
        proc = subprocess.Popen(docbot(tmp, "slack", "--http", "--host", "127.0.0.1", "--port", "0", "--json"),
                                stdout=subprocess.PIPE, stderr=stderr, text=True, env=env, cwd=tmp)
        assert proc.stdout is not None
        try:
            ready, _, _ = select.select([proc.stdout], [], [], 120)
            line = proc.stdout.readline() if ready else ""
            assert line, f"the bot did not start: {(tmp / 'bot.stderr').read_text()}"
            yield json.loads(line)["url"]
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(timeout=60) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stdout.close()


class Asker(threading.Thread):
    """Sends a signed `/docs` question every ``pace`` seconds until stopped; remembers what it sent and when."""

    def __init__(self, url: str, slack: FakeSlack, pace: float = 0.15) -> None:
        super().__init__(daemon=True)
        self.url, self.slack, self.pace = url, slack, pace
        self.sent: list[tuple[str, int, float]] = []  # (response name, widget, time sent)
        self.refused: list[str] = []
        self.stop = threading.Event()

    def run(self) -> None:
        with httpx.Client(timeout=10) as client:
            n = 0
            while not self.stop.is_set():
                widget, name = n % PAGES, f"q{n}"
                body = command_body(f"How do I install widget {widget}?", self.slack.response_url(name))
                resp = client.post(self.url, content=body.encode(), headers=signed_headers(body, FORM))
                if resp.status_code != 200:
                    self.refused.append(f"{name}: HTTP {resp.status_code}")
                self.sent.append((name, widget, time.monotonic()))
                n += 1
                self.stop.wait(self.pace)


@pytest.mark.slow
def test_a_running_bot_answers_throughout_a_refresh_a_rebuild_and_a_new_site(tmp_path: Path) -> None:
    (tmp_path / "docbot.toml").write_text("", encoding="utf-8")
    (tmp_path / "gizmo").mkdir()
    (tmp_path / "gizmo" / "index.html").write_text(
        '<html><head><title>Gizmo</title></head><body><h1 id="gizmo">Gizmo</h1>'
        '<h2 id="calibrating">Calibrating the gizmo</h2><p>Calibrate the gizmo with gizmo-cal before first use.</p>'
        "</body></html>", encoding="utf-8")
    with serve(make_pages(PAGES)) as hostile, serve_directory(tmp_path / "gizmo") as gizmo_url, fake_slack() as slack:
        ok(tmp_path, "crawl", hostile.url, "--site", "w")
        ok(tmp_path, "index")
        maps = dict([current_map(tmp_path)])
        with slack_bot(tmp_path, slack) as url:
            asker = Asker(url, slack)
            asker.start()
            time.sleep(2.0)
            rename(hostile)
            ok(tmp_path, "refresh", "--site", "w")
            refreshed_at = time.monotonic()
            renamed_generation, renamed_map = current_map(tmp_path)
            maps[renamed_generation] = renamed_map
            assert renamed_map.has_anchor(hostile.url + "p2.html#setup-2")
            time.sleep(SERVED_WITHIN_S + 1.0)
            ok(tmp_path, "index", "--site", "w", "--rebuild")  # every vector embedded again while the bot answers
            number, rebuilt = current_map(tmp_path)
            maps[number] = rebuilt
            time.sleep(2.0)
            ok(tmp_path, "crawl", gizmo_url, "--site", "gizmo")
            ok(tmp_path, "index", "--site", "gizmo")
            time.sleep(1.0)
            asker.stop.set()
            asker.join()
            body = command_body("How do I calibrate the gizmo?", slack.response_url("gizmo"))
            assert httpx.post(url, content=body.encode(), headers=signed_headers(body, FORM), timeout=10).status_code == 200
            names = {name for name, _, _ in asker.sent} | {"gizmo"}
            slack.wait_for(lambda c: c.path.rsplit("/", 1)[-1] in names, count=len(names), timeout=120)

    assert not asker.refused and len(asker.sent) > 40
    texts = {c.path.rsplit("/", 1)[-1]: json.dumps(c.body, ensure_ascii=False) for c in slack.calls
             if c.path.startswith("/response/")}
    failed = [n for n, t in texts.items() if "went wrong" in t or "No index" in t or "not covered" in t.lower()]
    assert failed == [], f"questions that failed while the docs changed: {failed}"
    assert "gizmo/" not in texts["gizmo"] and "#calibrating" in texts["gizmo"]  # the site indexed while it ran

    # Every link of every answer is in the map of the generation that answered it.
    with sqlite3.connect(tmp_path / "data" / REFERENCE_LOG) as db:
        answers = [answer_from_json(json.loads(row[0])) for row in db.execute("SELECT answer_json FROM answers")]
    assert len(answers) == len(names)
    generations_seen = set()
    for answer in answers:
        assert answer.status == Status.ANSWERED, answer.question
        site = answer.references[0].site
        if site != "w":
            continue
        generation = answer.generations["w"]
        generations_seen.add(generation)
        bad = [r.url for r in answer.references if not maps[generation].has_anchor(r.url)]
        assert bad == [], f"links outside generation {generation}'s map: {bad}"
    assert set(maps) <= generations_seen  # questions were answered from each generation in turn

    # Within seconds of the refresh, the renamed sections are cited by their new anchors.
    for name, widget, sent_at in asker.sent:
        if widget in RENAMED and sent_at > refreshed_at + SERVED_WITHIN_S:
            assert f"#setup-{widget}" in texts[name], (name, widget)
        if widget in RENAMED and sent_at < refreshed_at - 5:
            assert f"#setup-{widget}" not in texts[name]


@pytest.mark.slow
def test_two_refreshes_of_one_site_take_turns_and_the_second_says_why(tmp_path: Path) -> None:
    (tmp_path / "docbot.toml").write_text("", encoding="utf-8")
    with serve(make_pages(PAGES)) as hostile:
        ok(tmp_path, "crawl", hostile.url, "--site", "w")
        ok(tmp_path, "index")
        rename(hostile)
        hostile.mode = "held"  # the first refresh's requests wait for the gate: it holds the site until then
        hostile.hits.clear()
        first = subprocess.Popen(docbot(tmp_path, "refresh", "--site", "w"), stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, env=clean_env(), cwd=tmp_path)
        try:
            deadline = time.monotonic() + 120
            while not hostile.hits and first.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)  # the lock is taken before the first request
            assert hostile.hits, f"the first refresh sent no request: {first.poll()=}"
            second = run(tmp_path, "refresh", "--site", "w")  # while the first is inside its request, so inside the lock
            assert first.poll() is None, "the first refresh ended while held"
        finally:
            hostile.released.set()
        _out, err = first.communicate(timeout=120)
    assert first.returncode == 0, err
    assert second.returncode == 1 and "Traceback" not in second.stderr
    assert "is being written by `docbot refresh` (pid" in second.stderr and "wait for it to finish" in second.stderr
    _number, amap = current_map(tmp_path)
    assert amap.has_anchor(hostile.url + "p2.html#setup-2")  # the first refresh's map, never a stale one
    assert AnchorMap.load(tmp_path / "maps" / "w.json").has_anchor(hostile.url + "p2.html#setup-2")


@contextmanager
def small_filesystem(path: Path, size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` mounted at ``path`` (the full-disk tests need root to mount one)."""
    path.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
                             capture_output=True, text=True, check=False)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small file system here ({mounted.stderr.strip()}); run the suite as root")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def fill(path: Path, leave: int) -> None:
    """Fill the file system under ``path`` until ``leave`` bytes are free."""
    with (path / "filler").open("wb") as fh:
        block = b"\0" * (1 << 20)
        while (free := shutil.disk_usage(path).free) > leave:
            fh.write(block[: max(4096, min(len(block), free - leave))])
            fh.flush()


def leftovers(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.name.startswith(".") or p.suffix == ".tmp")


@pytest.mark.slow
def test_a_full_disk_during_index_keeps_the_generation_in_use_and_says_which_file(tmp_path: Path) -> None:
    (tmp_path / "docbot.toml").write_text("", encoding="utf-8")
    with serve(make_pages(PAGES)) as hostile, small_filesystem(tmp_path / "data", "48m") as data:
        ok(tmp_path, "crawl", hostile.url, "--site", "w")
        ok(tmp_path, "index")
        before, _ = current_map(tmp_path)
        rename(hostile)
        ok(tmp_path, "crawl", "--site", "w")  # staged, waiting for its index
        fill(data, leave=64 * 1024)
        failed = run(tmp_path, "index", "--site", "w")
        assert failed.returncode == 1 and "Traceback" not in failed.stderr, failed.stderr
        assert len(failed.stderr.strip().splitlines()) == 1 and "Could not write" in failed.stderr
        assert "nothing was committed" in failed.stderr
        assert current_map(tmp_path)[0] == before and leftovers(data / "sites") == []
        asked = json.loads(ok(tmp_path, "ask", "--json", "How do I install widget 2?"))
        assert asked["status"] == "answered" and "#install-2" in asked["references"][0]["url"]
        (data / "filler").unlink()
        ok(tmp_path, "index", "--site", "w")  # the crawl was kept: indexing it now serves it
        number, amap = current_map(tmp_path)
        assert number > before and amap.has_anchor(hostile.url + "p2.html#setup-2")


@pytest.mark.slow
def test_a_full_maps_file_system_during_refresh_keeps_map_texts_and_index_together(tmp_path: Path) -> None:
    (tmp_path / "docbot.toml").write_text("", encoding="utf-8")
    with serve(make_pages(PAGES)) as hostile, small_filesystem(tmp_path / "maps", "1m") as maps:
        ok(tmp_path, "crawl", hostile.url, "--site", "w")
        ok(tmp_path, "index")
        generations = Generations(tmp_path / "data", "w")
        current = generations.current()
        assert current is not None
        texts = current.sections_file.read_bytes()
        rename(hostile)
        fill(maps, leave=4 * 1024)
        failed = run(tmp_path, "refresh", "--site", "w")
        assert failed.returncode == 1 and "Traceback" not in failed.stderr
        assert f"Could not write {maps / 'w.json'} (no space left on the device)" in failed.stderr
        assert generations.current() == current and current.sections_file.read_bytes() == texts
        assert generations.staged() is None  # nothing half-done waits to be indexed
        asked = json.loads(ok(tmp_path, "ask", "--json", "How do I install widget 2?"))
        assert "#install-2" in asked["references"][0]["url"]


@pytest.mark.slow
def test_a_read_only_data_dir_answers_read_only(tmp_path: Path) -> None:
    (tmp_path / "docbot.toml").write_text("", encoding="utf-8")
    with serve(make_pages(PAGES)) as hostile:
        ok(tmp_path, "crawl", hostile.url, "--site", "w")
        ok(tmp_path, "index")
    readonly = tmp_path / "readonly"
    readonly.mkdir()
    bound = subprocess.run(["mount", "--bind", str(tmp_path / "data"), str(readonly)], capture_output=True, text=True, check=False)
    if bound.returncode != 0:
        pytest.skip(f"cannot bind-mount here ({bound.stderr.strip()}); run the suite as root")
    try:
        assert subprocess.run(["mount", "-o", "remount,bind,ro", str(readonly)], capture_output=True, check=False).returncode == 0
        before = sorted(p.name for p in readonly.rglob("*"))
        asked = run(tmp_path, "ask", "--json", "How do I install widget 2?", data=readonly)
        assert asked.returncode == 0 and "Traceback" not in asked.stderr, asked.stderr
        assert "#install-2" in json.loads(asked.stdout)["references"][0]["url"]
        assert sorted(p.name for p in readonly.rglob("*")) == before
        refused = run(tmp_path, "index", "--site", "w", "--rebuild", data=readonly)
        assert refused.returncode == 1 and "Traceback" not in refused.stderr and "read-only" in refused.stderr.lower()
    finally:
        subprocess.run(["umount", "-l", str(readonly)], check=False)
