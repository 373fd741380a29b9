"""Files in the data dir and anchor_maps/: a stray file stops no command, and modes follow the umask.

docbot runs as a real process (``run_cli.py``, hash embeddings) against a site on 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.faults.conftest import Cli
from tests.faults.hostile import Hostile

ROOT = Path(__file__).resolve().parents[2]
RUNNER = Path(__file__).with_name("run_cli.py")
QUESTION = "how do I install widget 3?"


def docbot(tmp: Path, *args: str, umask: int = 0o022) -> subprocess.CompletedProcess[str]:
    """``docbot ARGS`` as a process of its own, under ``umask``, with no docbot.toml around."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DOCBOT_", "OPENAI_", "SLACK_"))}
    env["PYTHONPATH"] = str(ROOT)
    cmd = [sys.executable, str(RUNNER), "--data-dir", str(tmp / "data"), "--anchor-maps", str(tmp / "maps"), *args]
    return subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True, timeout=300, input="",
                          preexec_fn=lambda: os.umask(umask), check=False)  # the child's umask is the point


@pytest.mark.parametrize("stray", ["notes copy.json", "README.json", "-draft.json"])
def test_a_stray_file_in_anchor_maps_stops_no_command(tmp_path: Path, hostile: Hostile, stray: str) -> None:
    assert docbot(tmp_path, "crawl", hostile.url, "--site", "w").returncode == 0
    (tmp_path / "maps" / stray).write_text('{"notes": "a copy someone kept"}\n', encoding="utf-8")
    for args in (("index",), ("ask", QUESTION), ("refresh", "--no-index"), ("check-links",)):
        run = docbot(tmp_path, *args)
        assert run.returncode == 0, (args, run.stderr)
        assert "Traceback" not in run.stderr
        if args[0] != "index":  # index reads the data dir's generations, never anchor_maps/
            assert f"{stray}" in run.stderr and "skipped" in run.stderr, (args, run.stderr)
    assert "Installing widget 3" in docbot(tmp_path, "ask", QUESTION).stdout


def modes(root: Path) -> dict[str, int]:
    """Permission bits of every file and folder docbot wrote under ``root`` (Chroma's own files aside)."""
    found = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if rel.parts[:2] in (("data", "chroma"),):
            continue
        found[str(rel)] = stat.S_IMODE(path.stat().st_mode)
    return found


@pytest.mark.parametrize(("umask", "file_mode", "dir_mode"), [(0o022, 0o644, 0o755), (0o027, 0o640, 0o750)])
def test_files_and_folders_follow_the_umask(tmp_path: Path, hostile: Hostile, umask: int, file_mode: int,
                                            dir_mode: int) -> None:
    assert docbot(tmp_path, "crawl", hostile.url, "--site", "w", umask=umask).returncode == 0
    assert docbot(tmp_path, "index", umask=umask).returncode == 0
    hostile.pages["p1.html"] = hostile.pages["p1.html"].replace("install-1", "installing-1")
    assert docbot(tmp_path, "refresh", umask=umask).returncode == 0
    written = modes(tmp_path)
    assert "maps/w.json" in written and "data/sites/w/CURRENT" in written and "data/sites/w/lock" in written
    assert any(name.endswith("/sections.jsonl") for name in written) and any("/bm25/" in name for name in written)
    assert any(name.endswith("/chunks.json") for name in written)
    assert any(name.startswith("data/reports/refresh-") for name in written)
    wrong = {name: oct(mode) for name, mode in written.items()
             if mode != (dir_mode if (tmp_path / name).is_dir() else file_mode)}
    assert not wrong


def test_a_map_keeps_its_mode_across_a_refresh(tmp_path: Path, hostile: Hostile) -> None:
    assert docbot(tmp_path, "crawl", hostile.url, "--site", "w", umask=0o077).returncode == 0
    path = tmp_path / "maps" / "w.json"
    path.chmod(0o644)  # shared on purpose: the refresh workflow commits it
    hostile.pages["p1.html"] = hostile.pages["p1.html"].replace("install-1", "installing-1")
    assert docbot(tmp_path, "refresh", "--no-index", umask=0o077).returncode == 0
    assert "installing-1" in path.read_text(encoding="utf-8")
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


