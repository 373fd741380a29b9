"""What pages say about the sections they link to: link words, their sentence, index entries, and recrawls."""

from __future__ import annotations

import asyncio

import httpx

from crawlers.crawl import CrawlConfig, CrawlResult, crawl
from crawlers.model import AnchorMap, Mention, SectionText
from crawlers.parse.extract import extract
from tests.crawlers.test_crawl_incremental import conditional_site, pages
from tests.crawlers.test_crawl_loop import BASE, page

PROSE = ('<html><body><div role="main"><h1 id="top">Queries</h1>'
         '<p>Rows come one query at a time. Use <a href="api.html#select-related">select_related()</a> to avoid '
         'a query per row. Nothing else here.</p>'
         '<p><a href="#top">¶</a></p></div><nav><a href="api.html#other">Sidebar link</a></nav></body></html>')
GENINDEX = ('<html><body><div role="main"><h1>Index</h1><ul>'
            '<li>abs<ul><li><a href="lib.html#abs">built-in function</a></li>'
            '<li><a href="ops.html#abs">operator method</a></li></ul></li></ul>'
            '<dl><dt>ABORT</dt><dd><dl><dt>transaction, <a href="sql-abort.html">ABORT</a></dt></dl></dd></dl>'
            '</div></body></html>')


def test_a_link_brings_its_words_and_the_sentence_around_them_not_chrome_or_permalinks() -> None:
    ex = extract(PROSE, "http://d/queries.html")
    assert ex.mentions == (("http://d/api.html#select-related", "select_related()",
                            "Use select_related() to avoid a query per row."),)


def test_index_entries_are_named_by_the_entries_they_are_nested_under() -> None:
    ex = extract(GENINDEX, "http://d/genindex.html")
    by_target = {target: context for target, _, context in ex.mentions}
    assert by_target["http://d/lib.html#abs"] == "abs › built-in function"
    assert by_target["http://d/ops.html#abs"] == "abs › operator method"
    assert by_target["http://d/sql-abort.html"] == "ABORT › transaction, ABORT"


SPEAKER = page("Speaker", '<p>To set it up, read <a href="guide.html#usage">how to call it</a> first.</p>')


def _crawl(router: object, previous: AnchorMap | None = None, texts: list[SectionText] | None = None,
           mentions: list[Mention] | None = None) -> CrawlResult:
    async def go() -> CrawlResult:
        async with httpx.AsyncClient(transport=httpx.MockTransport(router.async_handler)) as client:  # type: ignore[attr-defined]
            cfg = CrawlConfig(site="t", start_url=BASE, backoff=0.0, retries=1)
            return await crawl(cfg, previous, texts or [], client=client, previous_mentions=mentions)

    return asyncio.run(go())


def test_a_mention_is_resolved_to_its_section_and_kept_when_its_page_answers_304() -> None:
    site = pages(**{"index.html": page("Home", '<a href="speaker.html">s</a><a href="guide.html">g</a>'),
                    "speaker.html": SPEAKER})
    first = _crawl(conditional_site(site))
    said = [m for m in first.mentions if m.source.endswith("speaker.html")]
    assert [(m.target, m.fragment, m.section, m.text) for m in said] == [
        (BASE + "guide.html", "usage", "usage", "how to call it")]
    assert said[0].context == "To set it up, read how to call it first."
    second = _crawl(conditional_site(site), first.map, first.texts, first.mentions)
    assert second.stats.fetched == 0  # every page answered 304
    assert second.mentions == first.mentions


def test_a_map_without_saved_mentions_is_parsed_again() -> None:
    site = pages(**{"index.html": page("Home", '<a href="speaker.html">s</a>'), "speaker.html": SPEAKER})
    first = _crawl(conditional_site(site))
    again = _crawl(conditional_site(site), first.map, first.texts, None)
    assert again.stats.not_modified == 0 and again.mentions == first.mentions


TEXINFO_INDEX = ('<html><body><div class="contents-free"><h2 id="Index">Index</h2><table class="index-cp">'
                 '<tr><td></td><td class="index-entry-id"><a href="Job-Control.html#index-background">background</a>:'
                 '</td><td class="index-section"><a href="Job-Control.html#Job-Control-Basics">Job Control Basics</a>'
                 '</td></tr></table></div></body></html>')


def test_a_texinfo_index_row_names_its_section_by_the_entry() -> None:
    ex = extract(TEXINFO_INDEX, "http://d/Index.html")
    by_target = {target: context for target, _, context in ex.mentions}
    assert by_target["http://d/Job-Control.html#Job-Control-Basics"] == "background: Job Control Basics"
