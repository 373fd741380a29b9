"""A cited page that changed since its crawl: the link's text directive comes from the page as served now, or none.

A real page served on 127.0.0.1 is crawled; then the quoted sentence is moved to an earlier part of the page (a
browser would land there, outside the cited section), edited, or the server stops. What a user would check: the
link still lands in its section (no directive, or one that the page as served now supports), and each page is asked
once per TTL, with a conditional request.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from crawlers.crawl import CrawlConfig
from crawlers.model import AnchorMap
from crawlers.page_text import PageText
from crawlers.urls import split_directive
from docbot.freshness import DOWN_S, LivePages
from docbot.references.textfrag import PageMatcher, parse
from docbot.references.validator import ReferenceValidator
from tests.conftest import serve_directory
from tests.crawling import crawl_as_cli

SLOW_MACHINE_S = 60.0  # a response's time limit in these tests: a busy machine must not turn a 304 into a timeout
QUOTE = "Call the tool with a path to read the file it names."
PAGE = """<html><head><title>Guide</title></head><body><div role="main">
<h1 id="guide">Guide</h1><p>Welcome to the guide of the tool. {intro}</p>
<section id="install"><h2>Install</h2><p>Run the installer once and wait for it to finish its work.</p></section>
<section id="usage"><h2>Usage</h2><p>{usage}</p><p>Pass a second path to write the result there.</p></section>
</div></body></html>"""


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def write(root: Path, intro: str = "", usage: str = QUOTE, age_s: float = 86400) -> None:
    path = root / "guide.html"
    path.write_text(PAGE.format(intro=intro, usage=usage), encoding="utf-8")
    then = time.time() - age_s  # an old Last-Modified is a strong validator: a conditional request gets a 304
    os.utime(path, (then, then))


@pytest.fixture()
def site(tmp_path: Path) -> Iterator[tuple[Path, str, AnchorMap, dict[str, PageText]]]:
    root = tmp_path / "site"
    root.mkdir()
    write(root)
    with serve_directory(root) as base:
        config = CrawlConfig(site="t", start_url=base + "guide.html", sitemaps=False)
        result, generation = crawl_as_cli(config, tmp_path / "maps", tmp_path / "data")
        yield root, base, result.map, {page.url: page for page in generation.load_pages()}


def validator_for(amap: AnchorMap, texts: dict[str, PageText], live: LivePages) -> ReferenceValidator:
    return ReferenceValidator({"t": amap}, page_texts=lambda site, page: texts.get(page),
                              freshen=live.for_maps({"t": amap}))


def directive_of(url: str) -> str | None:
    return split_directive(url)[1]


def test_an_unchanged_page_is_asked_once_per_ttl_with_a_conditional_request(site) -> None:
    _root, base, amap, texts = site
    assert amap.page(base + "guide.html").last_modified  # the crawl recorded a validator to ask with
    clock = Clock()
    live = LivePages(clock=clock, timeout_s=SLOW_MACHINE_S)
    validator = validator_for(amap, texts, live)
    out = validator.quote_link(base + "guide.html#usage", QUOTE, "t").output
    assert out and directive_of(out), out
    assert validator.quote_link(base + "guide.html#usage", QUOTE, "t").output == out
    assert live.requests == 1  # the second answer within the TTL asks nothing
    clock.now += live.ttl_s + 1
    assert validator.quote_link(base + "guide.html#usage", QUOTE, "t").output == out
    assert live.requests == 2


def test_a_sentence_moved_earlier_after_the_crawl_gets_no_directive_that_would_land_there(site) -> None:
    root, base, amap, texts = site
    stale = ReferenceValidator({"t": amap}, page_texts=lambda s, p: texts.get(p))  # no freshness: what the crawl saw
    old = stale.quote_link(base + "guide.html#usage", QUOTE, "t").output
    assert old and directive_of(old)
    write(root, intro=QUOTE, usage="Call it with a path.", age_s=0)  # moved to the guide's intro
    live = LivePages(timeout_s=SLOW_MACHINE_S)
    validator = validator_for(amap, texts, live)
    out = validator.quote_link(base + "guide.html#usage", QUOTE, "t").output
    assert out == base + "guide.html#usage"  # the #fragment alone: a browser lands on the section
    kept = validator.check_url(old, "t")  # the directive sent before the move: dropped now, the #fragment kept
    assert kept.output == base + "guide.html#usage" and "outside #usage" in kept.reason
    # the directive from the crawl's text, checked against the page as served now, lands in the guide's intro
    now = live.check(amap.page(base + "guide.html"), texts[base + "guide.html"])
    assert now is not None and now is not texts[base + "guide.html"]
    found, _ = parse(directive_of(old) or "")
    assert found[0] is not None and "outside #usage" in PageMatcher(now).lands(found[0], "usage")


def test_an_edited_page_gets_directives_from_its_text_as_served_now(site) -> None:
    root, base, amap, texts = site
    edited = "Call the tool with two paths to copy the first file to the second."
    write(root, usage=edited, age_s=0)
    validator = validator_for(amap, texts, LivePages(timeout_s=SLOW_MACHINE_S))
    assert validator.quote_link(base + "guide.html#usage", QUOTE, "t").output == base + "guide.html#usage"
    out = validator.quote_link(base + "guide.html#usage", edited, "t").output
    assert out and directive_of(out)  # the new sentence, which the crawl never saw, is quoted right


def test_a_docs_server_that_does_not_answer_costs_one_request_per_ttl_and_no_directive(site) -> None:
    _root, base, amap, texts = site
    clock = Clock()
    live = LivePages(clock=clock, timeout_s=SLOW_MACHINE_S)
    stored = texts[base + "guide.html"]
    entry = amap.page(base + "guide.html")
    assert entry is not None
    gone = dataclasses.replace(entry, url="http://127.0.0.1:9/guide.html")  # nothing listens there
    assert live.check(gone, stored) is None  # not known: no directive, the #fragment alone
    assert live.check(dataclasses.replace(gone, url="http://127.0.0.1:9/other.html"), stored) is None
    assert live.requests == 1  # the host is not asked again for a while
    assert live.check(entry, stored) is stored  # another host is
    clock.now += DOWN_S + 1
    assert live.check(gone, stored) is None and live.requests == 3
