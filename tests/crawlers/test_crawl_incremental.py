"""Incremental recrawls: 304s, last-known-good on failure, removal on 404, loss threshold, renames."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
import respx

from crawlers.crawl import CrawlConfig
from crawlers.errors import CrawlRefused
from crawlers.model import AnchorMap, map_path
from crawlers.parse.extract import EXTRACTOR_VERSION
from crawlers.texts import read_section_texts, write_section_texts
from docbot.indexing.generations import Generations
from tests.crawlers.test_crawl_loop import BASE, HTML, page, run_crawl, site
from tests.crawling import crawl_as_cli

LINKS = "".join(f'<a href="p{i}.html">{i}</a>' for i in range(5))
GUIDE = ('<h2 id="{sid}">Setting up the project</h2><p>Run the installer, then configure the project.</p>'
         '<h2 id="{uid}">Usage</h2><p>Call the main function with a path and options.</p>')


def pages(**override: object) -> dict[str, object]:
    base: dict[str, object] = {"index.html": page("Home", LINKS + '<a href="guide.html">g</a>'),
                               "guide.html": page("Guide", GUIDE.format(sid="setting-up", uid="usage"))}
    base.update({f"p{i}.html": page(f"P{i}", f'<h2 id="s{i}">Part {i}</h2><p>Text {i}.</p>') for i in range(5)})
    base.update(override)
    return base


def conditional_site(content: dict[str, object]) -> respx.MockRouter:
    """Like ``site`` but answering 304 when If-None-Match matches the page's ETag."""
    def handler(path: str, html: str):
        etag = f'"{hash(html) & 0xFFFF}"'

        def respond(request: httpx.Request) -> httpx.Response:
            if request.headers.get("if-none-match") == etag:
                return httpx.Response(304, headers={"ETag": etag})
            return httpx.Response(200, headers={**HTML, "ETag": etag}, text=html)
        return respond

    return site({p: handler(p, c) if isinstance(c, str) else c for p, c in content.items()})


def test_unchanged_recrawl_is_all_304_and_keeps_texts() -> None:
    first = run_crawl(conditional_site(pages()))
    router = conditional_site(pages())
    second = run_crawl(router, first.map, first.texts)
    assert second.stats.not_modified == len(first.map.pages) and second.stats.fetched == 0
    assert second.texts == first.texts
    second.map.crawled_at = first.map.crawled_at
    assert second.map.dumps() == first.map.dumps()
    assert second.report.pages_added == () and second.report.pages_removed == ()


def test_a_map_written_by_another_extractor_version_is_parsed_again_then_trusted() -> None:
    first = run_crawl(conditional_site(pages()))
    assert first.map.extractor == EXTRACTOR_VERSION
    first.map.extractor = EXTRACTOR_VERSION - 1  # as an older docbot wrote it
    upgraded = run_crawl(conditional_site(pages()), first.map, first.texts)
    assert upgraded.stats.not_modified == 0 and upgraded.stats.fetched == len(first.map.pages)
    assert upgraded.map.extractor == EXTRACTOR_VERSION
    again = run_crawl(conditional_site(pages()), upgraded.map, upgraded.texts)
    assert again.stats.not_modified == len(first.map.pages) and again.stats.fetched == 0


def test_timeout_keeps_last_known_good_entry_flagged_stale() -> None:
    first = run_crawl(site(pages()))
    broken = site(pages(**{"p1.html": _raise(httpx.ReadTimeout("slow")), "p2.html": httpx.Response(503)}))
    second = run_crawl(broken, first.map, first.texts)
    for name in ("p1.html", "p2.html"):
        kept = second.map.pages[BASE + name]
        assert kept.stale and kept.anchors == first.map.pages[BASE + name].anchors
        assert [t for t in second.texts if t.url == BASE + name] == [t for t in first.texts if t.url == BASE + name]
    assert second.report.stale == (BASE + "p1.html", BASE + "p2.html")
    assert second.report.errors == {"server_error": 1, "timeout": 1}
    assert '"stale": true' in second.map.dumps()


def test_404_removes_a_page() -> None:
    first = run_crawl(site(pages()))
    second = run_crawl(site(pages(**{"p3.html": httpx.Response(404)})), first.map, first.texts)
    assert BASE + "p3.html" not in second.map.pages
    assert second.report.pages_removed == (BASE + "p3.html",)
    assert not any(t.url == BASE + "p3.html" for t in second.texts)


def test_renamed_anchor_is_detected_and_kept_in_history() -> None:
    first = run_crawl(site(pages()))
    renamed = pages(**{"guide.html": page("Guide", GUIDE.format(sid="setting-up-the-project", uid="how-to-use"))})
    second = run_crawl(site(renamed), first.map, first.texts)
    renames = {(r.old, r.new) for r in second.report.renames}
    # Same title → rename; "Usage" became "how-to-use" with the same title too.
    assert ("setting-up", "setting-up-the-project") in renames and ("usage", "how-to-use") in renames
    assert (BASE + "guide.html", "setting-up") in second.report.anchors_removed
    assert {(r.url, r.old, r.new) for r in second.map.renames} >= {(BASE + "guide.html", "setting-up", "setting-up-the-project")}
    reloaded = AnchorMap.from_json(second.map.to_json())
    assert reloaded.renames == second.map.renames


