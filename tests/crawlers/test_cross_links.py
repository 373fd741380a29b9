"""Sections at the anchors other pages link to (crawlers.crawl.cross_links), crawled for real from 127.0.0.1.

The fixture site (tests/fixtures/cross_links/) is a reference page whose entries are named anchors before blocks,
listed nowhere on the page itself, and a guide that links to them: ``a.html#entry`` and ``a.html#lookup`` (an entry
each), ``a.html#tiny`` (a target with too little text to be a section) and ``a.html#usage`` (a heading).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from crawlers.crawl import CrawlConfig, CrawlResult
from crawlers.crawl import loop as crawl_loop
from crawlers.crawl.cross_links import linked_elsewhere, moves_split, split_at, split_site
from crawlers.crawl.pages import ParsePool
from crawlers.fetch import FetchResult
from crawlers.model import Section
from crawlers.parse.extract import extract
from tests.crawlers.fixture_pages import FIXTURES
from tests.crawlers.recording_server import HTML, Recorder, recording_server
from tests.crawling import crawl_as_cli

SITE = FIXTURES / "cross_links"
UNLINKED_GUIDE = ('<!doctype html><html><head><title>Guide</title></head><body><h1 id="guide">Guide</h1>'
                  '<p>Each function is called as any other: see <a href="a.html#usage">how to call them</a>.</p>'
                  "</body></html>")


def serve(server: Recorder, guide: str | None = None) -> None:
    """The fixture site's pages, each with an ETag of its content (a changed page gets a new one)."""
    for name in ("index.html", "a.html", "b.html"):
        body = (SITE / name).read_text(encoding="utf-8") if name != "b.html" or guide is None else guide
        server.routes["/" + name] = (200, {**HTML, "ETag": f'"{name}-{len(body)}"'}, body)


def crawl(server: Recorder, tmp_path: Path, concurrency: int = 8) -> CrawlResult:
    config = CrawlConfig(site="xpage", start_url=server.origin + "/index.html", sitemaps=False, parse_processes=0,
                         concurrency=concurrency)
    return crawl_as_cli(config, tmp_path / "maps", tmp_path / "data")[0]


def sections(result: CrawlResult, server: Recorder) -> dict[str | None, Section]:
    page = result.map.page(server.origin + "/a.html")
    assert page is not None
    return {s.anchor: s for s in page.sections}


def text(result: CrawlResult, server: Recorder, anchor: str) -> str:
    return next(t.text for t in result.texts if t.url == server.origin + "/a.html" and t.anchor == anchor)


def requests_for(server: Recorder, path: str) -> list[bool]:
    """Each request for ``path``, by whether it was conditional."""
    return [("if-none-match" in headers) for sent, headers in server.requests if sent == path]


def test_an_anchor_another_page_links_to_starts_a_section_and_a_304_keeps_it(tmp_path: Path) -> None:
    with recording_server() as server:
        serve(server)
        first = crawl(server, tmp_path)
        by_anchor = sections(first, server)
        entry = by_anchor["entry"]
        assert (entry.kind, entry.title, entry.level) == ("anchor", "entry(key)", 3)
        assert entry.path == ("Functions", "Scalar functions", "entry(key)")
        assert text(first, server, "entry").startswith("entry(key)\n\nReturns the entry stored under key")
        assert by_anchor["lookup"].kind == "anchor"
        # too little text to be a section: "No longer in use." stays with the entry before it
        assert "tiny" not in by_anchor and text(first, server, "entry").endswith("No longer in use.")
        # the headings' sections are the page's own, whoever links to them; their text ends at the first entry
        alone = extract((SITE / "a.html").read_bytes(), server.origin + "/a.html")
        assert [s for s in by_anchor.values() if s.kind != "anchor"] == [
            Section(s.anchor, s.title, s.level, tuple(s.path), s.kind) for s in alone.sections]
        assert text(first, server, "scalar") == ("Scalar functions take one row and give one value back; they can be "
                                                 "used in any expression.")
        # the guide's link lands in its own section; the split a site read from its files gets is the crawl's
        mention = next(m for m in first.mentions if m.fragment == "entry")
        assert mention.section == "entry"
        files = {server.origin + "/" + p.name: p for p in SITE.glob("*.html")}
        offline = split_site({u: extract(p.read_bytes(), u) for u, p in files.items()},
                             lambda u, ids: extract(files[u].read_bytes(), u, elsewhere=ids))
        assert [s.anchor for s in offline[server.origin + "/a.html"].sections] == list(by_anchor)

        server.requests.clear()
        again = crawl(server, tmp_path)
        assert again.stats.not_modified == 3 and again.stats.fetched == 0
        assert requests_for(server, "/a.html") == [True]  # its set of linked anchors is the same: not fetched again
        assert sections(again, server) == by_anchor and again.texts == first.texts

        changed = (SITE / "a.html").read_text(encoding="utf-8").replace("evaluated first.", "evaluated first, once.")
        server.routes["/a.html"] = (200, {**HTML, "ETag": '"a-changed"'}, changed)
        server.requests.clear()
        edited = crawl(server, tmp_path)
        assert requests_for(server, "/a.html") == [True]  # parsed with the anchors it was split at: once is enough
        assert sections(edited, server) == by_anchor
        assert text(edited, server, "usage").endswith("evaluated first, once.")


