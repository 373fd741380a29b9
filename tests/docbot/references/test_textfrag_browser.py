"""docbot's own answer links with text directives, loaded in a real browser (headless Chromium): each scrolls to the
quoted passage, which is then in the viewport, and somewhere else than the bare ``#anchor`` does.

A real site (the Python docs' library pages, Debian's python3.11-doc) is served on 127.0.0.1, crawled and indexed (with
the tests' hashing embedder: the model does not matter here), and asked questions; the links are the answers'.
Needs Debian's ``chromium`` and ``chromium-driver`` and PyPI's ``selenium`` (``scripts/install.sh`` installs them);
skipped, saying so, where they cannot be had.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crawlers.crawl import CrawlConfig, crawl_site
from crawlers.texts import load_page_texts, load_section_texts
from crawlers.urls import split_directive
from docbot.indexing.embed import HashEmbedder
from docbot.indexing.index import Index
from docbot.pipeline import Pipeline
from docbot.references.textfrag import parse
from docbot.references.validator import ReferenceValidator
from tests.conftest import serve_directory

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
MAX_LINKS = 40  # each costs two page loads
SETTLE_S = 3.0
CHROMIUM_ARGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--window-size=1280,800")
# The passage's opening words on the page (case, whitespace and curly quotes folded): is one of its places in view?
IN_VIEW_JS = """
const fold = s => s.toLowerCase().replace(/[\\u2018\\u2019]/g, "'").replace(/[\\u201c\\u201d]/g, '"');
const needle = fold(arguments[0]).replace(/\\s+/g, ' ');
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
let text = '', nodes = [], offsets = [], space = true, node;
while ((node = walker.nextNode())) {
  const data = node.data;
  for (let i = 0; i < data.length; i++) {
    let c = data[i];
    if (/\\s/.test(c)) { if (space) continue; c = ' '; space = true; } else { space = false; }
    text += c; nodes.push(node); offsets.push(i);
  }
}
text = fold(text);
for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
  const range = document.createRange();
  const last = i + needle.length - 1;
  range.setStart(nodes[i], offsets[i]);
  range.setEnd(nodes[last], offsets[last] + 1);
  const box = range.getBoundingClientRect();
  if (box.height > 0 && box.top >= 0 && box.bottom <= window.innerHeight) return true;
}
return false;
"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if chromium is None or driver is None:
        pytest.skip("Chromium is not installed: `apt-get install chromium chromium-driver` (scripts/install.sh does)")
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed: pip install selenium")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for arg in CHROMIUM_ARGS:
        options.add_argument(arg)
    profile = tempfile.mkdtemp(prefix="docbot-chromium-")
    options.add_argument(f"--user-data-dir={profile}")
    options.binary_location = chromium
    try:
        session = webdriver.Chrome(options=options, service=Service(driver))
    except Exception as exc:  # noqa: BLE001 - a browser that cannot start here is a skip, not a failure
        shutil.rmtree(profile, ignore_errors=True)
        pytest.skip(f"Chromium did not start: {type(exc).__name__}: {exc}")
    try:
        yield session
    finally:
        session.quit()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def answer_links(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[tuple[str, str]]]]:
    """(served base URL, [(reference URL with a text directive, its quote)]) from docbot's answers."""
    if not ROOT.is_dir():
        pytest.skip(f"{ROOT} is missing — run scripts/install.sh (it installs python3.11-doc)")
    work = tmp_path_factory.mktemp("browser")
    with serve_directory(ROOT) as base:
        config = CrawlConfig(site="python", start_url=base + "library/index.html",
                             include=tuple(f"{page}.html" for page in PAGES), sitemaps=False)
        amap = crawl_site(config, work / "maps", work / "data").map
        with Index.open(work / "data", HashEmbedder()) as index:  # the crawl, served as a generation of its own
            index.build("python", load_section_texts(work / "data", "python"), amap,
                        pages=load_page_texts(work / "data", "python"))
            validator = ReferenceValidator({}, page_texts=lambda site, page: None)  # directives on: the view's pages
            pipeline = Pipeline(index, {}, validator)
            links: dict[str, str] = {}
            for question in QUESTIONS:
                for ref in pipeline.ask(question, site="python").references:
                    if ":~:" in ref.url:
                        links.setdefault(ref.url, ref.quote)
        yield base, list(links.items())[:MAX_LINKS]


def _settled_scroll(driver: Any, url: str) -> int:
    """scrollY once a fresh load of ``url`` stops scrolling (text fragments scroll after the load event)."""
    driver.get("about:blank")  # a new navigation each time: a same-document one would not apply the directive
    driver.get(url)
    last, still, deadline = -1, 0, time.monotonic() + SETTLE_S
    while time.monotonic() < deadline and still < 3:
        y = int(driver.execute_script("return Math.round(window.scrollY)"))
        still = still + 1 if y == last else 0
        last = y
        time.sleep(0.1)
    return last


def test_answer_links_scroll_to_the_quoted_passage_in_chromium(browser: Any, answer_links: tuple[str, list[tuple[str, str]]]) -> None:
    _, links = answer_links
    assert len(links) >= MIN_LINKS, f"only {len(links)} answer links carry a text directive"
    failures = []
    for url, quote in links:
        bare, directive = split_directive(url)
        found, _ = parse(directive or "")
        start = found[0].start if found and found[0] is not None else ""
        anchor_y = _settled_scroll(browser, bare)
        text_y = _settled_scroll(browser, url)
        in_view = bool(browser.execute_script(IN_VIEW_JS, start))
        if not in_view or text_y == anchor_y:
            failures.append(f"{url} (quote {quote[:60]!r}): in view {in_view}, scrollY {text_y} vs anchor {anchor_y}")
    assert not failures, f"{len(failures)} of {len(links)} links:\n" + "\n".join(failures)
