"""The style sheets of a crawl's pages, read once each: which pages lay their content out lazily.

Once every page is read, :func:`judge_pages` fetches each style sheet the pages link (and the sheets those import),
each once, and marks every page text, the ones kept from the last crawl included, ``lazy`` when one of its styles
sets ``content-visibility: auto`` (:mod:`crawlers.parse.styles` says why no text directive is safe there). A sheet
is read every crawl, not conditionally: a site has a handful, and a page unchanged since the last crawl may have had
its theme changed under it. Bounded: at most :data:`MAX_SHEETS` sheets of at most :data:`MAX_SHEET_BYTES` each, none
asked for after :data:`MAX_SECONDS`, only from the site's own origins (a CDN's framework sheet is not fetched, and
counts as not lazy). A sheet the server does not have (404, 410) styles nothing, as in a browser; one that cannot be
read (a timeout, a 5xx, too large, past the bounds) leaves its pages' ``lazy`` unknown (None): they get no directive
until a crawl reads it.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Iterable, MutableMapping
from urllib.parse import urljoin

from crawlers.fetch import Fetch, FetchError
from crawlers.model import PageText
from crawlers.parse.styles import read_sheet

log = logging.getLogger("crawlers.crawl")

MAX_SHEETS = 64  # style sheets read per crawl (Sphinx's themes link 4–6, Javadoc 3, with an import or two each)
MAX_SHEET_BYTES = 4 * 1024 * 1024
MAX_IMPORT_DEPTH = 4
MAX_SECONDS = 60.0  # no sheet is asked for past this (a server that answers pages but hangs on sheets)


async def judge_pages(fetcher: Fetch, page_texts: MutableMapping[str, PageText], own: Callable[[str], bool],
                      verdicts: dict[str, bool | None] | None = None) -> int:
    """Set ``lazy`` of every page text (by URL, replaced in place) from its own styles and its sheets as served now
    (``own``: whether a sheet's URL is of the site's origins, so fetched; ``verdicts``: sheet URL → lazy, the sheets
    judged already, added to); returns how many sheets were fetched."""
    sheets = dict.fromkeys(sheet for text in page_texts.values() if not text.lazy_here for sheet in text.styles)
    verdicts = {} if verdicts is None else verdicts
    fetched = 0
    until = time.monotonic() + MAX_SECONDS
    for sheet in sheets:
        fetched += await _judge(fetcher, sheet, own, verdicts, set(), 0, MAX_SHEETS - fetched, until)
    unknown = [s for s in sheets if verdicts.get(s, False) is None]
    if unknown:
        log.warning("%d style sheet(s) could not be read (%s): their pages get no text directives until a crawl reads "
                    "them", len(unknown), ", ".join(unknown[:3]))
    for url, text in page_texts.items():
        lazy = True if text.lazy_here else _any(verdicts.get(sheet) for sheet in text.styles)
        if lazy is not text.lazy:
            page_texts[url] = dataclasses.replace(text, lazy=lazy)
    return fetched


async def _judge(fetcher: Fetch, url: str, own: Callable[[str], bool], verdicts: dict[str, bool | None],
                 reading: set[str], depth: int, budget: int, until: float) -> int:
    """Put the verdict of sheet ``url`` (lazy, counting the sheets it imports; None unknown) in ``verdicts``;
    returns how many sheets were fetched for it (at most ``budget``, none after ``until`` on the monotonic clock)."""
    if url in verdicts or url in reading:  # judged, or being read (an import cycle: what it says counts there)
        return 0
    if not own(url):
        verdicts[url] = False
        return 0
    if budget <= 0 or depth > MAX_IMPORT_DEPTH or time.monotonic() > until:
        verdicts[url] = None
        return 0
    result = await fetcher.get(url, html_only=False, retries=1, follow=own, max_bytes=MAX_SHEET_BYTES)
    if result.error == FetchError.NOT_FOUND:  # a browser styles nothing with a sheet the server does not have
        verdicts[url] = False
        return 1
    if not result.ok or result.truncated:
        log.info("style sheet %s could not be read (%s)", url, result.error or result.status)
        verdicts[url] = None
        return 1
    sheet = read_sheet(result.body.decode(result.encoding or "utf-8", errors="replace"),
                       lambda href: urljoin(result.final_url, href).partition("#")[0])
    fetched = 1
    verdict: bool | None = sheet.lazy
    reading.add(url)
    for imported in sheet.imports:
        if verdict:
            break
        fetched += await _judge(fetcher, imported, own, verdicts, reading, depth + 1, budget - fetched, until)
        verdict = _any((verdict, verdicts.get(imported, False)))
    reading.discard(url)
    verdicts[url] = verdict
    return fetched


def _any(verdicts: Iterable[bool | None]) -> bool | None:
    """True when one says lazy; else None when one is not known; else False."""
    found: bool | None = False
    for verdict in verdicts:
        if verdict:
            return True
        if verdict is None:
            found = None
    return found
