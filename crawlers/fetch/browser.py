"""One headless Chromium that renders pages: the only module of the crawler that drives a browser (selenium).

:class:`Browser` starts Debian's ``chromium`` through ``chromedriver`` on its first page and reuses it: each page in a
tab of its own, at most ``max_tabs`` at once, closed when read. A page is read once it has settled, a condition and
not a sleep: the document loaded, the generator's content present (a CSS selector from :mod:`crawlers.fetch.shell`)
and the DOM unchanged for :data:`QUIET_S`; it gives up after ``timeout`` seconds. An app that renders its entries
collapsed (Swagger UI) has them expanded once it has settled (:mod:`crawlers.fetch.expand`: every control matching
``expand`` clicked, within the page's expansion budget); when the app renders a long list
only in part (virtualized), the list is then scrolled through, each item expanded and read while mounted
(:mod:`crawlers.fetch.virtual`, in a viewport :data:`READ_VIEW_PX` tall), in that budget again at most; the page is
read when it has settled again. The page limit, the budget and the V8 heap are the page's
:class:`crawlers.fetch.limits.RenderLimits` (scaled to the API description it loads): the heap is the browser's, so
a page that needs more restarts it with more when no other page is open in it. A browser that dies is started again (once per page). Selenium is synchronous: its calls run in a thread, one at a time (a WebDriver session takes one
command at a time); the tabs load and run their scripts side by side in between.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from crawlers.errors import BrowserUnavailable
from crawlers.fetch.expand import expand_all
from crawlers.fetch.limits import HEAP_MB, PAGE_TIMEOUT, RenderLimits
from crawlers.fetch.virtual import ReadList, VirtualList, read_virtual

log = logging.getLogger(__name__)

MAX_TABS = 2  # pages rendering at once in the one browser
QUIET_S = 0.5  # the DOM unchanged this long (its content present) counts as settled
QUIET_BARE_S = 2.0  # the same for an unknown app whose page still has almost no text (it may be fetching its content)
BARE_TEXT = 120  # characters of text below which an unknown app's page counts as not rendered yet
POLL_S = 0.1
READ_VIEW_PX = 4000  # the viewport's height while a virtualized list is read: the more it mounts, the fewer steps
CHROMIUM_ARGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-extensions", "--mute-audio",
                 "--window-size=1280,800",
                 # background tabs must run their timers at full speed: every tab but one is in the background
                 "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
                 "--disable-backgrounding-occluded-windows")
INSTALL = "apt-get install chromium chromium-driver (scripts/install.sh does), or set the site's render = \"never\""
# document state, element count, text length, and whether the generator's rendered content is there
_STATE_JS = """
const ready = arguments[0];
const body = document.body;
const chars = body ? body.innerText.trim().length : 0;
return [document.readyState, document.getElementsByTagName('*').length, chars,
        ready === null ? chars >= arguments[1] : document.querySelector(ready) !== null];
