"""kill -9 and SIGTERM of crawl, index and refresh at a random (seeded) moment: nothing half-written, nobody left.

Each case first builds a good state (crawl + index + a reference log), changes the site, then runs
one command in its own session and kills it once the server has served a random number of pages
(crawl, refresh) or after a random share of a clean run's time (index). Afterwards every file
must load, the reference log must pass SQLite's integrity check, no process of the session may be
alive, and one more ordinary run must bring map, section texts and index back in line.
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from crawlers.model import AnchorMap
from docbot.answer import Answer, Reference, Status
from docbot.indexing.embed import HashEmbedder
from docbot.indexing.generations import Generations
from docbot.indexing.index import Index
from docbot.reference_log import ReferenceLog
from tests.faults.hostile import Hostile, make_pages, serve

ROOT = Path(__file__).resolve().parents[2]
RUNNER = Path(__file__).with_name("run_cli.py")
SEED = 17
PAGES = 60  # enough that parse workers start (after 16 pages)
# refresh is killed while it crawls, and ("refresh-index") once every page is served, while it re-indexes.
CASES = [("crawl", signal.SIGKILL), ("crawl", signal.SIGTERM), ("index", signal.SIGKILL),
         ("refresh", signal.SIGKILL), ("refresh", signal.SIGTERM), ("refresh-index", signal.SIGKILL)]


def session_pids(sid: int) -> list[int]:
    """Live (not zombie) processes whose session id is ``sid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rpartition(")")[2].split()
        if int(fields[3]) == sid and fields[0] != "Z":
            found.append(int(entry.name))
    return found


def docbot(tmp: Path, *args: str) -> subprocess.Popen[bytes]:
    """Start ``docbot ARGS`` in a session of its own; its stderr goes to ``tmp/stderr.txt`` (not a pipe that
    an orphaned worker could hold open)."""
    cmd = [sys.executable, str(RUNNER), "--data-dir", str(tmp / "data"), "--anchor-maps", str(tmp / "maps"), *args]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DOCBOT_EMBEDDINGS": "local"}
    with (tmp / "stderr.txt").open("wb") as err:
        return subprocess.Popen(cmd, cwd=tmp, env=env, stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)


def finish(tmp: Path, proc: subprocess.Popen[bytes]) -> None:
    proc.wait(timeout=120)
    assert proc.returncode == 0, (tmp / "stderr.txt").read_text()


def consistent(tmp: Path) -> None:
    """Map, texts and index agree: every page with sections has its texts, the index holds exactly them."""
    current = Generations(tmp / "data", "w").current()
    assert current is not None
    amap, texts = current.load_map(), current.load_texts()
    # every page with sections has its texts, but for navigation pages (tables of contents), which have none
    assert {t.url for t in texts} == {u for u, p in amap.pages.items() if p.sections and p.source_type != "Other"}
    with Index.open(tmp / "data", HashEmbedder()) as index:
        chunks = index.chunks("w")
    assert {c.url for c in chunks} == {t.url for t in texts}


def kill_at(proc: subprocess.Popen[bytes], hostile: Hostile, rng: random.Random, command: str,
            clean_seconds: float, sig: int) -> bool:
    """Send ``sig`` at the chosen moment; False when the command had already finished."""
    if command == "index":
        time.sleep(clean_seconds * rng.uniform(0.6, 0.97))  # past the imports, before the manifest is committed
    else:
        served = PAGES + 1 if command == "refresh-index" else rng.randint(20, PAGES - 5)
        if command != "refresh-index":
            # the server holds every request past ``served``: the crawl is mid-flight when the signal comes, however
            # slowly this thread is scheduled (a command that finished before its signal proves nothing)
            hostile.hold_after = served
            served += 1
        deadline = time.monotonic() + 60
        while sum(hostile.hits.values()) < served and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        if command == "refresh-index":
            time.sleep(clean_seconds * rng.uniform(0.0, 0.4))  # the index's own imports are done already
    sent = proc.poll() is None
    try:
        if sent:
            os.kill(proc.pid, sig)
        proc.wait(timeout=30)
    finally:
        hostile.hold_after = None
        hostile.released.set()  # the held requests end; the ordinary run after this one is not held
    return sent


@pytest.mark.parametrize(("command", "sig"), CASES, ids=[f"{c}-{s.name}" for c, s in CASES])
def test_killed_command_leaves_consistent_files_and_no_process(tmp_path: Path, command: str, sig: int) -> None:
    rng = random.Random(f"{SEED}-{command}-{sig}")
    pages = make_pages(PAGES)
    with serve(pages) as hostile:
        finish(tmp_path, docbot(tmp_path, "crawl", hostile.url, "--site", "w"))
        started = time.monotonic()
        finish(tmp_path, docbot(tmp_path, "index"))
        clean_seconds = time.monotonic() - started  # of a whole index run, the one killed below does as much
        log = ReferenceLog.in_data_dir(tmp_path / "data")
        ref = Reference(1, hostile.url + "p1.html#install-1", "Installing widget 1", ("Topic 1",), "Other", "w")
        log.record(Answer("how?", Status.ANSWERED, "Install it [1].", references=(ref,)), "cli")
        for i in range(PAGES):  # a new release: every page changes, so the crawl re-parses and the index re-embeds
            pages[f"p{i}.html"] = pages[f"p{i}.html"].replace("never sleeps", f"sleeps in release {i}")
        hostile.hits.clear()
        args = {"crawl": ("crawl", "--site", "w"), "index": ("index",), "refresh": ("refresh",),
                "refresh-index": ("refresh",)}[command]
        if command == "index":
            finish(tmp_path, docbot(tmp_path, "crawl", "--site", "w"))
        proc = docbot(tmp_path, *args)
        try:
            sent = kill_at(proc, hostile, rng, command, clean_seconds, sig)
            assert sent or command in ("index", "refresh-index"), f"{command} finished before {sig.name}: no test"
            for _ in range(300):  # SIGKILL'd parse workers are reaped by init: give them a moment
                if not session_pids(proc.pid):
                    break
                time.sleep(0.01)
            assert session_pids(proc.pid) == [], f"{command} left processes behind after {sig.name}"
        finally:
            for pid in session_pids(proc.pid):  # never leave them to the next test
                os.kill(pid, signal.SIGKILL)
            if proc.poll() is None:  # reaped here: its Popen would warn in whatever test collects it
                proc.kill()
                proc.wait(timeout=30)
        if sent:  # SIGTERM: the CLI's own exit code
            assert proc.returncode == (143 if sig == signal.SIGTERM else -signal.SIGKILL)

        AnchorMap.load(tmp_path / "maps" / "w.json")  # every file is the old or the new one, never half of one
        for generation in [Generations(tmp_path / "data", "w").current(), Generations(tmp_path / "data", "w").latest()]:
            assert generation is not None
            generation.load_map(), generation.load_texts()
        with sqlite3.connect(tmp_path / "data" / "docbot.sqlite") as db:
            assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert log.iter_links() == [(1, hostile.url + "p1.html#install-1")]

        finish(tmp_path, docbot(tmp_path, "refresh"))  # the next scheduled run repairs whatever was cut short
        consistent(tmp_path)
