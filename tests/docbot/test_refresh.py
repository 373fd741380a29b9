"""Refresh on a tiny real site: a renamed heading id is reported and logged links are repaired; a failed site keeps its map."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from docbot.answer import LinkAction, Status
from docbot.cli import main
from docbot.config import Settings, SiteConfig
from docbot.indexing.embed import HashEmbedder
from docbot.refresh import refresh, render_markdown, write_report
from tests.conftest import serve_directory

PAGE = """<!doctype html><html><head><title>{title}</title></head><body>
<h1 id="{h1}">{title}</h1><p>Intro text about {title}.</p>
{body}
</body></html>"""


def write_site(root: Path, setup_id: str) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "index.html").write_text(
        PAGE.format(title="Tiny docs", h1="tiny-docs", body='<p><a href="guide.html">Guide</a></p>'), encoding="utf-8"
    )
    (root / "guide.html").write_text(
        PAGE.format(
            title="Guide",
            h1="guide",
            body=f'<h2 id="{setup_id}">Setting up the project</h2><p>Run the installer, then configure the project.</p>'
            '<h2 id="usage">Usage</h2><p>Call the main function with a path.</p>',
        ),
        encoding="utf-8",
    )


@pytest.fixture()
def tiny(tmp_path: Path):
    root = tmp_path / "site"
    write_site(root, "setting-up")
    with serve_directory(root) as base:
        settings = Settings(
            data_dir=tmp_path / "data", anchor_maps=tmp_path / "maps", sites=(SiteConfig(name="tiny", url=base),)
        )
        yield root, base, settings


def test_renamed_heading_is_reported_and_logged_link_repaired(tiny: tuple[Path, str, Settings]) -> None:
    root, base, settings = tiny
    embedder = HashEmbedder()
    first = refresh(settings, embedder=embedder)
    assert first.ok, first.sites[0].error
    assert first.sites[0].index and first.sites[0].index["embedded"] == first.sites[0].index["chunks"] > 0
    old_link = base + "guide.html#setting-up"
    logged = [(1, old_link), (1, base + "guide.html#usage")]  # links an earlier answer sent

    write_site(root, "setting-up-the-project")  # the generator changed its slug rule
    second = refresh(settings, embedder=embedder, links=logged)
    assert second.ok, second.sites[0].error
    stats = second.sites[0].index or {}
    assert stats["deleted"] >= 1 and 0 < stats["embedded"] < stats["chunks"]  # only the renamed section re-embedded
    changes = json.dumps(second.sites[0].changes)
    assert "setting-up" in changes and "setting-up-the-project" in changes

    assert second.links_checked == 2
    [repaired] = second.links
    assert repaired.url == old_link
    assert repaired.action == LinkAction.REWRITTEN
    assert repaired.output == base + "guide.html#setting-up-the-project"

    md_path, json_path = write_report(second, settings.data_dir)
    assert md_path.parent == settings.data_dir / "reports" and md_path.name.startswith("refresh-")
    assert "guide.html#setting-up-the-project" in md_path.read_text(encoding="utf-8")
    assert json.loads(json_path.read_text(encoding="utf-8"))["reference_log"]["checked"] == 2
    assert "setting-up-the-project" in render_markdown(second)


def test_logged_link_to_a_reworded_heading_is_repaired_by_the_heading_ranking(tiny: tuple[Path, str, Settings]) -> None:
    root, base, settings = tiny
    refresh(settings, embedder=HashEmbedder())
    (root / "guide.html").write_text(  # the heading was reworded and its id with it
        PAGE.format(title="Guide", h1="guide", body='<h2 id="installation">Installation</h2><p>Run the installer.</p>'
                    '<h2 id="usage">Usage</h2><p>Call the main function with a path.</p>'),
        encoding="utf-8",
    )
    report = refresh(settings, embedder=HashEmbedder(), links=[(3, base + "guide.html#setting-up-and-installing")])
    [repaired] = report.links
    assert (repaired.action, repaired.output) == (LinkAction.REWRITTEN, base + "guide.html#installation")
    assert 'paraphrase of heading "Installation"' in repaired.reason


def test_failed_site_exits_non_zero_and_keeps_its_map(tmp_path: Path) -> None:
    root = tmp_path / "site"
    write_site(root, "setting-up")
    with serve_directory(root) as base:
        config = tmp_path / "docbot.toml"
        config.write_text(f'[[sites]]\nname = "tiny"\nurl = "{base}"\n', encoding="utf-8")
        argv = ["--config", str(config), "--data-dir", str(tmp_path / "data"), "--anchor-maps", str(tmp_path / "maps")]
        assert main([*argv, "refresh", "--no-index"]) == 0
    map_file = tmp_path / "maps" / "tiny.json"
    before = map_file.read_bytes()
    # The server is gone now: the crawl fails and the previous map must stay.
    assert main([*argv, "refresh", "--no-index", "--json"]) != 0
    assert map_file.read_bytes() == before
    reports = sorted((tmp_path / "data" / "reports").glob("refresh-*.json"))
    assert reports and json.loads(reports[-1].read_text(encoding="utf-8"))["ok"] is False


def test_refresh_reads_section_texts_for_tied_repairs_and_copes_without_them(tmp_path: Path) -> None:
    from crawlers.model import AnchorMap, SectionText
    from crawlers.texts import write_section_texts
    from docbot.config import load_settings
    from docbot.indexing.generations import Generations
    from docbot.reading import stored_texts

    settings = load_settings(str(tmp_path / "data"), str(tmp_path / "maps"))
    with Generations(tmp_path / "data", "docs").writing("test") as writer:
        staged = writer.stage()
    write_section_texts(staged.sections_file, [
        SectionText("docs", "http://d.test/a.html", "cursors", "Cursors", 2, ("A", "Cursors"), "Guides",
                    "very large result sets"),
    ])
    AnchorMap("docs", "http://d.test/").save(staged.map_file)
    text = stored_texts(settings)
    assert text("docs", "http://d.test/a.html#cursors") == "very large result sets"
    assert text("docs", "http://d.test/a.html#other") is None
    assert text("never-crawled", "http://x.test/#y") is None  # no texts: the tie is dropped, nothing fails


def test_the_markdown_report_quotes_what_it_did_not_write_as_inert_code() -> None:
    from markdown_it import MarkdownIt

    from docbot.refresh import LoggedLink, RefreshReport, SiteRefresh

    evil = "x` [pwn](https://evil.example/) @octocat `"
    changes = {"pages": 2, "renames": [{"url": "http://d.test/a.html", "old": evil, "new": "``" + evil}],
               "anchors_added": [["http://d.test/a.html", evil]], "note": evil}
    report = RefreshReport("2026-11-25T00:00:00Z", (
        SiteRefresh("w", "http://d.test/", True, changes),
        SiteRefresh("v", "http://d.test/v/", False, error=f"crawl failed: {evil}\nsecond line", changed_shape=(evil,)),
    ), 2, (LoggedLink(1, f"http://d.test/a.html#{evil}|x", LinkAction.REWRITTEN, "http://d.test/a.html#b|c", "renamed"),))
    rendered = MarkdownIt("commonmark").enable("table").render(render_markdown(report))
    outside = re.sub(r"<code>.*?</code>", "", rendered, flags=re.S)
    assert "evil.example" not in outside and "@octocat" not in outside and "<a " not in outside
    codes = [html.unescape(c) for c in re.findall(r"<code>(.*?)</code>", rendered, flags=re.S)]
    assert f"http://d.test/a.html#{evil}|x" in codes and "http://d.test/a.html#b|c" in codes  # one cell each
    assert "#``" + evil in codes and "http://d.test/v/" in codes
    assert rendered.count("<tr>") == 2  # the header and the one link: no cell split by a pipe


def test_a_logged_text_directive_is_checked_again_and_dropped_or_derived_anew(tmp_path: Path) -> None:
    from crawlers.model import AnchorMap, Page, PageText, Section, map_path
    from crawlers.texts import write_page_texts
    from docbot.answer import Answer, Reference
    from docbot.config import load_settings
    from docbot.indexing.generations import Generations
    from docbot.reference_log import ReferenceLog
    from docbot.refresh import logged_links, recheck_links

    url = "http://d.test/a.html"
    settings = load_settings(str(tmp_path / "data"), str(tmp_path / "maps"))
    AnchorMap("docs", "http://d.test/", pages={url: Page(url, "A", anchors=("intro", "cursors"), sections=(
        Section("intro", "Intro", 2, ("A", "Intro")), Section("cursors", "Cursors", 2, ("A", "Cursors"))))}
    ).save(map_path(settings.anchor_maps, "docs"))
    quote = "Server side cursors stream very large result sets."
    kept, moved, gone = (f"{url}#cursors:~:text=Server%20side%20cursors%20stream", f"{url}#cursors:~:text=Server%20side%20cursors",
                         f"{url}#intro:~:text=Old%20words%20here")
    log = ReferenceLog.in_data_dir(settings.data_dir)
    for link in (kept, moved, gone):
        log.record(Answer("q", Status.ANSWERED, "a [1]", references=(
            Reference(1, link, "Cursors", ("A", "Cursors"), "Guides", "docs", quote=quote),)), "cli")

    def page(intro: str) -> None:  # a crawl of the site: a new generation holding its map and pages' texts
        with Generations(settings.data_dir, "docs").writing("test") as writer:
            staged = writer.stage()
        write_page_texts(staged.pages_file, [PageText.of_runs(url, (
            (0, "Intro"), (0, intro), (1, "Cursors"), (1, "Use them well. " + quote)), ((2, ("intro",)), (2, ("cursors",))))])
        AnchorMap.load(map_path(settings.anchor_maps, "docs")).save(staged.map_file)

    page("Old words here.")
    assert recheck_links(settings, logged_links(settings)) == (3, [])
    page("Intro. Server side cursors help too.")  # "Server side cursors" now stands first in the intro
    checked, changed = recheck_links(settings, logged_links(settings))
    assert checked == 3 and [(c.url, c.action) for c in changed] == [(moved, LinkAction.REWRITTEN), (gone, LinkAction.REWRITTEN)]
    again, dropped = changed
    assert again.output == f"{url}#cursors:~:text=Server%20side%20cursors%20stream,sets"
    assert "derived again for the quoted passage" in again.reason
    assert dropped.output == f"{url}#intro" and "text directive dropped" in dropped.reason


def test_the_crawl_summary_and_the_refresh_report_list_the_same_changes_alike() -> None:
    from types import SimpleNamespace

    from crawlers.crawl.diff import ChangeReport
    from crawlers.model import Rename
    from docbot.commands.crawl import summary_text
    from docbot.refresh import CHANGE_KINDS, RefreshReport, SiteRefresh

    page = "http://d.test/a.html"
    report = ChangeReport(pages=3, pages_added=("http://d.test/new.html",), pages_removed=("http://d.test/old.html",),
                          anchors_added=((page, "fresh"),), anchors_removed=((page, "gone"),), stale=(page,),
                          renames=(Rename(page, "setting-up", "setting-up-the-project", page),))
    stats = SimpleNamespace(requests=3, fetched=3, not_modified=0, failed=0, skipped=0)
    text = summary_text(SimpleNamespace(site="w", start_url="http://d.test/"), SimpleNamespace(report=report, stats=stats),
                        Settings(), SimpleNamespace(number=2))
    markdown = render_markdown(RefreshReport("2026-11-26T00:00:00Z", (SiteRefresh("w", "", True, report.to_json()),)))
    for _, title in CHANGE_KINDS:
        assert f"  {title} (1):" in text and f"- **{title}**: 1" in markdown
    for item in ("http://d.test/new.html", f"{page}#gone", f"{page}#fresh"):
        assert f"    {item}\n" in text and f"  - `{item}`\n" in markdown
    assert f"    {page}#setting-up → #setting-up-the-project" in text
    assert f"  - `{page}#setting-up` → `#setting-up-the-project`" in markdown