"""
_PRESENT_JS = "return document.querySelector(arguments[0]) !== null;"
_HTML_JS = "return '<!DOCTYPE html>' + document.documentElement.outerHTML;"
# Run in each tab before its page's own scripts: records every URL the page loads that could carry its text, whatever
# started the load (a script, a fetch, a preload) and whatever the page does to the browser's list (which keeps 250
# and which a page may clear): all but style-sheet loads (fonts), images, media and beacons. Unknown once the page
# starts a worker from a file, whose loads are not the page's (a worker of code the page's own scripts hold, a blob:
# URL, as Redoc's search index, is allowed: what it fetches is not seen).
_RECORD_JS = """
(() => {
  const media = new Set(['css', 'img', 'image', 'video', 'audio', 'track', 'icon', 'beacon']);
  const seen = {names: [], unknown: false};
  seen.add = entries => { for (const e of entries) if (!media.has(e.initiatorType)) seen.names.push(e.name); };
  Object.defineProperty(window, '__docbotLoaded', {value: seen});
  try {
    seen.observer = new PerformanceObserver(list => seen.add(list.getEntries()));
    seen.observer.observe({type: 'resource', buffered: true});
  } catch (e) { seen.unknown = true; }
  for (const name of ['Worker', 'SharedWorker']) {
    const Real = window[name];
    if (Real) window[name] = new Proxy(Real, {construct(target, args) {
      if (!/^(blob|data):/.test(String(args[0]))) seen.unknown = true;
      return Reflect.construct(target, args);
    }});
  }
})();
"""
# what the recorder saw, once each; null when it cannot say (not run, a worker started, frames of their own)
_SOURCES_JS = """
const seen = window.__docbotLoaded;
if (!seen || seen.unknown || !seen.observer || document.querySelector('iframe, frame')) return null;
seen.add(seen.observer.takeRecords());
seen.add(performance.getEntriesByType('resource'));
return Array.from(new Set(seen.names));
"""
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Rendered:
    """The DOM of one page once settled (``html``), or why there is none (``error``)."""

    html: str | None
    error: str | None = None
    seconds: float = 0.0
    items: tuple[str, ...] = ()  # a virtualized list's items, read while mounted, in order (crawlers.fetch.virtual)
    out_of_time: str | None = None  # what the expansion budget left undone, when it ran out (the page is kept)
    sources: tuple[str, ...] | None = ()  # the URLs it loaded after its document (None: not all known)


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
        self.heap_mb = HEAP_MB  # the V8 heap cap the browser starts with (raised for a page that needs more)
        self._limit: dict[str, float] = {}  # a tab's script limit, when not the browser's own (its page's limits)
        self._unwatched: set[str] = set()  # tabs whose loads could not be watched (what they loaded is unknown)
        self._script_s: float | None = None  # the script limit the driver has now
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
                     virtual: VirtualList | None = None, limits: RenderLimits | None = None) -> Rendered:
        """The settled DOM of ``url`` (``ready``: a CSS selector its content matches once rendered, or None), with
        every control matching ``expand`` (a CSS selector) clicked once it has rendered, and the items of its
        ``virtual`` list, when it renders one, read by scrolling it (:mod:`crawlers.fetch.virtual`), within
        ``limits`` (None: the browser's page limit, the fixed budget and heap)."""
        if limits is None or not limits.raised:
            limits = RenderLimits(self.timeout)
        else:
            limits = dataclasses.replace(limits, page_timeout=max(self.timeout, limits.page_timeout))
        async with self._tabs:
            self._open_tabs += 1
            self.peak_tabs = max(self.peak_tabs, self._open_tabs)
            try:
                await self._fit_heap(url, limits.heap_mb)
                return await self._render_once_or_twice(url, ready, expand, virtual, limits)
            finally:
                self._open_tabs -= 1

    async def _fit_heap(self, url: str, heap_mb: int) -> None:
        """Raise the browser's V8 heap cap to ``heap_mb`` (a flag of its start): restarted, when no other page is in it."""
        if heap_mb <= self.heap_mb:
            return
        if self._driver is not None and self._open_tabs > 1:
            log.warning("%s: its page needs a V8 heap of %d MB, the browser has %d MB and other pages open in it; "
                        "it renders with %d MB", url, heap_mb, self.heap_mb, self.heap_mb)
            return
        log.info("%s: the browser's V8 heap cap raised from %d to %d MB for it%s", url, self.heap_mb, heap_mb,
                 " (the browser started again)" if self._driver is not None else "")
        self.heap_mb = heap_mb
        if self._driver is not None:
            await self._call(self._quit)

    async def _render_once_or_twice(self, url: str, ready: str | None, expand: str | None,
                                    virtual: VirtualList | None, limits: RenderLimits) -> Rendered:
        started = time.monotonic()
        for attempt in (1, 2):
            try:
                return await self._render(url, ready, started, limits, expand, virtual)
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

    async def _render(self, url: str, ready: str | None, started: float, limits: RenderLimits,
                      expand: str | None = None, virtual: VirtualList | None = None) -> Rendered:
        browser = self.starts + (self._driver is None)  # the number of the browser this page is opened in
        timeout = limits.page_timeout
        try:
            handle = await self._call(self._open, url, timeout)
        except BrowserUnavailable:
            raise
        except Exception as exc:  # selenium's errors are many
            raise _TabFailed(exc, browser) from exc
        try:
            last: tuple[int, int] | None = None
            since = time.monotonic()
            items: tuple[str, ...] = ()
            short: str | None = None  # what the expansion budget left undone
            deadline = started + timeout
            while True:
                state, count, chars, present = await self._call(self._in_tab, handle, _STATE_JS, ready, BARE_TEXT)
                now = time.monotonic()
                quiet = QUIET_S if present else QUIET_BARE_S if ready is None else None
                if (count, chars) != last:
                    last, since = (count, chars), now
                elif state == "complete" and quiet is not None and now - since >= quiet:
                    if expand is not None and present:
                        items, short = await self._open_up(url, handle, expand, virtual, limits.expand_budget)
                        expand, last, since = None, None, time.monotonic()
                        deadline = since + timeout  # as long again to settle once expanded
                        continue
                    html = await self._call(self._in_tab, handle, _HTML_JS)
                    self.pages += 1
                    return Rendered(str(html), None, now - started, items, short, await self._loaded(handle))
                if now > deadline:
                    why = "its content never appeared" if not present else "it never settled"
                    log.warning("%s did not render within %.0f s (%s)", url, timeout, why)
                    return Rendered(None, f"timeout after {timeout:.0f} s ({why})", now - started)
                await asyncio.sleep(POLL_S)
        except Exception as exc:  # selenium's errors are many
            raise _TabFailed(exc, browser) from exc
        finally:
            await self._call(self._close_tab, handle)

    async def _loaded(self, handle: str) -> tuple[str, ...] | None:
        """The URLs the page in ``handle`` loaded (None: not all known; the page is kept all the same)."""
        return None if handle in self._unwatched else await self._call(_sources_in, self, handle)

    async def _open_up(self, url: str, handle: str, expand: str, virtual: VirtualList | None,
                       budget: float) -> tuple[tuple[str, ...], str | None]:
        """Every control matching ``expand`` clicked and the virtualized list read: its items, and what the budget
        left undone when it ran out (None when nothing)."""
        short = [await expand_all(functools.partial(self._call, self._in_tab, handle),
                                  functools.partial(self._call, self._in_busy_tab, handle, budget), url, expand, budget)]
        read = await self._read_virtual(url, handle, expand, virtual, budget)
        if read is not None and read.out_of_time:
            short.append(read.partial())
        return (read.items if read is not None else ()), "; ".join(s for s in short if s) or None

    async def _read_virtual(self, url: str, handle: str, expand: str, virtual: VirtualList | None,
                            budget: float) -> ReadList | None:
        """The items of the page's virtualized list, when it renders one, each expanded while mounted."""
        if virtual is None or not await self._call(self._in_tab, handle, _PRESENT_JS, virtual.root):
            return None

        await self._call(self._view_height, handle, READ_VIEW_PX)

        async def step(script: str, *args: Any) -> Any:
            return await self._call(self._in_tab_async, handle, script, *args)

        return await read_virtual(step, url, virtual, expand, budget)

    async def _call(self, fn: Callable[..., T], *args: Any) -> T:
        async with self._lock:
            return await asyncio.to_thread(fn, *args)

    # -- in the worker thread, under the lock ------------------------------
    def _start(self) -> Any:
        self.check()
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        options = webdriver.ChromeOptions()
        for arg in (*CHROMIUM_ARGS, f"--js-flags=--max-old-space-size={self.heap_mb}"):
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
        self._script_s = self.timeout
        self.starts += 1
        self._home = driver.current_window_handle
        log.info("started headless Chromium for rendering (%s)", driver.capabilities.get("browserVersion", "?"))
        return driver

    def _open(self, url: str, timeout: float) -> str:
        if self._driver is None:
            self._driver = self._start()
        self._driver.switch_to.new_window("tab")
        handle = str(self._driver.current_window_handle)
        if timeout != self.timeout:  # a script of this page (one long render task) may wait as long as the page
            self._limit[handle] = timeout
        if not _watch_loads(self._driver, url):
            self._unwatched.add(handle)
        self._driver.get(url)
        return handle

    def _in_tab(self, handle: str, script: str, *args: Any) -> Any:
        self._enter(handle, self._limit.get(handle, self.timeout))
        return self._driver.execute_script(script, *args)

    def _in_tab_async(self, handle: str, script: str, *args: Any) -> Any:
        self._enter(handle, self._limit.get(handle, self.timeout))
        return self._driver.execute_async_script(script, *args)

    def _enter(self, handle: str, seconds: float) -> None:
        """Switch to the tab ``handle``, its scripts waited on up to ``seconds``."""
        self._driver.switch_to.window(handle)
        if seconds != self._script_s:
            self._driver.set_script_timeout(seconds)
            self._script_s = seconds

    def _view_height(self, handle: str, pixels: int) -> None:
        """The tab's viewport made ``pixels`` tall (its width kept): a virtualized list mounts what fits in it."""
        self._driver.switch_to.window(handle)
        width = int(self._driver.execute_script("return window.innerWidth"))
        self._driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                     {"width": width, "height": pixels, "deviceScaleFactor": 1, "mobile": False})

    def _in_busy_tab(self, handle: str, budget: float, script: str, *args: Any) -> Any:
        """A script in a tab that may be busy for long (expanding): it waits up to ``budget``, not the page's limit."""
        self._enter(handle, budget)
        return self._driver.execute_script(script, *args)

    def _close_tab(self, handle: str) -> None:
        self._limit.pop(handle, None)
        self._unwatched.discard(handle)
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
        self._script_s = None
        if driver is not None:
            try:
                driver.quit()
            except Exception as exc:  # noqa: BLE001 - it is being thrown away
                log.debug("quitting Chromium: %s", _line(exc))
        if self._profile:
            shutil.rmtree(self._profile, ignore_errors=True)
            self._profile = None


