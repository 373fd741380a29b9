"""Site names, and which files in anchor_maps/ are sites' maps."""

from __future__ import annotations

from pathlib import Path

import pytest

from crawlers.model import AnchorMap, Page, load_maps
from crawlers.sitenames import map_sites


def _map() -> AnchorMap:
    page = Page(url="http://h/docs/index.html", title="Home", anchors=("home",))
    return AnchorMap(site="demo", base_url="http://h/docs/", crawled_at="t", pages={page.url: page})


def test_files_that_are_not_a_sites_map_are_skipped_with_a_warning(tmp_path: Path,
                                                                   caplog: pytest.LogCaptureFixture) -> None:
    _map().save(tmp_path / "demo.json")
    (tmp_path / "notes copy.json").write_text("{}")  # not a site name
    (tmp_path / "README.json").write_text('{"about": "our maps"}')  # a site name, but no map
    (tmp_path / "cut.json").write_text(_map().dumps()[:80])  # a map cut short is still a map
    assert map_sites(tmp_path) == ["cut", "demo"]
    assert "notes copy.json is not an anchor map" in caplog.text and "README.json" in caplog.text
    (tmp_path / "cut.json").unlink()
    assert list(load_maps(tmp_path)) == ["demo"]

