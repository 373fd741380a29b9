"""Is the page a browser gets now the page docbot read? One conditional request per cited page, cached for minutes.

A text directive is derived from a page's text as the crawl read it. When the page changed since, the quoted
sentence may be gone (a browser then falls back to the ``#fragment``: harmless) or moved to an earlier part of the
page (a browser then lands there: worse than the bare anchor). So before a quoted source's link gets a directive,
:class:`LivePages` asks the docs server whether the page changed, with the validators the crawl recorded
(``If-None-Match``, ``If-Modified-Since``): unchanged (304, or the same bytes) keeps the stored text; changed, the
page as served now is read with the crawler's own extractor and the directive is derived against it (or none; its
style sheets are not read again: what the crawl knew of them holds while it links the same ones);
no answer in time, no directive (the ``#fragment`` alone). Each page is asked at most once per :data:`TTL_S`; a host
that timed out is not asked again for :data:`DOWN_S`. Plain data in and out around one injected ``httpx.Client``.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable, Mapping
from urllib.parse import urlsplit

import httpx

from crawlers.crawl.pages import page_text
from crawlers.fetch.sources import ours
from crawlers.model import AnchorMap, Page
from crawlers.page_text import PageText
from crawlers.parse.extract import extract
from docbot.references.directives import Freshen

log = logging.getLogger(__name__)

TTL_S = 300.0  # how long a page's answer holds: a docs page rarely changes twice in five minutes
TIMEOUT_S = 1.5  # per response: an answer waits at most this long for a page's check
DOWN_S = 30.0  # a host that did not answer in time (or refused) is not asked again for this long: no directives
MAX_BYTES = 10 * 1024 * 1024  # a page larger than this is not read again: no directive
MAX_ENTRIES = 4096


class LivePages:
    """The docs servers asked whether a cited page changed since the crawl (see the module's docstring)."""

    def __init__(self, client: httpx.Client | None = None, ttl_s: float = TTL_S, timeout_s: float = TIMEOUT_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._client = client
        self._own = client is None
        self.ttl_s = ttl_s
        self.timeout_s = timeout_s
        self._clock = clock
        self._lock = threading.Lock()
        self._pages: dict[tuple[str, str | None], tuple[float, PageText | None]] = {}  # → (until when, answer)
        self._down: dict[str, float] = {}  # host → until when it is not asked
        self.requests = 0  # how many requests were sent (the benchmark and the tests read it)

    @property
    def client(self) -> httpx.Client:
        if self._client is None:
            self._client = httpx.Client(timeout=self.timeout_s, follow_redirects=True,
                                        headers={"User-Agent": "docbot (link check)"})
        return self._client

    def close(self) -> None:
        if self._own and self._client is not None:
            self._client.close()
            self._client = None

    def for_maps(self, maps: Mapping[str, AnchorMap]) -> Freshen:
        """The check for pages of these maps' sites (their entries hold what the crawl recorded)."""
        def freshen(site: str, page: str, stored: PageText) -> PageText | None:
            amap = maps.get(site)
            entry = amap.page(page) if amap is not None else None
            return self.check(entry, stored) if entry is not None else None
        return freshen

    def check(self, entry: Page, stored: PageText) -> PageText | None:
        """The page's text as served now: ``stored`` when unchanged, the new text when changed, None when unknown."""
        key = (entry.url, entry.content_hash)
        now = self._clock()
        with self._lock:
            cached = self._pages.get(key)
            if cached is not None and now < cached[0]:
                return stored if cached[1] is _SAME else cached[1]
            host = urlsplit(entry.url).netloc
            if self._down.get(host, 0.0) > now:
                return None
        found, known = self._ask(entry, stored)
        with self._lock:
            if len(self._pages) >= MAX_ENTRIES:
                self._pages.clear()
            until = self._clock() + (self.ttl_s if known else DOWN_S)  # an unanswered page is asked again sooner
            self._pages[key] = (until, _SAME if found is stored else found)
        return found

    def _ask(self, entry: Page, stored: PageText) -> tuple[PageText | None, bool]:
        """(the page's text as served now, or None; whether the server said so)."""
        headers = {}
        if entry.etag and not ours(entry.etag):  # docbot's own validator of a rendered page is not the server's
            headers["If-None-Match"] = entry.etag
        if entry.last_modified:
            headers["If-Modified-Since"] = entry.last_modified
        self.requests += 1
        deadline = time.monotonic() + self.timeout_s  # the whole response, not each read: an answer waits no longer
        try:
            with self.client.stream("GET", entry.url, headers=headers, timeout=self.timeout_s) as response:
                if response.status_code == 304:
                    return stored, True
                if response.status_code != 200:
                    log.info("%s answered HTTP %d: no text directive for it", entry.url, response.status_code)
                    return None, response.status_code in (404, 410)
                encoding = response.charset_encoding
                body = bytearray()
                for chunk in response.iter_bytes():
                    body += chunk
                    if len(body) > MAX_BYTES or time.monotonic() > deadline:
                        log.info("%s: too large or too slow to read again: no text directive for it", entry.url)
                        return None, False
        except (httpx.TimeoutException, httpx.ConnectError) as exc:
            with self._lock:
                self._down[urlsplit(entry.url).netloc] = self._clock() + DOWN_S
            log.info("%s did not answer (%s): no text directives for its pages for %.0f s", entry.url,
                     type(exc).__name__, DOWN_S)
            return None, False
        except httpx.HTTPError as exc:
            log.info("%s: %s: no text directive for it", entry.url, exc)
            return None, False
        data = bytes(body)
        if entry.content_hash and hashlib.sha256(data).hexdigest() == entry.content_hash:
            return stored, True
        log.info("%s changed since the crawl: its text directives are derived from the page as served now", entry.url)
        found = page_text(stored.url, extract(data, stored.url, encoding))
        return (found.laid_out_as(stored) if found is not None else None), True


_SAME = PageText("", "", ())  # the cache's mark for "unchanged: the stored text"
