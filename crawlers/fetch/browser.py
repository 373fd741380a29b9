"""One headless Chromium that renders pages: the only module of the crawler that drives a browser (selenium).

:class:`Browser` starts Debian's ``chromium`` through ``chromedriver`` on its first page and reuses it: each page in a
tab of its own, at most ``max_tabs`` at once, closed when read. A page is read once it has settled, a condition and
not a sleep: the document loaded, the generator's content present (a CSS selector from :mod:`crawlers.fetch.shell`)
and the DOM unchanged for :data:`QUIET_S`; it gives up after ``timeout`` seconds. An app that renders its entries
collapsed (Swagger UI) has them expanded once it has settled: every control matching ``expand`` clicked in one task of
the page (in batches, each click re-rendered all that was open: 105 operations took 3-4 times as long), again for
those that reveals, up to :data:`MAX_EXPAND` clicks and :data:`EXPAND_TIMEOUT` seconds; when the app renders a long list
only in part (virtualized), the list is then scrolled through, each item expanded and read while mounted
(:mod:`crawlers.fetch.virtual`, in a viewport :data:`READ_VIEW_PX` tall), in :data:`EXPAND_TIMEOUT` seconds more at
most; the page is read when it has settled again. A browser that dies is started again (once per page). Selenium is synchronous: its calls run in a thread, one at a time (a WebDriver session takes one
command at a time); the tabs load and run their scripts side by side in between.
"""

from __future__ import annotations

import asyncio
import logging
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from crawlers.errors import BrowserUnavailable
from crawlers.fetch.virtual import VirtualList, read_virtual

log = logging.getLogger(__name__)

PAGE_TIMEOUT = 30.0  # seconds from opening a page to reading its settled DOM
MAX_TABS = 2  # pages rendering at once in the one browser
QUIET_S = 0.5  # the DOM unchanged this long (its content present) counts as settled
QUIET_BARE_S = 2.0  # the same for an unknown app whose page still has almost no text (it may be fetching its content)
BARE_TEXT = 120  # characters of text below which an unknown app's page counts as not rendered yet
POLL_S = 0.1
EXPAND_TIMEOUT = 180.0  # seconds of expanding one page (Swagger UI, 105 operations: 19-28 s on a busy 2-core machine)
MAX_EXPAND = 5000  # controls clicked on one page
READ_VIEW_PX = 4000  # the viewport's height while a virtualized list is read: the more it mounts, the fewer steps
HEAP_MB = 512  # V8 heap cap per renderer process
CHROMIUM_ARGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-extensions", "--mute-audio",
                 "--window-size=1280,800",
                 # background tabs must run their timers at full speed: every tab but one is in the background
                 "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
                 "--disable-backgrounding-occluded-windows", f"--js-flags=--max-old-space-size={HEAP_MB}")
INSTALL = "apt-get install chromium chromium-driver (scripts/install.sh does), or set the site's render = \"never\""
# document state, element count, text length, and whether the generator's rendered content is there
_STATE_JS = """
const ready = arguments[0];
const body = document.body;
const chars = body ? body.innerText.trim().length : 0;
return [document.readyState, document.getElementsByTagName('*').length, chars,
        ready === null ? chars >= arguments[1] : document.querySelector(ready) !== null];
"""
# click, in one task of the page once this script has returned, up to arguments[1] of the controls matching arguments[0]
# (each expands something collapsed); returns how many it will click
_EXPAND_JS = """
const found = Array.from(document.querySelectorAll(arguments[0])).slice(0, arguments[1]);
if (found.length) setTimeout(() => found.forEach(e => e.click()), 0);
return found.length;
"""
_COLLAPSED_JS = "return document.querySelectorAll(arguments[0]).length;"  # run once the clicks' task has ended
_PRESENT_JS = "return document.querySelector(arguments[0]) !== null;"
_HTML_JS = "return '<!DOCTYPE html>' + document.documentElement.outerHTML;"
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Rendered:
    """The DOM of one page once settled (``html``), or why there is none (``error``)."""

    html: str | None
    error: str | None = None
    seconds: float = 0.0
    items: tuple[str, ...] = ()  # a virtualized list's items, read while mounted, in order (crawlers.fetch.virtual)


class _TabFailed(Exception):
    """A WebDriver call for one page failed, in the browser numbered ``browser`` (:attr:`Browser.starts`)."""

    def __init__(self, error: Exception, browser: int) -> None:
        super().__init__(str(error))
        self.error = error
        self.browser = browser


def _dead(exc: Exception) -> bool:
    """Whether a WebDriver error means the browser or its driver is gone (not just this page)."""
    name = type(exc).__name__
    text = str(exc).lower()
    return name in ("InvalidSessionIdException", "NoSuchWindowException", "MaxRetryError", "ConnectionRefusedError",
                    "ProtocolError", "RemoteDisconnected") or "session deleted" in text or "not reachable" in text \
        or "disconnected" in text or "crashed" in text


