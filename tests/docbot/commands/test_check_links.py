"""`docbot check-links`: URLs on stdin, one outcome per line, in order."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from crawlers.model import AnchorMap, Page, Section
from docbot.cli import main

BASE = "http://docs.test/"


@pytest.fixture()
def maps_dir(tmp_path: Path) -> Path:
    page = Page(url=BASE + "guide.html", title="Guide", anchors=("connect-on-demand",),
                sections=(Section("connect-on-demand", "Connect on Demand", 2, ("Guide", "Connect on Demand")),))
    AnchorMap(site="docs", base_url=BASE, pages={page.url: page}).save(tmp_path / "docs.json")
    return tmp_path


def run_cli(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str], stdin: str) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    monkeypatch.setenv("DOCBOT_CONFIG", "/nonexistent-docbot.toml")
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_json_lines_in_input_order(maps_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    stdin = "guide.html#connect_on_demand\n\nhttp://docs.test/guide.html#connect-on-demand\nhttps://evil.example/\n"
    code, out, _ = run_cli(monkeypatch, capsys, ["--anchor-maps", str(maps_dir), "check-links", "--site", "docs", "--json"], stdin)
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert [(r["input"], r["output"], r["action"]) for r in rows] == [
        ("guide.html#connect_on_demand", BASE + "guide.html#connect-on-demand", "rewritten"),
        (BASE + "guide.html#connect-on-demand", BASE + "guide.html#connect-on-demand", "kept"),
        ("https://evil.example/", None, "link_dropped"),
    ]
    assert all(set(r) == {"input", "output", "action", "reason"} for r in rows)


def test_table_output(maps_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(monkeypatch, capsys, ["--anchor-maps", str(maps_dir), "check-links"], BASE + "guide.html#nope\n")
    assert code == 0
    assert "fragment_dropped" in out and "no such fragment" in out


def test_missing_anchor_map_names_docbot_crawl(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(monkeypatch, capsys, ["--anchor-maps", str(tmp_path), "check-links", "--site", "flask"], "x\n")
    assert code == 1
    assert "docbot crawl" in err


@pytest.mark.slow
def test_live_check_against_a_served_site(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from tests.conftest import serve_directory

    root = tmp_path / "site"
    root.mkdir()
    (root / "guide.html").write_text('<html><body><h2 id="connect-on-demand">Connect</h2></body></html>')
    with serve_directory(root) as base:
        page = Page(url=base + "guide.html", title="Guide", anchors=("connect-on-demand", "stale-anchor"))
        AnchorMap(site="docs", base_url=base, pages={page.url: page}).save(tmp_path / "docs.json")
        stdin = f"{base}guide.html#connect-on-demand\n{base}guide.html#stale-anchor\n"
        code, out, _ = run_cli(monkeypatch, capsys, ["--anchor-maps", str(tmp_path), "check-links", "--json", "--live"], stdin)
    assert code == 0
    assert [json.loads(line)["live"] for line in out.splitlines()] == [True, False]


@pytest.mark.slow
def test_live_check_reports_a_text_directive_whose_sentence_was_edited_since_the_crawl(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from tests.conftest import serve_directory
    from tests.docbot.test_freshness import QUOTE, write

    root = tmp_path / "site"
    root.mkdir()
    write(root)
    monkeypatch.chdir(tmp_path)
    dirs = ["--anchor-maps", str(tmp_path / "maps"), "--data-dir", str(tmp_path / "data")]
    with serve_directory(root) as base:
        code, _, err = run_cli(monkeypatch, capsys, [*dirs, "crawl", base + "guide.html", "--site", "docs"], "")
        assert code == 0, err
        quoted = f"{base}guide.html#usage:~:text=Call%20the%20tool%20with%20a%20path"
        other = f"{base}guide.html#usage:~:text=Pass%20a%20second%20path"
        stdin = f"{quoted}\n{other}\n"
        code, out, _ = run_cli(monkeypatch, capsys, [*dirs, "check-links", "--json", "--live"], stdin)
        assert [(r["output"], r["live"]) for r in map(json.loads, out.splitlines())] == [(quoted, True), (other, True)]
        write(root, usage=QUOTE.replace("Call the tool", "Run the tool"), age_s=0)  # the quoted sentence edited
        code, out, _ = run_cli(monkeypatch, capsys, [*dirs, "check-links", "--json", "--live"], stdin)
        rows = [json.loads(line) for line in out.splitlines()]
        code, table, _ = run_cli(monkeypatch, capsys, [*dirs, "check-links", "--live"], stdin)
    assert code == 0
    assert [r["live"] for r in rows] == [False, True]
    assert rows[0]["live_reason"] == "text directive stale: its text is not on the page"
    assert "live: FAILED (text directive stale: its text is not on the page)" in table
