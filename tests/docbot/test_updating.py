"""Writing a site's generations through the CLI: a recrawl that finds nothing changed keeps everything a crawl
records (section texts, what pages say about each other, pages' visible texts), and indexing serves it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from crawlers.texts import read_mentions
from docbot.cli import main
from docbot.indexing.embed import HashEmbedder
from docbot.indexing.generations import Generations
from tests.faults.hostile import make_pages, serve


def test_a_recrawl_of_unchanged_pages_keeps_texts_mentions_and_page_texts(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("docbot.indexing.embed.embedder_from_spec", lambda spec, settings=None: HashEmbedder())
    monkeypatch.chdir(tmp_path)
    args = ["--data-dir", str(tmp_path / "data"), "--anchor-maps", str(tmp_path / "maps")]
    generations = Generations(tmp_path / "data", "w")
    with serve(make_pages(6)) as hostile:
        assert main([*args, "crawl", hostile.url, "--site", "w"]) == 0
        first = generations.latest()
        assert first is not None and read_mentions(first.mentions_file) and first.load_pages()
        assert main([*args, "index"]) == 0
        hostile.hits.clear()
        assert main([*args, "crawl", "--site", "w"]) == 0
        assert sum(hostile.conditional.values()) >= 6  # every page asked with If-None-Match: all answered 304
    second = generations.latest()
    assert second is not None and second.number == first.number + 1
    for name in ("sections.jsonl", "mentions.jsonl", "pages.jsonl"):  # the same files, shared, not rewritten
        assert os.path.samefile(first.path / name, second.path / name), name
    assert main([*args, "index", "--site", "w"]) == 0
    current = generations.current()
    assert current is not None and current.number == second.number
    assert (current.path / "mentions").is_dir() and (current.path / "headings").is_dir()