def test_renamed_by_text_when_title_changed() -> None:
    first = run_crawl(site(pages()))
    retitled = pages(**{"guide.html": page("Guide", GUIDE.format(sid="install", uid="usage").replace(
        "Setting up the project", "Installation"))})
    second = run_crawl(site(retitled), first.map, first.texts)
    assert [(r.old, r.new) for r in second.report.renames] == [("setting-up", "install")]


def _raise(exc: Exception):
    def handler(request: httpx.Request) -> httpx.Response:
        raise exc
    return handler


def _crawl_site(router: respx.MockRouter, tmp_path: Path, force: bool = False):
    """The site crawled as `docbot crawl` does: (the crawl, the generation it was staged as)."""
    async_client = httpx.AsyncClient(transport=httpx.MockTransport(router.async_handler))
    config = CrawlConfig(site="t", start_url=BASE, backoff=0.0, retries=0)
    return crawl_as_cli(config, tmp_path / "maps", tmp_path / "data", force=force, client=async_client)


def test_loss_over_threshold_refuses_and_leaves_the_map_untouched(tmp_path: Path) -> None:
    first, generation = _crawl_site(site(pages()), tmp_path)
    path = map_path(tmp_path / "maps", "t")
    before = path.read_bytes()
    texts_before = generation.load_texts()
    gone = {f"p{i}.html": httpx.Response(404) for i in range(4)}
    with pytest.raises(CrawlRefused, match="--force"):
        _crawl_site(site(pages(**gone)), tmp_path)
    latest = Generations(tmp_path / "data", "t").latest()  # nothing staged: the next crawl starts from the first
    assert path.read_bytes() == before and latest == generation and latest.load_texts() == texts_before
    forced, _ = _crawl_site(site(pages(**gone)), tmp_path, force=True)
    assert len(forced.map.pages) == len(first.map.pages) - 4
    assert AnchorMap.load(path).pages.keys() == forced.map.pages.keys()


def test_last_modified_in_the_same_second_as_the_response_is_not_trusted() -> None:
    from crawlers.crawl.pages import strong_last_modified

    lm = "Mon, 01 Jan 2024 00:00:00 GMT"
    assert strong_last_modified({"last-modified": lm, "date": lm}) is None
    assert strong_last_modified({"last-modified": lm, "date": "Mon, 01 Jan 2024 00:00:05 GMT"}) == lm
    assert strong_last_modified({"last-modified": lm}) == lm


def test_section_texts_round_trip_line_separators_and_carriage_returns(tmp_path: Path) -> None:
    from crawlers.model import SectionText

    texts = [SectionText("s", BASE + "a.html", "x", "Odd \u2028 title", 2, ("A", "Odd"), "Guides", "one\r\ntwo\u2028three\x85"),
             SectionText("s", BASE + "a.html", None, "Plain", 1, ("A",), "Guides", "")]
    write_section_texts(tmp_path / "sections.jsonl", texts)
    assert read_section_texts(tmp_path / "sections.jsonl", "s") == texts


def _crawl(router: respx.MockRouter, previous: AnchorMap | None = None, texts: object = (),
           previous_pages: object = ()):
    import asyncio

    from crawlers.crawl import crawl

    async def go():
        async with httpx.AsyncClient(transport=httpx.MockTransport(router.async_handler)) as client:
            cfg = CrawlConfig(site="t", start_url=BASE, backoff=0.0, retries=1)
            return await crawl(cfg, previous, texts, client=client, previous_pages=previous_pages)  # type: ignore[arg-type]

    return asyncio.run(go())


def test_a_304_keeps_the_page_text_as_it_keeps_the_section_texts() -> None:
    first = _crawl(conditional_site(pages()))
    assert {p.url for p in first.page_texts} == set(first.map.pages)
    second = _crawl(conditional_site(pages()), first.map, first.texts, first.page_texts)
    assert second.stats.not_modified == len(first.map.pages) and second.page_texts == first.page_texts


def test_a_page_whose_text_was_not_stored_is_fetched_again_not_trusted_on_304() -> None:
    first = _crawl(conditional_site(pages()))
    missing = BASE + "guide.html"
    kept = [p for p in first.page_texts if p.url != missing]
    second = _crawl(conditional_site(pages()), first.map, first.texts, kept)
    assert second.stats.fetched == 1 and second.page_texts == first.page_texts


def test_a_crawl_stores_page_texts_beside_the_section_texts(tmp_path: Path) -> None:
    result, generation = _crawl_site(site(pages()), tmp_path)
    assert generation.pages_file.parent == generation.sections_file.parent
    stored = generation.load_pages()
    assert stored == result.page_texts
    guide = next(p for p in stored if p.url.endswith("guide.html"))
    assert "Run the installer, then configure the project." in [text for _, text in guide.runs]
    assert [ids for _, ids in guide.sections][-2:] == [("setting-up",), ("usage",)]
