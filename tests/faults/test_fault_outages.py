"""Outages through the CLI: what is kept and what the exit code says when the docs server misbehaves."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from crawlers.crawl import CrawlConfig
from crawlers.model import AnchorMap
from docbot.indexing.embed import HashEmbedder
from docbot.indexing.generations import Generations
from docbot.indexing.index import Index
from tests.crawling import crawl_as_cli
from tests.faults.conftest import PAGES, Cli
from tests.faults.hostile import Hostile


def snapshot(tmp_path: Path) -> tuple[str, bytes, int | None]:
    """The published map's bytes (timestamp aside), the newest crawl's section texts and the generation in use."""
    amap = AnchorMap.load(tmp_path / "maps" / "w.json")
    amap.crawled_at = ""
    generations = Generations(tmp_path / "data", "w")
    latest = generations.latest()
    assert latest is not None
    return amap.dumps(), latest.sections_file.read_bytes(), generations.pointer()[0]


def chunk_count(tmp_path: Path) -> int:
    with Index.open(tmp_path / "data", HashEmbedder()) as index:
        return len(index.chunks("w"))


@pytest.mark.usefixtures("hash_embeddings")
def test_soft_outage_keeps_map_and_index_and_names_the_pages(hostile: Hostile, cli: Cli, tmp_path: Path) -> None:
    assert cli("crawl", hostile.url, "--site", "w")[0] == 0
    assert cli("index", "--site", "w")[0] == 0
    before, chunks = snapshot(tmp_path), chunk_count(tmp_path)
    hostile.mode = "maintenance"  # every page answers 200 "Down for maintenance"
    code, out, err = cli("refresh", "--site", "w", "--json")
    assert code == 1
    report = json.loads(out)
    assert report["ok"] is False and "anchors" in report["sites"][0]["error"]
    assert any("p3.html" in page and "→ 0 anchors" in page for page in report["sites"][0]["changed_shape"])
    assert "w: crawl refused" in err and "Traceback" not in err
    assert snapshot(tmp_path) == before and chunk_count(tmp_path) == chunks
    code, _, err = cli("crawl", "--site", "w")
    assert code == 1 and "changed shape" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("command", [("crawl",), ("refresh", "--no-index")])
def test_total_5xx_outage_fails_and_keeps_the_map(hostile: Hostile, cli: Cli, tmp_path: Path,
                                                   command: tuple[str, ...]) -> None:
    assert cli("crawl", hostile.url, "--site", "w")[0] == 0
    before = snapshot(tmp_path)
    hostile.mode = "all500"
    code, out, err = cli(*command, "--site", "w")
    assert code == 1 and "looks down" in err and "Traceback" not in err
    assert "all sites refreshed" not in out
    assert snapshot(tmp_path) == before


def test_half_404_refresh_force_refetches_and_still_guards(hostile: Hostile, cli: Cli, tmp_path: Path) -> None:
    assert cli("crawl", hostile.url, "--site", "w")[0] == 0
    before = snapshot(tmp_path)
    hostile.conditional.clear()
    assert cli("refresh", "--no-index", "--force", "--site", "w")[0] == 0
    assert sum(hostile.conditional.values()) == 0 and hostile.hits["p1.html"] == 2  # refetched, unconditionally
    hostile.mode = "half404"
    code, _, err = cli("refresh", "--no-index", "--force", "--site", "w")
    assert code == 1 and "crawl refused" in err
    assert snapshot(tmp_path) == before


def test_half_500_is_refused_and_the_last_good_map_kept(hostile: Hostile, cli: Cli, tmp_path: Path) -> None:
    assert cli("crawl", hostile.url, "--site", "w")[0] == 0
    before = snapshot(tmp_path)
    hostile.mode = "half500"
    code, _, err = cli("refresh", "--no-index", "--site", "w")
    assert code == 1 and "could not fetch" in err
    assert snapshot(tmp_path) == before


def test_incremental_crawl_rediscovers_pages_beyond_an_earlier_cap(hostile: Hostile, cli: Cli,
                                                                   tmp_path: Path) -> None:
    code, out, _ = cli("crawl", hostile.url, "--site", "w", "--max-pages", "3", "--json")
    assert code == 0 and json.loads(out)["pages"] == 3
    code, out, _ = cli("crawl", "--site", "w", "--json")
    summary = json.loads(out)
    assert code == 0 and summary["pages"] == PAGES + 1 and summary["stats"]["not_modified"] == 3


def test_slow_drip_is_cut_off_by_the_request_deadline(hostile: Hostile, tmp_path: Path) -> None:
    hostile.pages["index.html"] += "<!-- -->"
    first, generation = crawl_as_cli(CrawlConfig(site="w", start_url=hostile.url), tmp_path / "maps", tmp_path / "data")
    hostile.mode, hostile.drip_s = "drip", 0.2  # every byte arrives in time; the page never ends
    config = CrawlConfig(site="w", start_url=hostile.url, deadline=1.0, timeout=5.0, retries=1, backoff=0.0,
                         refetch=True)
    started = time.monotonic()
    with pytest.raises(Exception, match="looks down"):
        crawl_as_cli(config, tmp_path / "maps", tmp_path / "data")
    assert time.monotonic() - started < 10  # without the deadline: 100000 × 0.2 s per page
    assert Generations(tmp_path / "data", "w").latest() == generation and generation.load_texts() == first.texts


def test_whole_crawl_time_limit_keeps_pages_not_reached(hostile: Hostile, tmp_path: Path) -> None:
    first, _ = crawl_as_cli(CrawlConfig(site="w", start_url=hostile.url), tmp_path / "maps", tmp_path / "data")
    hostile.mode, hostile.drip_s = "drip", 0.2
    config = CrawlConfig(site="w", start_url=hostile.url, max_time=1.5, refetch=True)
    started = time.monotonic()
    result, _ = crawl_as_cli(config, tmp_path / "maps", tmp_path / "data", force=True)  # the site is not down: slow
    assert time.monotonic() - started < 6
    assert result.report.errors.get("max_time") == 1 and result.map.pages.keys() == first.map.pages.keys()


@pytest.mark.parametrize(("mode", "error"), [("redirect_loop", "redirect_loop"), ("huge", "truncated")])
def test_redirect_loops_and_oversized_bodies_do_not_stop_a_crawl(hostile: Hostile, cli: Cli, mode: str,
                                                                 error: str) -> None:
    hostile.mode = mode  # every odd page loops or sends 6 MB (over the 5 MB cap)
    code, out, _ = cli("crawl", hostile.url, "--site", "w", "--json")
    summary = json.loads(out)
    assert code == 0 and summary["errors"][error] == PAGES // 2
    pages = {url.rsplit("/", 1)[1] for url in summary["pages_added"]}
    assert {"p0.html", "p2.html"} <= pages and ("p1.html" in pages) == (mode == "huge")


def test_a_site_that_is_down_is_not_asked_for_every_page(hostile: Hostile, tmp_path: Path) -> None:
    crawl_as_cli(CrawlConfig(site="w", start_url=hostile.url), tmp_path / "maps", tmp_path / "data")
    hostile.mode = "all500"
    hostile.hits.clear()
    with pytest.raises(Exception, match="looks down"):
        crawl_as_cli(CrawlConfig(site="w", start_url=hostile.url, outage_after=3, concurrency=1, retries=0),
                     tmp_path / "maps", tmp_path / "data")
    assert sum(n for path, n in hostile.hits.items() if path.endswith(".html")) == 3
