"""Segment folders of deleted collections leave the store; a kept generation's folder, and its readers, stay."""

from __future__ import annotations

from pathlib import Path

from docbot.indexing.embed import HashEmbedder
from docbot.indexing.index import Index
from docbot.indexing.segments import SEGMENT_FOLDER, sweep_segments
from docbot.updating import index_texts
from tests.docbot.indexing.test_index import site_fixture

QUESTION = "session cookie over HTTPS"


def segment_folders(data_dir: Path) -> set[str]:
    return {p.name for p in (data_dir / "chroma").iterdir() if SEGMENT_FOLDER.fullmatch(p.name)}


def test_a_retired_generations_folder_goes_and_the_kept_ones_answer_their_readers(tmp_path: Path) -> None:
    with Index.open(tmp_path, HashEmbedder()) as writer, Index.open(tmp_path, HashEmbedder()) as reader:
        for release in range(1, 6):
            index_texts(writer, "demo", *site_fixture(cookie_text=f"Send the session cookie over HTTPS, release {release}."))
            assert len(segment_folders(tmp_path)) == min(release, 2)  # the current and the previous generation
            assert [c.anchor for c, _ in reader.view().dense(QUESTION, k=1)] == ["SESSION_COOKIE_SECURE"]
    with Index.open(tmp_path, HashEmbedder()) as again:  # a new process reads the current generation whole
        view = again.view()
        assert view.generations() == {"demo": 5}
        assert any("release 5" in c.text for c, _ in view.dense(QUESTION, k=5))
    assert len(segment_folders(tmp_path)) == 2  # closing the clients brings no folder back


def test_a_kept_generations_reader_keeps_answering_after_the_next_commit(tmp_path: Path) -> None:
    with Index.open(tmp_path, HashEmbedder()) as writer, Index.open(tmp_path, HashEmbedder()) as reader:
        index_texts(writer, "demo", *site_fixture(cookie_text="Release 1 of the cookie."))
        index_texts(writer, "demo", *site_fixture(cookie_text="Release 2 of the cookie."))
        serving = reader.view()  # generation 2, mid-question while generation 3 is committed
        index_texts(writer, "demo", *site_fixture(cookie_text="Release 3 of the cookie."))
        assert serving.generations() == {"demo": 2}
        assert len(serving.dense(QUESTION, k=5)) == 5  # its vectors (the previous generation's) are kept


def test_nothing_is_swept_when_the_catalogue_cannot_be_read(tmp_path: Path) -> None:
    orphan = tmp_path / "0d9b2c1e-5a4f-4e3b-9c2d-1f0e9d8c7b6a"
    orphan.mkdir()
    (orphan / "header.bin").write_bytes(b"x")
    (tmp_path / "notes").mkdir()
    assert sweep_segments(tmp_path) == []  # no catalogue
    (tmp_path / "chroma.sqlite3").write_bytes(b"not a database")
    assert sweep_segments(tmp_path) == []  # a damaged one
    assert orphan.is_dir() and (tmp_path / "notes").is_dir()
    assert sweep_segments(tmp_path / "missing") == []
