"""Server mode: the index against a real `chroma run` on 127.0.0.1 (the ``chroma_server`` fixture of tests/chroma.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from crawlers.model import AnchorMap, Page, SectionText
from docbot.indexing.embed import HashEmbedder
from docbot.indexing.index import Index
from docbot.updating import index_texts

BASE = "http://127.0.0.1:8000/"


@pytest.mark.slow
def test_build_and_query_through_chroma_server(chroma_server: str, tmp_path: Path) -> None:
    page = BASE + "config.html"
    amap = AnchorMap("demo", BASE, pages={page: Page(page, "Configuration", anchors=("SECRET_KEY", "TESTING"))})
    sections = [
        SectionText("demo", page, "SECRET_KEY", "SECRET_KEY", 2, ("Configuration", "SECRET_KEY"), "Guides",
                    "A secret key used to sign session cookies."),
        SectionText("demo", page, "TESTING", "TESTING", 2, ("Configuration", "TESTING"), "Guides",
                    "Enable testing mode."),
    ]
    with Index.open(tmp_path / "data", HashEmbedder(), chroma_url=chroma_server) as index:
        assert index_texts(index, "demo", sections, amap).embedded == 2
    assert not (tmp_path / "data" / "chroma").exists()  # vectors live on the server
    with Index.open(tmp_path / "data", HashEmbedder(), chroma_url=chroma_server) as again:
        assert index_texts(again, "demo", sections, amap).embedded == 0
        hit, score = again.dense("secret key session cookies", k=1)[0]
    assert hit.deep_url == page + "#SECRET_KEY" and score > 0.5
