"""Headless Chromium for the browser tests and the directive probe: one session, and where a fresh load settles.

A text directive scrolls after the load event; one whose text is not found leaves the page at the top for a moment
(0.3–1.5 s measured, longer on a busy machine) and then falls back to the ``#anchor``. So a scroll is read only
after :data:`MIN_WAIT_S` and once it has stayed put for :data:`STILL_S`; a caller that knows where the page should
end up passes ``until`` and the wait goes on (up to :data:`MAX_WAIT_S`) while it does not hold.
Needs Debian's ``chromium`` and ``chromium-driver`` and PyPI's ``selenium`` (``scripts/install.sh`` installs them).
Without them a browser test is skipped, saying why, unless ``DOCBOT_REQUIRE_BROWSER`` is set (``.ci/run`` sets it):
then it fails (:func:`no_browser`).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from crawlers.errors import BrowserUnavailable as RendererUnavailable
from crawlers.fetch.browser import Browser

CHROMIUM_ARGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--window-size=1280,800")
REQUIRE_BROWSER = "DOCBOT_REQUIRE_BROWSER"  # set (non-empty): a test that needs Chromium fails without it
MIN_WAIT_S = 3.0  # past the fallback of a directive that is not found
STILL_S = 1.0
MAX_WAIT_S = 10.0
POLL_S = 0.1


class BrowserUnavailable(RuntimeError):
    """Chromium, chromedriver or selenium is missing here, or Chromium did not start."""


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium WebDriver session with a throwaway profile; :class:`BrowserUnavailable` when there is none."""
    binary, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if binary is None or driver is None:
        raise BrowserUnavailable("Chromium is not installed: `apt-get install chromium chromium-driver` (scripts/install.sh does)")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError as exc:
        raise BrowserUnavailable(f"selenium is not installed: pip install selenium ({exc})") from exc
    options = webdriver.ChromeOptions()
    for arg in CHROMIUM_ARGS:
        options.add_argument(arg)
    profile = tempfile.mkdtemp(prefix="docbot-chromium-")
    options.add_argument(f"--user-data-dir={profile}")
    options.binary_location = binary
    try:
        session = webdriver.Chrome(options=options, service=Service(driver))
    except Exception as exc:  # a browser that cannot start here is unavailable, not a failure
        shutil.rmtree(profile, ignore_errors=True)
        raise BrowserUnavailable(f"Chromium did not start: {type(exc).__name__}: {exc}") from exc
    try:
        # every load reads the page as served now (a test that edits a page after loading it must not see the cache)
        session.execute_cdp_cmd("Network.enable", {})
        session.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
        yield session
    finally:
        session.quit()
        shutil.rmtree(profile, ignore_errors=True)


def no_browser(why: str) -> None:
    """A test that needs Chromium and has none: skipped, saying why, or failed when $DOCBOT_REQUIRE_BROWSER is set."""
    if os.environ.get(REQUIRE_BROWSER):
        pytest.fail(f"{why} (and {REQUIRE_BROWSER} is set)")
    pytest.skip(why)


def needs_renderer() -> None:
    """A test of the crawl's own rendering browser (:class:`crawlers.fetch.browser.Browser`): without its Chromium and
    chromedriver, :func:`no_browser` decides (skip or fail)."""
    try:
        Browser.check()
    except RendererUnavailable as exc:
        no_browser(str(exc))


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One Chromium session for a test module; without one, :func:`no_browser` decides (skip or fail)."""
    try:
        with chromium() as session:
            yield session
    except BrowserUnavailable as exc:
        no_browser(str(exc))


# The page's text as find-in-page reads it (whitespace collapsed, case and curly quotes folded), with each
# character's text node and offset: ``text``, ``nodes``, ``offsets`` (shared by the checks below and the scripts).
TEXT_MAP_JS = """
function fold(s) { return s.toLowerCase().replace(/[\\u2018\\u2019]/g, "'").replace(/[\\u201c\\u201d]/g, '"'); }
const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
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
"""
# Is one place of ``text`` (its words, case, whitespace and curly quotes folded) inside the element with id ``within``
# (the whole body when null) in the viewport?
IN_VIEW_JS = """
const root = arguments[1] === null ? document.body : document.getElementById(arguments[1]);
if (!root) return false;
""" + TEXT_MAP_JS + """
const needle = fold(arguments[0]).replace(/\\s+/g, ' ').trim();
if (!needle) return false;
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


def in_view(driver: Any, text: str, within: str | None = None) -> bool:
    """Whether ``text`` (inside the element with id ``within``, or anywhere) is in the viewport now."""
    return bool(driver.execute_script(IN_VIEW_JS, text, within))


def scroll_y(driver: Any) -> int:
    return int(driver.execute_script("return Math.round(window.scrollY)"))


def settled_scroll(driver: Any, url: str, until: Callable[[Any, int], bool] | None = None, *,
                   min_wait: float = MIN_WAIT_S, still: float = STILL_S, max_wait: float = MAX_WAIT_S) -> int:
    """scrollY once a fresh load of ``url`` has settled: ``min_wait`` after the load and unmoved for ``still``.

    With ``until`` (driver, scrollY) → bool, keep waiting while it is false, up to ``max_wait``: a busy machine
    delays the fallback, and a wait that ends on the condition costs nothing when it holds.
    """
    driver.get("about:blank")  # a new navigation each time: a same-document one would not apply the directive
    driver.get(url)  # returns after the load event
    start = time.monotonic()
    last, since = scroll_y(driver), start
    while True:
        time.sleep(POLL_S)
        now, y = time.monotonic(), scroll_y(driver)
        if now - start >= max_wait:
            return y
        if y != last:
            last, since = y, now
            continue
        if now - start >= min_wait and now - since >= still and (until is None or until(driver, y)):
            return y