def _watch_loads(driver: Any, url: str) -> bool:
    """Make the current tab load every file from the server (its HTTP cache off, service workers bypassed: none from an
    earlier tab or an offline copy, so what the page loads is what is served now) and record what it loads
    (``_RECORD_JS``). False when the browser refuses: the page renders, its files unrecorded."""
    try:
        driver.execute_cdp_cmd("Network.enable", {"maxTotalBufferSize": 0, "maxResourceBufferSize": 0})  # keep no bodies
        driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
        driver.execute_cdp_cmd("Network.setBypassServiceWorker", {"bypass": True})
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": _RECORD_JS})
    except Exception as exc:  # noqa: BLE001 - selenium's errors are many
        log.info("could not watch what %s loads (%s): its loaded files are not recorded", url, _line(exc))
        return False
    return True


def _sources_in(browser: Browser, handle: str) -> tuple[str, ...] | None:
    """What ``_RECORD_JS`` saw in the tab ``handle`` (in the worker thread, under the lock), or None."""
    try:
        loaded = browser._in_tab(handle, _SOURCES_JS)
    except Exception:  # noqa: BLE001 - selenium's errors are many; a tab that died fails on its next call
        return None
    return tuple(str(u) for u in loaded) if isinstance(loaded, list) else None


def _line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