@pytest.fixture()
def indexed(cli: Cli, hostile: Hostile, tmp_path: Path) -> list[Path]:
    """Site ``w`` crawled and indexed; returns every path in the data dir (to check that nothing is lost)."""
    assert cli("crawl", hostile.url, "--site", "w")[0] == 0
    assert cli("index")[0] == 0
    return sorted((tmp_path / "data").rglob("*"))


def _one_line(err: str) -> bool:
    return len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.usefixtures("hash_embeddings")
@pytest.mark.parametrize(("batch", "says"), [
    ("/etc", "docbot ask: batch file /etc is a directory — pass a file with one question a line"),
    ("/dev/null", "docbot ask: batch file /dev/null has no questions — put one question a line in it (or JSON lines "
                  "with a 'question' field)"),
    ("blank.txt", "docbot ask: batch file blank.txt has no questions — put one question a line in it (or JSON lines "
                  "with a 'question' field)"),
    ("missing.txt", "docbot ask: batch file missing.txt does not exist"),
], ids=["directory", "dev-null", "blank-lines", "missing"])
def test_a_batch_that_is_not_a_file_of_questions_says_what_it_is(cli: Cli, indexed: list[Path], tmp_path: Path,
                                                                 batch: str, says: str) -> None:
    (tmp_path / "blank.txt").write_text("\n   \n\n", encoding="utf-8")
    code, out, err = cli("ask", "--batch", batch)
    assert code == 2 and out == "" and _one_line(err) and err.strip() == says
    assert sorted((tmp_path / "data").rglob("*")) == indexed


@pytest.mark.usefixtures("hash_embeddings")
def test_an_unreadable_batch_file_says_so(cli: Cli, indexed: list[Path], tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import docbot.commands.ask

    (tmp_path / "q.txt").write_text(QUESTION + "\n", encoding="utf-8")

    def refused(path: str, *args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied", path)  # as for a mode-000 file (root would read it anyway)

    monkeypatch.setattr(docbot.commands.ask, "open", refused, raising=False)
    code, out, err = cli("ask", "--batch", "q.txt")
    assert code == 2 and out == "" and _one_line(err)
    assert err.strip() == "docbot ask: cannot read batch file q.txt (Permission denied) — check its permissions"
    assert sorted((tmp_path / "data").rglob("*")) == indexed


@pytest.mark.usefixtures("hash_embeddings")
def test_an_empty_batch_on_stdin_says_it_has_no_questions(cli: Cli, indexed: list[Path],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"\n")))
    code, out, err = cli("ask", "--batch", "-")
    assert code == 2 and out == "" and err.strip() == (
        "docbot ask: the batch on standard input has no questions — put one question a line in it (or JSON lines "
        "with a 'question' field)")


def _two_generations(cli: Cli, hostile: Hostile, tmp_path: Path) -> Path:
    """Site ``w`` with generation 2 current and 1 before it; returns its CURRENT file."""
    assert cli("crawl", hostile.url, "--site", "w")[0] == 0
    assert cli("index")[0] == 0
    assert cli("index", "--rebuild")[0] == 0
    current = tmp_path / "data" / "sites" / "w" / "CURRENT"
    assert json.loads(current.read_text(encoding="utf-8")) == {"current": 2, "previous": 1}
    return current


def _collections(tmp_path: Path) -> list[str]:
    from docbot.indexing.store import make_client

    return sorted(c.name for c in make_client(tmp_path / "data").list_collections())


