"""Server mode: the index against a real `chroma run` on 127.0.0.1."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from crawlers.model import AnchorMap, Page, SectionText
from docbot.indexing.embed import HashEmbedder
from docbot.indexing.index import Index
from docbot.updating import index_texts

BASE = "http://127.0.0.1:8000/"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture()
def chroma_server(tmp_path: Path) -> Iterator[str]:
    port = _free_port()
    chroma = Path(sys.executable).with_name("chroma")
    proc = subprocess.Popen(
        [str(chroma), "run", "--path", str(tmp_path / "server"), "--port", str(port), "--host", "127.0.0.1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{url}/api/v2/heartbeat", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail("`chroma run` did not start within 30 s")
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


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
