"""Whole real documentation sites served on 127.0.0.1: every linked page, every gold anchor, 304 recrawls."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from urllib.parse import urljoin

import lxml.html
import pytest

from crawlers.crawl import CrawlConfig, crawl
from crawlers.model import map_path
from crawlers.urls import normalize
from tests.conftest import EVAL_ROOTS, serve_directory
from tests.crawling import crawl_as_cli

pytestmark = pytest.mark.slow


def linked_files(root: Path, base: str) -> set[str]:
    """HTML files reachable from the root index by ``<a href>`` links, found by walking the files (no HTTP)."""
    files = {normalize(base + p.relative_to(root).as_posix()): p for p in root.rglob("*.html")}
    todo, reached = [normalize(base + "index.html")], set()
    while todo:
        url = todo.pop()
        if url in reached or url not in files:
            continue
        reached.add(url)
        for href in lxml.html.fromstring(files[url].read_bytes()).xpath("//a/@href"):
            try:
                todo.append(normalize(urljoin(url, href).partition("#")[0]))
            except ValueError:
                continue
    return reached


def without_timestamp(text: str) -> str:
    return re.sub(r'"crawled_at": "[^"]*"', '"crawled_at": ""', text)


def gold_links(questions: list[dict], site: str) -> list[str]:
    return [link for q in questions if q["site"] == site for link in q["gold"] + q["accept"]]


def test_flask_full_crawl_then_unchanged_recrawl_is_all_304(tmp_path: Path, eval_questions: list[dict]) -> None:
    root = EVAL_ROOTS["flask"]
    with serve_directory(root) as base:
        config = CrawlConfig(site="flask", start_url=base)
        first, _ = crawl_as_cli(config, tmp_path / "maps", tmp_path / "data")
        before = map_path(tmp_path / "maps", "flask").read_text(encoding="utf-8")
        assert linked_files(root, base) <= set(first.map.pages)
        links = gold_links(eval_questions, "flask")
        assert links and [link for link in links if not first.map.has_anchor(base + link)] == []
        assert first.map.page(base + "api.html").source_type == "API reference"  # type: ignore[union-attr]

        second, _ = crawl_as_cli(config, tmp_path / "maps", tmp_path / "data")
        assert second.stats.not_modified == len(first.map.pages) and second.stats.fetched == 0
        after = map_path(tmp_path / "maps", "flask").read_text(encoding="utf-8")
        assert without_timestamp(after) == without_timestamp(before)
        assert second.texts == first.texts and not second.report.pages_removed


def test_drf_directory_pages_and_gold_anchors(eval_questions: list[dict]) -> None:
    root = EVAL_ROOTS["drf"]
    with serve_directory(root) as base:
        result = asyncio.run(crawl(CrawlConfig(site="drf", start_url=base)))
    assert linked_files(root, base) <= set(result.map.pages)
    links = gold_links(eval_questions, "drf")
    assert links and [link for link in links if not result.map.has_anchor(base + link)] == []
    page = result.map.pages[base + "api-guide/serializers/index.html"]
    assert base + "api-guide/serializers/" in page.aliases
    for link in links:  # the directory spelling of every gold link resolves to the same anchors
        dir_form = base + link.replace("index.html#", "#")
        assert result.map.has_anchor(dir_form), dir_form


def test_requests_gold_anchors(eval_questions: list[dict]) -> None:
    with serve_directory(EVAL_ROOTS["requests"]) as base:
        result = asyncio.run(crawl(CrawlConfig(site="requests", start_url=base)))
    links = gold_links(eval_questions, "requests")
    assert links and [link for link in links if not result.map.has_anchor(base + link)] == []
