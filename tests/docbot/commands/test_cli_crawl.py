"""`docbot crawl` end to end over a tiny site served on 127.0.0.1."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from crawlers.model import AnchorMap
from docbot.cli import main
from docbot.indexing.generations import Generations
from tests.conftest import serve_directory


def write_site(root: Path, extra_page: bool = True) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "index.html").write_text(
        '<html><head><title>Tiny</title></head><body><h1 id="tiny">Tiny</h1>'
        '<a href="guide/">Guide</a> <a href="private/x.html">x</a></body></html>', encoding="utf-8")
    (root / "guide").mkdir(exist_ok=True)
    (root / "guide" / "index.html").write_text(
        '<html><head><title>Guide</title></head><body><h1 id="guide">Guide</h1>'
        '<h2 id="install">Install</h2><p>pip install tiny</p></body></html>', encoding="utf-8")
    (root / "private").mkdir(exist_ok=True)
    (root / "private" / "x.html").write_text("<title>X</title><h1 id='x'>X</h1>", encoding="utf-8")
    for path in root.rglob("*.html"):  # written "long ago", so Last-Modified is a strong validator
        os.utime(path, (1_700_000_000, 1_700_000_000))


def run(tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    argv = ["--data-dir", str(tmp_path / "data"), "--anchor-maps", str(tmp_path / "maps"), "--config",
            str(tmp_path / "docbot.toml"), "crawl", *args]
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_crawl_json_writes_map_and_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_site(tmp_path / "site")
    (tmp_path / "docbot.toml").write_text("", encoding="utf-8")
    with serve_directory(tmp_path / "site") as base:
        code, out, _ = run(tmp_path, capsys, base, "--site", "tiny", "--exclude", "private/*", "--json")
        assert code == 0
        summary = json.loads(out)
        assert summary["pages"] == 2 and summary["anchors"] == 3 and summary["errors"] == {}
        assert summary["pages_added"] == [base + "guide/index.html", base + "index.html"]
        amap = AnchorMap.load(tmp_path / "maps" / "tiny.json")
        assert amap.has_anchor(base + "guide/#install")
        assert summary["generation"] == 1 and Path(summary["texts"]).is_file()
        assert Generations(tmp_path / "data", "tiny").staged() is not None  # served once `docbot index` ran

        code, out, _ = run(tmp_path, capsys, base, "--site", "tiny", "--exclude", "private/*")
        assert code == 0 and "pages:    2" in out and "2 not modified" in out

        code, out, _ = run(tmp_path, capsys, "--site", "tiny", "--exclude", "private/*", "--json")
        assert code == 0 and json.loads(out)["start_url"] == base  # the URL comes from the map


def test_summary_lists_links_to_files_that_are_no_pages_as_skipped_not_as_errors(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # every Sphinx page links its "Show Source" .txt: 219 of them on Celery's docs read as errors
    write_site(tmp_path / "site")
    (tmp_path / "site" / "_sources").mkdir()
    (tmp_path / "site" / "_sources" / "guide.rst.txt").write_text("Guide\n=====\n", encoding="utf-8")
    (tmp_path / "site" / "guide" / "index.html").write_text(
        '<html><head><title>Guide</title></head><body><h1 id="guide">Guide</h1><a href="../_sources/guide.rst.txt">'
        'Show Source</a> <a href="../gone.html">gone</a></body></html>', encoding="utf-8")
    (tmp_path / "docbot.toml").write_text("", encoding="utf-8")
    with serve_directory(tmp_path / "site") as base:
        code, out, _ = run(tmp_path, capsys, base, "--site", "tiny", "--exclude", "private/*")
    assert code == 0
    lines = out.splitlines()
    assert "  errors:   not_found 1" in lines and f"    not_found: {base}gone.html" in lines
    assert "  skipped:  not_html 1" in lines and f"    not_html: {base}_sources/guide.rst.txt" in lines


def test_crawl_takes_url_and_patterns_from_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_site(tmp_path / "site")
    with serve_directory(tmp_path / "site") as base:
        (tmp_path / "docbot.toml").write_text(
            f'[[sites]]\nname = "tiny"\nurl = "{base}"\nexclude = ["private/*"]\n', encoding="utf-8")
        code, out, _ = run(tmp_path, capsys, "--site", "tiny", "--json")
    assert code == 0 and json.loads(out)["pages"] == 2


def test_without_site_the_only_site_of_the_config_is_crawled(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_site(tmp_path / "site")
    with serve_directory(tmp_path / "site") as base:
        (tmp_path / "docbot.toml").write_text(f'[[sites]]\nname = "tiny"\nurl = "{base}"\n', encoding="utf-8")
        code, out, _ = run(tmp_path, capsys, "--json")
    assert code == 0 and json.loads(out)["site"] == "tiny"
    assert (tmp_path / "maps" / "tiny.json").is_file()


@pytest.mark.parametrize(("sites", "args", "says"), [
    (["a", "b"], [], "--site NAME (docbot.toml has a, b;"),
    ([], [], "docbot crawl URL --site NAME"),
    (["a"], ["http://127.0.0.1:9/other/"], "docbot crawl http://127.0.0.1:9/other/ --site NAME"),
])
def test_without_site_a_choice_docbot_cannot_make_is_a_usage_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], sites: list[str], args: list[str], says: str) -> None:
    (tmp_path / "docbot.toml").write_text(
        "".join(f'[[sites]]\nname = "{n}"\nurl = "http://127.0.0.1:9/{n}/"\n' for n in sites), encoding="utf-8")
    code, out, err = run(tmp_path, capsys, *args)
    assert code == 2 and out == "" and says in err and err.startswith("docbot: ")
    assert not (tmp_path / "maps").exists()  # nothing was crawled or written


def test_unreachable_start_url_exits_1_with_a_clear_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_site(tmp_path / "site")
    (tmp_path / "docbot.toml").write_text("", encoding="utf-8")
    with serve_directory(tmp_path / "site") as base:
        pass  # the server is gone now: nothing listens on that port
    code, out, err = run(tmp_path, capsys, base, "--site", "tiny", "--json")
    assert code == 1 and out == ""
    assert "Cannot reach" in err and base in err
    assert not (tmp_path / "maps" / "tiny.json").exists()


def test_robots_disallow_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_site(tmp_path / "site")
    (tmp_path / "site" / "robots.txt").write_text("User-agent: *\nDisallow: /\n", encoding="utf-8")
    (tmp_path / "docbot.toml").write_text("", encoding="utf-8")
    with serve_directory(tmp_path / "site") as base:
        code, _, err = run(tmp_path, capsys, base, "--site", "tiny")
    assert code == 1 and "robots.txt" in err


def test_missing_url_for_unknown_site_says_what_to_do(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "docbot.toml").write_text("", encoding="utf-8")
    code, _, err = run(tmp_path, capsys, "--site", "nowhere")
    assert code == 1 and "docbot crawl URL --site nowhere" in err