@pytest.mark.usefixtures("hash_embeddings")
@pytest.mark.parametrize(("pointer", "why"), [
    ('{"current": 9, "previous": 2}', "names generation 9, which is missing"),
    ("garbage{", "is not a generation pointer ('garbage{')"),
    ("", "is not a generation pointer ('')"),
], ids=["missing-generation", "garbage", "empty"])
def test_a_broken_current_recovers_to_the_newest_whole_generation(cli: Cli, hostile: Hostile, tmp_path: Path,
                                                                  caplog: pytest.LogCaptureFixture, pointer: str,
                                                                  why: str) -> None:
    current = _two_generations(cli, hostile, tmp_path)
    generations = sorted((tmp_path / "data" / "sites" / "w" / "generations").iterdir())
    collections = _collections(tmp_path)
    current.write_text(pointer, encoding="utf-8")
    caplog.clear()
    code, out, err = cli("ask", QUESTION)  # a reader answers from the newest whole generation and writes nothing
    assert code == 0 and "Installing widget 3" in out and "Traceback" not in err
    assert [r.getMessage() for r in caplog.records if r.levelname == "WARNING"] == [
        f"CURRENT of site 'w' {why}; answering from generation 2, the newest whole one — `docbot index --site w` "
        "points CURRENT at it"]
    assert current.read_text(encoding="utf-8") == pointer
    caplog.clear()
    code, out, err = cli("index")  # a writer, under the site's lock, points CURRENT at it and embeds nothing
    assert code == 0 and "w: generation 2," in out and " 0 embedded" in out and "Traceback" not in err
    assert [r.getMessage() for r in caplog.records if r.levelname == "WARNING"] == [
        f"Recovered site 'w': CURRENT {why}; it now names generation 2, the newest whole one"]
    assert json.loads(current.read_text(encoding="utf-8")) == {"current": 2, "previous": 1}
    assert sorted((tmp_path / "data" / "sites" / "w" / "generations").iterdir()) == generations  # nothing lost
    assert _collections(tmp_path) == collections
    caplog.clear()
    code, out, err = cli("ask", QUESTION)
    assert code == 0 and "Installing widget 3" in out and err == "" and not caplog.records


@pytest.mark.usefixtures("hash_embeddings")
def test_a_running_reader_keeps_answering_through_a_broken_current_and_its_recovery(cli: Cli, hostile: Hostile,
                                                                                    tmp_path: Path) -> None:
    from docbot.indexing.embed import HashEmbedder
    from docbot.indexing.index import Index

    current = _two_generations(cli, hostile, tmp_path)
    with Index.open(tmp_path / "data", HashEmbedder()) as index:
        assert index.view().generations() == {"w": 2}
        current.write_text('{"current": 9, "previous": 2}', encoding="utf-8")
        assert index.view().generations() == {"w": 2}
        assert index.view().dense("install widget 3", k=1)
        assert cli("index")[0] == 0  # recovers CURRENT: the reader stays where it is
        view = index.view()
        assert view.generations() == {"w": 2} and view.dense("install widget 3", k=1)
        current.write_text("garbage{", encoding="utf-8")
        assert cli("refresh")[0] == 0  # recovers CURRENT, then crawls and commits generation 3 as usual
        view = index.view()
        assert view.generations() == {"w": 3} and view.dense("install widget 3", k=1)
        assert json.loads(current.read_text(encoding="utf-8")) == {"current": 3, "previous": 2}


@pytest.mark.usefixtures("hash_embeddings")
def test_a_current_with_no_generation_left_says_what_to_run(cli: Cli, hostile: Hostile, tmp_path: Path,
                                                           caplog: pytest.LogCaptureFixture) -> None:
    import shutil

    _two_generations(cli, hostile, tmp_path)
    shutil.rmtree(tmp_path / "data" / "sites" / "w" / "generations")
    code, out, err = cli("ask", QUESTION)
    assert code == 1 and "Traceback" not in err and "run `docbot crawl URL --site NAME` and then `docbot index`" in err
    assert "CURRENT of site 'w' names generation 2, which is missing, and no generation of it is whole — run " \
           "`docbot crawl URL --site w`, then `docbot index --site w`" in caplog.text
    code, out, err = cli("index")
    assert code == 1 and "run `docbot crawl URL --site w` first" in err and "Traceback" not in err
    assert cli("crawl", hostile.url, "--site", "w")[0] == 0  # doing what it says works
    assert cli("index")[0] == 0
    code, out, err = cli("ask", QUESTION)
    assert code == 0 and "Installing widget 3" in out
