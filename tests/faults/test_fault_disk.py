"""Disk use: refreshes of a changing site leave the data dir's size and file count flat after the second.

Each refresh re-embeds a changed page into a new generation. The generations it retires must leave the disk
with their vectors (Chroma's collection and its segment folder), and only the newest reports stay.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docbot.refresh import RefreshReport, prune_reports, write_report
from tests.faults.conftest import Cli
from tests.faults.hostile import Hostile, doc_page

REFRESHES = 8  # enough to show growth: one segment folder and two reports a refresh before the fix
KEPT = 2


def on_disk(root: Path) -> tuple[int, int]:
    """(files, bytes) under ``root``, each file counted where it is linked, as ``find -type f`` would."""
    files = [p for p in root.rglob("*") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


@pytest.mark.usefixtures("hash_embeddings")
def test_refreshes_of_a_changing_site_leave_the_data_dir_flat_after_the_second(
        tmp_path: Path, hostile: Hostile, cli: Cli) -> None:
    assert cli("crawl", hostile.url, "--site", "w")[0] == 0
    code, out, _ = cli("index", "--site", "w")
    assert code == 0 and f"on disk: {tmp_path / 'data'} holds " in out and " files" in out
    figures, said = [], {}
    for n in range(REFRESHES):
        hostile.pages["p3.html"] = doc_page(3, f"<p>Release {n} of widget 3 changed this page.</p>")
        code, out, err = cli("refresh", "--site", "w", "--keep-reports", str(KEPT), "--json")
        assert code == 0, err
        report = json.loads(out)
        assert report["sites"][0]["index"]["embedded"] > 0  # the page changed: this refresh embedded
        figures.append(on_disk(tmp_path / "data"))
        said = report["disk"]
    files, size = zip(*figures)
    assert files[2:] == (files[1],) * (REFRESHES - 2), figures
    assert max(size[2:]) <= size[1] * 1.02, figures  # Chroma's catalogue may settle by a page or two
    assert len(list((tmp_path / "data" / "reports").iterdir())) == 2 * KEPT
    assert said["data_dir"] == str(tmp_path / "data") and 0 < said["files"] <= files[-1]
    code, out, _ = cli("index", "--site", "w", "--json")
    assert json.loads(out)["disk"]["files"] == said["files"]
    code, out, err = cli("refresh", "--site", "w", "--keep-reports", str(KEPT))
    assert code == 0 and f"docbot refresh: on disk: {tmp_path / 'data'} holds " in err and "On disk" not in out


def test_only_the_newest_refreshes_reports_are_kept_and_other_files_are_left_alone(tmp_path: Path) -> None:
    stamps = ["20261126T052246Z", "20261126T052246Z_2", "20261126T052246Z_10", "20261127T000000Z"]
    for stamp in stamps:
        for suffix in (".md", ".json"):
            (tmp_path / f"refresh-{stamp}{suffix}").write_text("{}", encoding="utf-8")
    (tmp_path / "notes.md").write_text("mine", encoding="utf-8")
    removed = prune_reports(tmp_path, 2)
    assert sorted(p.name for p in removed) == ["refresh-20261126T052246Z.json", "refresh-20261126T052246Z.md",
                                               "refresh-20261126T052246Z_2.json", "refresh-20261126T052246Z_2.md"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "notes.md", "refresh-20261126T052246Z_10.json", "refresh-20261126T052246Z_10.md",
        "refresh-20261127T000000Z.json", "refresh-20261127T000000Z.md"]


def test_refreshes_in_the_same_second_keep_their_own_reports_in_the_order_written(tmp_path: Path) -> None:
    written = [write_report(RefreshReport("2026-11-26T05:22:46Z", ()), tmp_path, keep=2)[1] for _ in range(3)]
    assert [p.name for p in written] == ["refresh-20261126T052246Z.json", "refresh-20261126T052246Z_2.json",
                                         "refresh-20261126T052246Z_3.json"]
    assert sorted((tmp_path / "reports").glob("*.json")) == written[1:]  # the newest two, sorted as written
