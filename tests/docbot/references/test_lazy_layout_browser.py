"""A page whose style sheet lays its sections out lazily (``content-visibility: auto``: Node.js's API docs) gets no text
directive from docbot, and the bare ``#fragment`` it gets instead lands on its section in headless Chromium.

Measured before the rule: on these three sections the directive docbot made ended the view 960 to 10,300 px above
where the bare anchor puts it, the quote out of view (``child_process.html#maxbuffer-and-unicode:~:text=The%20maxBuffer
%20option,terminated``: 7,400 px); with the style removed, the same directives land on their quotes.
Served from Debian's nodejs-doc (``scripts/install.sh`` installs it); skipped, saying so, without it or Chromium.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crawlers.crawl import CrawlConfig, crawl
from crawlers.model import PageText
from docbot.references.directives import Directives
from tests.browser import STILL_S, settled_scroll
from tests.conftest import serve_directory

pytestmark = pytest.mark.slow

ROOT = Path("/usr/share/doc/nodejs/api")
# (page, section, the passage an answer quotes from it, the directive docbot derived for it before the rule)
QUOTED = (
    ("child_process.html", "maxbuffer-and-unicode",
     "The maxBuffer option specifies the largest number of bytes allowed on stdout or stderr. If this value is "
     "exceeded, then the child process is terminated.", "text=The%20maxBuffer%20option,terminated"),
    ("events.html", "eventsdefaultmaxlisteners",
     "By default, a maximum of 10 listeners can be registered for any single event.", "text=By%20default%2C%20a,event"),
    ("worker_threads.html", "class-worker",
     "The Worker class represents an independent JavaScript execution thread.", "text=The%20Worker%20class,thread"),
)
IN_VIEW_JS = """const el = document.getElementById(arguments[0]); if (!el) return false;
const box = el.getBoundingClientRect(); return box.top >= 0 && box.top < window.innerHeight;"""


@pytest.fixture(scope="module")
def node_docs() -> Iterator[tuple[str, dict[str, PageText]]]:
    """(served base URL, the crawl's page texts by URL) of the three pages."""
    if not ROOT.is_dir():
        pytest.skip(f"{ROOT} is missing — run scripts/install.sh (it installs nodejs-doc)")
    with serve_directory(ROOT) as base:
        config = CrawlConfig(site="node", start_url=base + "index.html", sitemaps=False,
                             include=tuple(page for page, *_ in QUOTED))
        result = asyncio.run(crawl(config))
        yield base, {text.url: text for text in result.page_texts}


def test_the_crawl_reads_that_the_node_pages_lay_out_lazily(node_docs: tuple[str, dict[str, PageText]]) -> None:
    base, texts = node_docs
    assert {base + page for page, *_ in QUOTED} <= set(texts)
    assert all(texts[base + page].lazy is True for page, *_ in QUOTED)


def test_a_lazily_laid_out_page_gets_the_bare_anchor_and_it_lands(browser: Any,
                                                                  node_docs: tuple[str, dict[str, PageText]]) -> None:
    base, texts = node_docs
    directives = Directives(lambda site, page: texts.get(page))
    not_lazy = Directives(lambda site, page: dataclasses.replace(texts[page], lazy=False))
    for page, fragment, passage, before in QUOTED:
        url = base + page
        assert not_lazy.derive("node", url, fragment, passage) is not None  # a page laid out as a whole would get one
        assert directives.derive("node", url, fragment, passage) is None
        kept, why = directives.judge("node", url, fragment, before)
        assert kept == "" and "content-visibility: auto" in why
        settled_scroll(browser, f"{url}#{fragment}", min_wait=STILL_S)
        assert browser.execute_script(IN_VIEW_JS, fragment), f"{url}#{fragment} does not show its section"
