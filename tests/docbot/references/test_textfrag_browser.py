"""docbot's own answer links with text directives, loaded in a real browser (headless Chromium): each scrolls to the
quoted passage, which is then in the viewport, and somewhere else than the bare ``#anchor`` does.

A real site (the Python docs' library pages, Debian's python3.11-doc) is served on 127.0.0.1, crawled and indexed (with
the tests' hashing embedder: the model does not matter here), and asked questions; the links are the answers'.
Chromium and the settled scroll (long enough for a directive's fallback) come from :mod:`tests.browser`; skipped,
saying so, where Chromium or selenium cannot be had.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crawlers.crawl import CrawlConfig
from crawlers.urls import split_directive
from docbot.indexing.embed import HashEmbedder
from docbot.indexing.index import Index
from docbot.pipeline import Pipeline
from docbot.references.textfrag import parse
from docbot.references.validator import ReferenceValidator
from tests.browser import STILL_S, in_view, settled_scroll
from tests.conftest import serve_directory
from tests.crawling import crawl_as_cli

pytestmark = pytest.mark.slow

ROOT = Path("/usr/share/doc/python3.11-doc/html")
PAGES = ("functools", "itertools", "collections", "json", "pathlib", "re", "argparse", "logging", "datetime",
         "subprocess", "string", "os.path", "shutil", "tempfile", "csv", "random")
QUESTIONS = (
    "How do I cache the results of a function with lru_cache?",
    "What does lru_cache do when typed is true?",
    "How do I make a partial function with some arguments fixed?",
    "How do I combine two iterables with itertools chain?",
    "How do I group consecutive items with groupby?",
    "What does itertools.product return?",
    "How do I count items with a Counter?",
    "How does a defaultdict create missing values?",
    "How do I make a named tuple?",
    "How do I serialize an object to a JSON string?",
    "How do I pretty print JSON with indentation?",
    "How do I join paths with pathlib?",
    "How do I read a text file with a Path object?",
    "How do I compile a regular expression?",
    "What does re.match return when there is no match?",
    "How do I add an optional argument to an ArgumentParser?",
    "How do I log a message to a file?",
    "How do I format a date with strftime?",
    "How do I run a command and capture its output with subprocess?",
    "How do I check if a path exists?",
    "How do I copy a directory tree?",
    "How do I create a temporary directory?",
    "How do I read a CSV file?",
    "How do I pick a random element from a list?",
    "What is a Template string?",
    "How do I parse a date string into a datetime?",
)
MIN_LINKS = 20
MAX_LINKS = 25  # each costs two page loads (the directive one up to a few seconds: past any fallback)
@pytest.fixture(scope="module")
def answer_links(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[tuple[str, str]]]]:
    """(served base URL, [(reference URL with a text directive, its quote)]) from docbot's answers."""
    if not ROOT.is_dir():
        pytest.skip(f"{ROOT} is missing — run scripts/install.sh (it installs python3.11-doc)")
    work = tmp_path_factory.mktemp("browser")
    with serve_directory(ROOT) as base:
        config = CrawlConfig(site="python", start_url=base + "library/index.html",
                             include=tuple(f"{page}.html" for page in PAGES), sitemaps=False)
        with Index.open(work / "data", HashEmbedder()) as index:  # crawled and indexed as `docbot refresh` does
            crawl_as_cli(config, work / "maps", work / "data", index=index)
            validator = ReferenceValidator({}, page_texts=lambda site, page: None)  # directives on: the view's pages
            pipeline = Pipeline(index, {}, validator)
            links: dict[str, str] = {}
            for question in QUESTIONS:
                for ref in pipeline.ask(question, site="python").references:
                    if ":~:" in ref.url:
                        links.setdefault(ref.url, ref.quote)
        yield base, list(links.items())[:MAX_LINKS]


def test_answer_links_scroll_to_the_quoted_passage_in_chromium(browser: Any, answer_links: tuple[str, list[tuple[str, str]]]) -> None:
    _, links = answer_links
    assert len(links) >= MIN_LINKS, f"only {len(links)} answer links carry a text directive"
    failures = []
    for url, quote in links:
        bare, directive = split_directive(url)
        found, _ = parse(directive or "")
        start = found[0].start if found and found[0] is not None else ""
        anchor_y = settled_scroll(browser, bare, min_wait=STILL_S)  # no directive: nothing to fall back from
        # no minimum wait: at the passage, away from the anchor, is where the directive lands (a fallback would not be)
        text_y = settled_scroll(browser, url, lambda driver, y, anchor_y=anchor_y, start=start: y != anchor_y and in_view(driver, start),
                                min_wait=STILL_S)
        seen = in_view(browser, start)
        if not seen or text_y == anchor_y:
            failures.append(f"{url} (quote {quote[:60]!r}): in view {seen}, scrollY {text_y} vs anchor {anchor_y}")
    assert not failures, f"{len(failures)} of {len(links)} links:\n" + "\n".join(failures)
