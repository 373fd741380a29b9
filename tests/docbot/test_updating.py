"""Writing a site's generations through the CLI: a recrawl that finds nothing changed keeps everything a crawl
records (section texts, what pages say about each other, pages' visible texts), and indexing serves it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from crawlers.texts import read_mentions
from docbot.cli import main
from docbot.indexing.bm25 import META_FILE
from docbot.indexing.embed import HashEmbedder
from docbot.indexing.generations import Generation, Generations
from docbot.indexing.index import Index
from docbot.text.words import TOKENIZER
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


def test_an_index_from_another_tokenizer_keeps_what_pages_say_of_each_other(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """An index written by an older docbot (another tokenizer) and opened by this one: the mention index is built
    again in memory, as the chunks' BM25 is, and searches as a fresh one does; the next crawl's generation, though
    nothing changed, gets both indexes again with this tokenizer."""
    monkeypatch.setattr("docbot.indexing.embed.embedder_from_spec", lambda spec, settings=None: HashEmbedder())
    monkeypatch.chdir(tmp_path)
    args = ["--data-dir", str(tmp_path / "data"), "--anchor-maps", str(tmp_path / "maps")]
    generations = Generations(tmp_path / "data", "w")

    def mentions_found() -> list[str]:
        found = Index.open(tmp_path / "data", HashEmbedder()).view().mentions("w")
        return [] if found is None else [hit[0] for hit in found.search("next", 3)]

    def tokenizers(generation: Generation) -> list[str]:
        return [json.loads(meta.read_text())["tokenizer"] for meta in
                (generation.path / "bm25" / META_FILE, generation.path / "mentions" / "w" / "bm25" / META_FILE)]

    with serve(make_pages(6)) as hostile:
        assert main([*args, "crawl", hostile.url, "--site", "w"]) == 0
        assert main([*args, "index"]) == 0
        current = generations.current()
        assert current is not None
        fresh = mentions_found()
        assert fresh
        for meta_file in (current.path / "bm25" / META_FILE, current.path / "mentions" / "w" / "bm25" / META_FILE):
            meta_file.write_text(json.dumps({**json.loads(meta_file.read_text()), "tokenizer": "words+stems/1"}))
        assert mentions_found() == fresh
        assert main([*args, "crawl", "--site", "w"]) == 0
        assert main([*args, "index"]) == 0
    latest = generations.current()
    assert latest is not None and latest.number == current.number + 1
    assert tokenizers(latest) == [TOKENIZER, TOKENIZER] and tokenizers(current) == ["words+stems/1"] * 2
    assert mentions_found() == fresh
