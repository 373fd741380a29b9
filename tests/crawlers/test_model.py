from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from crawlers.errors import AnchorMapError
from crawlers.model import AnchorMap, Page, Rename, Section, write_atomic


def _map() -> AnchorMap:
    page = Page(
        url="http://h/docs/guide/index.html",
        title="Guide",
        aliases=("http://h/docs/guide/", "http://h/docs/old-guide.html"),
        anchors=("install", "Usage", "guide"),
        sections=(Section("guide", "Guide", 1, ("Guide",)), Section("install", "Install", 2, ("Guide", "Install"))),
    )
    return AnchorMap(site="demo", base_url="http://h/docs/", crawled_at="t", pages={page.url: page})


def test_lookup_by_any_alias_and_case_sensitive_fragments() -> None:
    amap = _map()
    assert amap.has_anchor("http://h/docs/guide/#install")
    assert amap.has_anchor("http://h/docs/old-guide.html#Usage")
    assert not amap.has_anchor("http://h/docs/guide/#usage")
    assert amap.has_anchor("http://h/docs/guide/index.html#top")
    assert amap.has_anchor("http://h/docs/guide/index.html")
    assert not amap.has_anchor("http://h/docs/nope.html")


def test_save_load_round_trip_is_deterministic(tmp_path: Path) -> None:
    amap = _map()
    amap.renames.append(Rename("http://h/docs/guide/index.html", "installing", "install", "t"))
    path = tmp_path / "demo.json"
    amap.save(path)
    first = path.read_bytes()
    again = AnchorMap.load(path)
    again.save(path)
    assert path.read_bytes() == first
    assert again.page("http://h/docs/guide/").sections[1].path == ("Guide", "Install")
    assert not list(tmp_path.glob(".*.tmp"))


def test_missing_or_foreign_map_says_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(AnchorMapError, match="docbot crawl"):
        AnchorMap.load(tmp_path / "flask.json")
    (tmp_path / "old.json").write_text(json.dumps({"format_version": 99}))
    with pytest.raises(AnchorMapError, match="re-run"):
        AnchorMap.load(tmp_path / "old.json")


def test_a_rewritten_file_keeps_its_mode_and_a_new_one_follows_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        write_atomic(tmp_path / "new.json", "{}")
        (tmp_path / "shared.json").write_text("{}")
        (tmp_path / "shared.json").chmod(0o644)
        write_atomic(tmp_path / "shared.json", "[]")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.json").stat().st_mode) == 0o640
    assert stat.S_IMODE((tmp_path / "shared.json").stat().st_mode) == 0o644
    assert (tmp_path / "shared.json").read_text() == "[]" and not list(tmp_path.glob(".*"))


def test_page_texts_round_trip(tmp_path: Path) -> None:
    from crawlers.model import PageText
    from crawlers.texts import read_page_texts, write_page_texts

    pages = [PageText.of_runs("http://h/a.html", ((-1, "Nav \u2028 odd"), (0, "Guide"), (1, "Run it.")),
                      ((1, ("guide",)), (2, ("install", "label"))), {"inline": 2}),
             PageText.of_runs("http://h/b.html", ())]
    write_page_texts(tmp_path / "pages.jsonl", pages)
    assert read_page_texts(tmp_path / "pages.jsonl", "demo") == pages
    with pytest.raises(AnchorMapError, match="docbot crawl"):
        read_page_texts(tmp_path / "other.jsonl", "other")