class Browser:
    """Headless Chromium for one crawl: ``await render(url, ready)`` each page, ``await close()`` at the end."""

    def __init__(self, max_tabs: int = MAX_TABS, timeout: float = PAGE_TIMEOUT, user_agent: str | None = None) -> None:
        self.timeout = timeout
        self.user_agent = user_agent
        self.starts = 0  # browsers started (a restart after a crash counts)
        self.pages = 0
        self.peak_tabs = 0  # most pages open at once
        self._open_tabs = 0
        self._driver: Any = None
        self._profile: str | None = None
        self._home: str | None = None  # the first tab, kept open: closing a session's last tab ends it
        self._tabs = asyncio.Semaphore(max(1, max_tabs))
        self._lock = asyncio.Lock()

    @staticmethod
    def check() -> None:
        """Raise :class:`BrowserUnavailable` (one line, saying what to install) when Chromium cannot be driven here."""
        for program in ("chromium", "chromedriver"):
            if shutil.which(program) is None:
                raise BrowserUnavailable(f"Rendering needs Chromium and `{program}` is not on PATH: {INSTALL}")
        try:
            import selenium.webdriver  # noqa: F401
        except ImportError:
            raise BrowserUnavailable("Rendering needs selenium: pip install 'docbot[browser]'") from None

    async def render(self, url: str, ready: str | None, expand: str | None = None,
                     virtual: VirtualList | None = None) -> Rendered:
        """The settled DOM of ``url`` (``ready``: a CSS selector its content matches once rendered, or None), with
        every control matching ``expand`` (a CSS selector) clicked once it has rendered, and the items of its
        ``virtual`` list, when it renders one, read by scrolling it (:mod:`crawlers.fetch.virtual`)."""
        async with self._tabs:
            self._open_tabs += 1
            self.peak_tabs = max(self.peak_tabs, self._open_tabs)
            try:
                return await self._render_once_or_twice(url, ready, expand, virtual)
            finally:
                self._open_tabs -= 1

    async def _render_once_or_twice(self, url: str, ready: str | None, expand: str | None,
                                    virtual: VirtualList | None) -> Rendered:
        started = time.monotonic()
        for attempt in (1, 2):
            try:
                return await self._render(url, ready, started, expand, virtual)
            except BrowserUnavailable:
                raise
            except _TabFailed as failed:
                exc = failed.error
                if attempt == 2 or not _dead(exc):
                    log.warning("could not render %s: %s", url, _line(exc))
                    return Rendered(None, f"{type(exc).__name__}: {_line(exc)}", time.monotonic() - started)
                log.warning("the browser died rendering %s (%s); starting it again", url, _line(exc))
                await self._call(self._quit, failed.browser)  # unless another page has started a new one already
        raise AssertionError("unreachable")

    async def close(self) -> None:
        await self._call(self._quit)

    async def _render(self, url: str, ready: str | None, started: float, expand: str | None = None,
                      virtual: VirtualList | None = None) -> Rendered:
        browser = self.starts + (self._driver is None)  # the number of the browser this page is opened in
        try:
            handle = await self._call(self._open, url)
        except BrowserUnavailable:
            raise
        except Exception as exc:  # selenium's errors are many
            raise _TabFailed(exc, browser) from exc
        try:
            last: tuple[int, int] | None = None
            since = time.monotonic()
            items: tuple[str, ...] = ()
            deadline = started + self.timeout
            while True:
                state, count, chars, present = await self._call(self._in_tab, handle, _STATE_JS, ready, BARE_TEXT)
                now = time.monotonic()
                quiet = QUIET_S if present else QUIET_BARE_S if ready is None else None
                if (count, chars) != last:
                    last, since = (count, chars), now
                elif state == "complete" and quiet is not None and now - since >= quiet:
                    if expand is not None and present:
                        await self._expand(url, handle, expand)
                        items = await self._read_virtual(url, handle, expand, virtual)
                        expand, last, since = None, None, time.monotonic()
                        deadline = since + self.timeout  # as long again to settle once expanded
                        continue
                    html = await self._call(self._in_tab, handle, _HTML_JS)
                    self.pages += 1
                    return Rendered(str(html), None, now - started, items)
                if now > deadline:
                    why = "its content never appeared" if not present else "it never settled"
                    log.warning("%s did not render within %.0f s (%s)", url, self.timeout, why)
                    return Rendered(None, f"timeout after {self.timeout:.0f} s ({why})", now - started)
                await asyncio.sleep(POLL_S)
        except Exception as exc:  # selenium's errors are many
            raise _TabFailed(exc, browser) from exc
        finally:
            await self._call(self._close_tab, handle)

    async def _expand(self, url: str, handle: str, selector: str) -> int:
        """Click every control matching ``selector`` in the tab, in one task of the page, and again for those the
        clicks reveal; bounded by :data:`EXPAND_TIMEOUT` and :data:`MAX_EXPAND`. Returns how many it clicked."""
        started, clicked, left = time.monotonic(), 0, 0
        while clicked < MAX_EXPAND and time.monotonic() - started < EXPAND_TIMEOUT:
            done = int(await self._call(self._in_tab, handle, _EXPAND_JS, selector, MAX_EXPAND - clicked))
            clicked += done
            # answered once the page's task of clicks (and the renders it runs) has ended
            left = int(await self._call(self._in_busy_tab, handle, _COLLAPSED_JS, selector))
            if not done or not left:
                break
        if left:
            log.warning("%s: %d controls left collapsed after %d clicked in %.0f s", url, left, clicked,
                        time.monotonic() - started)
        log.info("%s: expanded %d in %.1f s", url, clicked, time.monotonic() - started)
        return clicked

    async def _read_virtual(self, url: str, handle: str, expand: str, virtual: VirtualList | None) -> tuple[str, ...]:
        """The items of the page's virtualized list, when it renders one, each expanded while mounted."""
        if virtual is None or not await self._call(self._in_tab, handle, _PRESENT_JS, virtual.root):
            return ()

        await self._call(self._view_height, handle, READ_VIEW_PX)

        async def step(script: str, *args: Any) -> Any:
            return await self._call(self._in_tab_async, handle, script, *args)

        return (await read_virtual(step, url, virtual, expand, EXPAND_TIMEOUT)).items

    async def _call(self, fn: Callable[..., T], *args: Any) -> T:
        async with self._lock:
            return await asyncio.to_thread(fn, *args)

    # -- in the worker thread, under the lock ------------------------------
    def _start(self) -> Any:
        self.check()
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        options = webdriver.ChromeOptions()
        for arg in CHROMIUM_ARGS:
            options.add_argument(arg)
        if self.user_agent:
            options.add_argument(f"--user-agent={self.user_agent}")
        self._profile = tempfile.mkdtemp(prefix="docbot-render-")
        options.add_argument(f"--user-data-dir={self._profile}")
        options.binary_location = shutil.which("chromium") or "chromium"
        options.page_load_strategy = "none"  # get() returns at once; the tab is then polled until it settles
        try:
            driver = webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver")))
        except Exception as exc:  # noqa: BLE001 - whatever stops it, the crawl is told in one line
            shutil.rmtree(self._profile, ignore_errors=True)
            raise BrowserUnavailable(f"Chromium did not start ({type(exc).__name__}: {_line(exc)}): {INSTALL}") from None
        driver.set_script_timeout(self.timeout)  # a page whose scripts never yield fails its call, not the crawl
        self.starts += 1
        self._home = driver.current_window_handle
        log.info("started headless Chromium for rendering (%s)", driver.capabilities.get("browserVersion", "?"))
        return driver

    def _open(self, url: str) -> str:
        if self._driver is None:
            self._driver = self._start()
        self._driver.switch_to.new_window("tab")
        handle = str(self._driver.current_window_handle)
        self._driver.get(url)
        return handle

    def _in_tab(self, handle: str, script: str, *args: Any) -> Any:
        self._driver.switch_to.window(handle)
        return self._driver.execute_script(script, *args)

    def _in_tab_async(self, handle: str, script: str, *args: Any) -> Any:
        self._driver.switch_to.window(handle)
        return self._driver.execute_async_script(script, *args)

    def _view_height(self, handle: str, pixels: int) -> None:
        """The tab's viewport made ``pixels`` tall (its width kept): a virtualized list mounts what fits in it."""
        self._driver.switch_to.window(handle)
        width = int(self._driver.execute_script("return window.innerWidth"))
        self._driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                     {"width": width, "height": pixels, "deviceScaleFactor": 1, "mobile": False})

    def _in_busy_tab(self, handle: str, script: str, *args: Any) -> Any:
        """A script in a tab that may be busy for long (expanding): it waits up to EXPAND_TIMEOUT, not the page's."""
        self._driver.set_script_timeout(EXPAND_TIMEOUT)
        try:
            return self._in_tab(handle, script, *args)
        finally:
            self._driver.set_script_timeout(self.timeout)

    def _close_tab(self, handle: str) -> None:
        if self._driver is None:
            return
        try:
            self._driver.switch_to.window(handle)
            self._driver.close()
            self._driver.switch_to.window(self._home)
        except Exception as exc:  # noqa: BLE001 - a tab that cannot be closed goes with the browser
            log.debug("could not close a tab: %s", _line(exc))

    def _quit(self, browser: int | None = None) -> None:
        if browser is not None and browser != self.starts:
            return  # that browser is gone and another started since
        driver, self._driver = self._driver, None
        if driver is not None:
            try:
                driver.quit()
            except Exception as exc:  # noqa: BLE001 - it is being thrown away
                log.debug("quitting Chromium: %s", _line(exc))
        if self._profile:
            shutil.rmtree(self._profile, ignore_errors=True)
            self._profile = None


def _line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
