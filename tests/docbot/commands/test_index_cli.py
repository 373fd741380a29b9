"""`docbot index` end to end on a synthetic crawl (hash embeddings, embedded Chroma)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import docbot.indexing.embed
from crawlers.model import AnchorMap, Page, SectionText
from crawlers.texts import write_section_texts
from docbot.cli import main
from docbot.indexing.embed import HashEmbedder
from docbot.indexing.generations import Generations
from docbot.updating import stage_texts

BASE = "http://127.0.0.1:8000/"


def site_fixture() -> tuple[list[SectionText], AnchorMap]:
    pages = {BASE + f"p{i}.html": Page(BASE + f"p{i}.html", f"Page {i}", anchors=(f"s{i}",)) for i in range(5)}
    sections = [
        SectionText("demo", url, f"s{i}", f"Section {i}", 1, (page.title, f"Section {i}"), "Guides", f"Text number {i}.")
        for i, (url, page) in enumerate(pages.items())
    ]
    return sections, AnchorMap("demo", BASE, pages=pages)


@pytest.fixture()
def crawled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The site as `docbot crawl` leaves it: its map published, its texts staged as generation 1."""
    sections, amap = site_fixture()
    amap.save(tmp_path / "maps" / "demo.json")
    with Generations(tmp_path / "data", "demo").writing("crawl") as writer:
        stage_texts(writer, sections, amap)
    monkeypatch.setattr(docbot.indexing.embed, "embedder_from_settings", lambda settings: HashEmbedder())
    monkeypatch.delenv("CHROMA_URL", raising=False)
    return ["--data-dir", str(tmp_path / "data"), "--anchor-maps", str(tmp_path / "maps"), "--config", str(tmp_path / "none.toml")]


def test_index_json_then_noop(crawled: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "none.toml").write_text("")
    assert main([*crawled, "index", "--json"]) == 0
    first = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert first[0]["site"] == "demo" and first[0]["chunks"] == 5 and first[0]["embedded"] == 5
    assert set(first[0]) == {"site", "generation", "chunks", "embedded", "reused", "deleted", "seconds", "disk"}
    disk = first[0]["disk"]  # what the data dir holds once the site is indexed
    assert disk["data_dir"] == str(tmp_path / "data") and disk["files"] > 0 and disk["bytes"] > 0
    assert main([*crawled, "index", "--site", "demo"]) == 0  # nothing new crawled: the generation in use stays
    assert "demo: generation 1, 5 chunks, 0 embedded, 5 reused, 0 deleted" in capsys.readouterr().out
    assert main([*crawled, "index", "--site", "demo", "--rebuild", "--json"]) == 0
    rebuilt = json.loads(capsys.readouterr().out)
    assert (rebuilt["generation"], rebuilt["embedded"]) == (2, 5)


def test_a_data_dir_from_before_generations_is_indexed_as_generation_1(crawled: list[str], tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Texts in ``sites/<site>/sections.jsonl`` beside the published map, no generation: `docbot index` adopts them."""
    (tmp_path / "none.toml").write_text("")
    sections, _ = site_fixture()
    for path in (tmp_path / "data" / "sites" / "demo").iterdir():
        if path.is_dir():
            shutil.rmtree(path)  # the layout from before generations has none
    write_section_texts(tmp_path / "data" / "sites" / "demo" / "sections.jsonl", sections)
    assert main([*crawled, "index", "--json"]) == 0
    adopted = json.loads(capsys.readouterr().out.splitlines()[0])
    assert (adopted["site"], adopted["generation"], adopted["chunks"]) == ("demo", 1, 5)


def test_missing_anchor_map_names_crawl(crawled: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "none.toml").write_text("")
    assert main([*crawled, "index", "--site", "nosuch"]) == 1
    assert "docbot crawl URL --site nosuch" in capsys.readouterr().err


def test_building_bm25_prints_no_debug_lines_at_the_default_level() -> None:
    """bm25s turns its own logger to DEBUG when imported; docbot's default level (WARNING) must win."""
    import subprocess
    import sys

    code = ("import logging; logging.basicConfig(level=logging.WARNING)\n"
            "from docbot.indexing.bm25 import Lexical\n"
            "Lexical.build(['a', 'b'], ['session cookie secure', 'templates jinja'], 'h')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "DEBUG" not in out.stderr, out.stderr