def test_a_link_added_to_another_page_splits_a_page_that_answers_304(tmp_path: Path) -> None:
    with recording_server() as server:
        serve(server, UNLINKED_GUIDE)
        first = crawl(server, tmp_path)
        assert [s.kind for s in sections(first, server).values()] == ["heading"] * 3

        serve(server)  # the guide now links to the entries; the reference page is unchanged
        server.requests.clear()
        linked = crawl(server, tmp_path)
        assert requests_for(server, "/a.html") == [True, False]  # a 304, then fetched in full to be split again
        assert {a for a, s in sections(linked, server).items() if s.kind == "anchor"} == {"entry", "lookup"}
        page = linked.map.page(server.origin + "/a.html")
        assert page is not None and page.linked == ("entry", "lookup", "tiny")  # what it was split at, stored

        serve(server, UNLINKED_GUIDE)  # the links go again, and so do the sections
        unlinked = crawl(server, tmp_path)
        assert sections(unlinked, server) == sections(first, server)
        assert [t for t in unlinked.texts if t.url.endswith("/a.html")] == [
            t for t in first.texts if t.url.endswith("/a.html")]


def test_the_second_split_reads_the_kept_body_and_comes_out_as_a_second_fetch_would(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # one request at a time: the index lists a.html first, so it is read before the guide that links into it (the
    # links of pages read before a page are its first split; a page read earlier than them is split a second time)
    with recording_server() as server:
        serve(server)
        kept = crawl(server, tmp_path / "kept", concurrency=1)
        assert requests_for(server, "/a.html") == [False]  # split again from the body of its one fetch
        monkeypatch.setattr(crawl_loop, "MAX_KEPT_BODY_BYTES", 0)
        server.requests.clear()
        fetched = crawl(server, tmp_path / "fetched", concurrency=1)
        assert requests_for(server, "/a.html") == [False, False]  # no room for bodies: fetched and parsed again
    assert {a for a, s in sections(kept, server).items() if s.kind == "anchor"} == {"entry", "lookup"}
    assert kept.map.pages == fetched.map.pages and kept.texts == fetched.texts
    assert kept.mentions == fetched.mentions and kept.page_texts == fetched.page_texts


def test_a_page_read_after_the_pages_that_link_into_it_is_split_once(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The reference page reached through the guide only: it is read knowing the guide's links, split at
    them at once, and comes out as the page split a second time does. No body is kept, so a second split would
    fetch the page again: it is fetched once."""
    monkeypatch.setattr(crawl_loop, "MAX_KEPT_BODY_BYTES", 0)
    with recording_server() as server:
        serve(server)
        index = (SITE / "index.html").read_text(encoding="utf-8")
        server.routes["/index.html"] = (200, HTML, index.replace('href="a.html"', 'href="b.html"'))  # via the guide
        guide_first = crawl(server, tmp_path / "guide-first", concurrency=1)
        assert requests_for(server, "/a.html") == [False]
        server.routes["/index.html"] = (200, HTML, index)
        server.requests.clear()
        reference_first = crawl(server, tmp_path / "reference-first", concurrency=1)
        assert requests_for(server, "/a.html") == [False, False]  # read before the guide: fetched again to be split
    assert {a for a, s in sections(guide_first, server).items() if s.kind == "anchor"} == {"entry", "lookup"}
    assert guide_first.map.pages[server.origin + "/a.html"] == reference_first.map.pages[server.origin + "/a.html"]
    assert [t for t in guide_first.texts if t.url.endswith("/a.html")] == [
        t for t in reference_first.texts if t.url.endswith("/a.html")]
    assert [p for p in guide_first.page_texts if p.url.endswith("/a.html")] == [
        p for p in reference_first.page_texts if p.url.endswith("/a.html")]


def test_only_other_pages_links_to_anchors_that_are_not_headings_count() -> None:
    mentions = {"http://h/b.html": [("http://h/a.html#entry", "entry()", ""), ("http://h/a.html#caf%C3%A9", "x", ""),
                                     ("http://h/a.html#missing", "gone", ""), ("http://h/a.html", "a", "")],
                "http://h/a.html": [("http://h/a.html#own", "own", "")]}
    anchors = {"http://h/a.html": frozenset({"entry", "café", "own", "usage"}), "http://h/b.html": frozenset()}
    found = linked_elsewhere(mentions, lambda link: link if link in anchors else None, anchors.__getitem__)
    assert found == {"http://h/a.html": frozenset({"entry", "café"})}
    heading = Section("entry", "Entry", 2, ("A", "Entry"))
    assert split_at(found["http://h/a.html"], [heading]) == ("café",)
    assert split_at({"entry"}, [Section("entry", "entry", 3, ("A", "entry"), "anchor")]) == ("entry",)


def test_a_second_split_at_anchors_that_start_no_section_is_the_first_one() -> None:
    """The first walk learns which anchors start a section where they are if linked (``Extracted.starts``): not one
    in the middle of a sentence, nor one inside an API entry, nor a heading's. Splitting again at others changes
    nothing, so the crawl keeps the first split (``ParsePool.extract_again`` returns it as it is)."""
    page = (SITE / "a.html").read_text(encoding="utf-8").replace(
        '<h2 id="usage">', '<p>Call it with <span id="note"></span>a key.</p>'
        '<dl class="py function"><dt id="get">get(key)</dt><dd><span id="param"></span><p>The key to look for, a '
        'string of any length.</p></dd></dl><h2 id="usage">')
    url = "http://h/a.html"
    first = extract(page, url)
    assert {"entry", "tiny", "lookup"} <= first.starts
    assert not {"note", "param", "get", "usage", "functions"} & first.starts
    assert not moves_split((), {"note", "param"}, first.starts)
    assert extract(page, url, elsewhere=frozenset({"note", "param"})) == first
    assert moves_split((), {"lookup"}, first.starts) and moves_split(("lookup",), (), first.starts)
    assert extract(page, url, elsewhere=frozenset({"lookup"})).sections != first.sections
    body = FetchResult(url, url, 200, body=page.encode(), content_type="text/html")
    again = asyncio.run(ParsePool(processes=0).extract_again(body, frozenset({"note"}), first, ()))
    assert again is first


def test_a_page_queues_its_links_in_its_own_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One request at a time: the index links to the guide before the reference page (whose URL sorts first), so
    the guide is read first and the reference page is split once, at its only fetch (no body is kept)."""
    monkeypatch.setattr(crawl_loop, "MAX_KEPT_BODY_BYTES", 0)
    with recording_server() as server:
        serve(server)
        server.routes["/index.html"] = (200, HTML, '<!doctype html><html><head><title>Manual</title></head><body>'
                                                   '<h1 id="manual">Manual</h1><p>A <a href="b.html">guide</a> to the '
                                                   '<a href="a.html">functions</a>.</p></body></html>')
        result = crawl(server, tmp_path, concurrency=1)
        assert [path for path, _ in server.requests if path.endswith(".html")] == ["/index.html", "/b.html", "/a.html"]
    assert {a for a, s in sections(result, server).items() if s.kind == "anchor"} == {"entry", "lookup"}
