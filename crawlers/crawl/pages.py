"""From a fetched and extracted page to its anchor-map entry and section texts.

``build_page`` is pure. :class:`ParsePool` runs :func:`crawlers.parse.extract.extract`
inline for small crawls and in forked worker processes once a crawl is big,
because extraction is CPU-bound and the event loop must keep fetching. The
workers die with the crawler, even when it is killed with SIGKILL (Linux:
``PR_SET_PDEATHSIG``); on SIGTERM the CLI unwinds and :meth:`ParsePool.close` stops them.
"""

from __future__ import annotations

import asyncio
import ctypes
import dataclasses
import hashlib
import logging
import multiprocessing
import os
import signal
import sys
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar

from crawlers.crawl.cross_links import moves_split, split_at
from crawlers.fetch import FetchResult
from crawlers.model import Page, PageText, Section, SectionText
from crawlers.parse.extract import Extracted, extract, split_again
from crawlers.urls import INDEX_FILE

log = logging.getLogger(__name__)

T = TypeVar("T")

PARSE_INLINE_PAGES = 16  # pages parsed in the event loop before worker processes start
MAX_PARSE_PROCESSES = 4


def dir_alias(canonical: str) -> str | None:
    """The ``dir/`` spelling of a ``dir/index.html`` page."""
    return canonical[: -len(INDEX_FILE)] if canonical.endswith("/" + INDEX_FILE) else None


def strong_last_modified(headers: Mapping[str, str]) -> str | None:
    """Last-Modified when usable as a validator: RFC 9110 §8.8.2.2 calls it weak unless Date is ≥ 1 s later.

    A page rewritten within the second it was fetched would otherwise answer 304 forever.
    """
    value = headers.get("last-modified")
    date = headers.get("date")
    if not value or not date:
        return value
    try:
        if (parsedate_to_datetime(date) - parsedate_to_datetime(value)).total_seconds() < 1:
            return None
    except (TypeError, ValueError):
        return None
    return value


def build_page(
    site: str, url: str, result: FetchResult, ex: Extracted, source_type: str, aliases: set[str],
    links: tuple[str, ...] = (), elsewhere: frozenset[str] = frozenset(),
) -> tuple[Page, list[SectionText]]:
    """The map entry and section texts of one parsed page (pure); ``elsewhere``: the anchors other pages link to
    that it was split at (:mod:`crawlers.crawl.cross_links`)."""
    sections = tuple(Section(s.anchor, s.title, s.level, tuple(s.path), s.kind) for s in ex.sections)
    page = Page(
        url=url,
        title=ex.title,
        source_type=source_type,
        aliases=tuple(sorted(aliases)),
        anchors=tuple(sorted(ex.anchors)),
        sections=sections,
        etag=result.headers.get("etag"),
        last_modified=strong_last_modified(result.headers),
        content_hash=hashlib.sha256(result.body).hexdigest(),
        links=links,
        linked=split_at(elsewhere & ex.anchors, sections),
        routes=result.routes,
        sources=result.sources,
    )
    texts = [] if ex.navigation else [  # a table of contents or index page: its anchors are valid, its text no answer
        SectionText(site, url, s.anchor, s.title, s.level, tuple(s.path), source_type, s.text, s.kind)
        for s in ex.sections
    ]
    return page, texts


def page_text(url: str, ex: Extracted) -> PageText | None:
    """The page's visible text with the ids of its sections (pure); none for navigation, which answers nothing."""
    if ex.navigation or not ex.run_tags:
        return None
    sections = tuple((s.level, ((s.anchor,) if s.anchor else ()) + tuple(s.aliases)) for s in ex.sections)
    named = {i for _, ids in sections for i in ids}
    return PageText(url, ex.run_text, ex.run_tags, sections, {k: v for k, v in ex.run_ids.items() if k not in named},
                    ex.run_hidden, ex.styles, ex.lazy_here, True if ex.lazy_here else None)  # None: its sheets unread


# A page of at least AGGREGATE_MIN_SECTIONS sections of text, of which at least AGGREGATE_SHARE also stand on at least
# AGGREGATE_SOURCES other pages of the site, is an all-in-one copy of them (Node's all.html, a Sphinx singlehtml):
# its anchors are valid, its texts are not indexed, and a link is better made to the page the section comes from.
AGGREGATE_MIN_SECTIONS = 5
AGGREGATE_SHARE = 0.8
AGGREGATE_SOURCES = 3
AGGREGATE_MIN_WORDS = 20  # shorter texts ("See gitmailmap(5).") are alike by chance


def aggregate_pages(texts: Sequence[SectionText]) -> frozenset[str]:
    """URLs of the pages that copy the sections of several other pages (see :data:`AGGREGATE_SHARE`)."""
    where: dict[str, set[str]] = {}
    keys: dict[str, set[str]] = {}
    for t in texts:
        words = t.text.split()
        if len(words) < AGGREGATE_MIN_WORDS:
            continue
        key = hashlib.sha1(" ".join(words).encode()).hexdigest()
        where.setdefault(key, set()).add(t.url)
        keys.setdefault(t.url, set()).add(key)
    found = set()
    for url, own in keys.items():
        copied = [k for k in own if len(where[k]) > 1]
        sources = set().union(*(where[k] for k in copied)) - {url} if copied else set()
        if len(own) >= AGGREGATE_MIN_SECTIONS and len(copied) >= AGGREGATE_SHARE * len(own) \
                and len(sources) >= AGGREGATE_SOURCES:
            found.add(url)
    return frozenset(found)


@dataclass(slots=True)
class ParsePool:
    """Extraction inline, then in worker processes after ``inline_pages`` pages (``processes`` ≤ 1: always inline)."""

    processes: int | None = None  # None: one per CPU, up to MAX_PARSE_PROCESSES
    inline_pages: int = PARSE_INLINE_PAGES
    _pool: ProcessPoolExecutor | None = None
    _parsed: int = 0

    def __post_init__(self) -> None:
        if self.processes is None:
            self.processes = min(os.cpu_count() or 1, MAX_PARSE_PROCESSES)

    async def extract(self, result: FetchResult, elsewhere: frozenset[str] = frozenset()) -> Extracted:
        return await self._run(extract_page, result.body, result.final_url, result.encoding, elsewhere)

    async def extract_again(self, result: FetchResult, elsewhere: frozenset[str], first: Extracted,
                            linked: Sequence[str]) -> Extracted:
        """What :meth:`extract` makes of ``result`` with ``elsewhere``, ``first`` being what it made of the same body
        split at ``linked``: only the part that depends on ``elsewhere`` is done again
        (:func:`crawlers.parse.extract.split_again`), and nothing when no anchor added or dropped may start a section
        (:func:`crawlers.crawl.cross_links.moves_split`)."""
        if not moves_split(linked, elsewhere, first.starts):
            return first
        split = await self._run(split_again, result.body, result.final_url, result.encoding, elsewhere, first.anchors,
                                first.navigation)
        if split is None:
            return first
        return dataclasses.replace(first, title=split.title, sections=split.sections, source_type_hint=split.hint,
                                   run_text=split.run_text, run_tags=split.run_tags, run_ids=split.run_ids,
                                   run_hidden=split.run_hidden, starts=split.starts)

    async def _run(self, parse: Callable[..., T], *args: Any) -> T:
        """``parse(*args)`` inline, or in a worker once the pool runs."""
        self._parsed += 1
        if self._pool is None and (self.processes or 0) > 1 and self._parsed > self.inline_pages:
            self._pool = _fork_pool(self.processes or 2)
            if self._pool is None:
                self.processes = 0
        if self._pool is not None:
            loop = asyncio.get_running_loop()
            try:
                return await loop.run_in_executor(self._pool, parse, *args)
            except BrokenProcessPool as exc:
                log.warning("parse workers failed (%s); parsing in the crawler process from now on", exc)
                self.close()
                self.processes = 0
        return parse(*args)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


def extract_page(body: bytes, url: str, encoding: str | None, elsewhere: frozenset[str] = frozenset()) -> Extracted:
    """:func:`extract` with links reduced to distinct pages (fragments dropped): less to ship back from a worker."""
    ex = extract(body, url, encoding, elsewhere)
    links = tuple(dict.fromkeys(link.partition("#")[0] for link in ex.links))
    return dataclasses.replace(ex, links=links) if len(links) != len(ex.links) else ex


def _fork_pool(processes: int) -> ProcessPoolExecutor | None:
    """Forked workers need no importable ``__main__`` (spawn would re-run a caller's unguarded script)."""
    if "fork" not in multiprocessing.get_all_start_methods():
        return None
    return ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("fork"),
                               initializer=die_with_parent, initargs=(os.getpid(),))


PR_SET_PDEATHSIG = 1  # linux/prctl.h


def die_with_parent(parent: int) -> None:
    """Worker initializer: get SIGKILL when the crawler dies, however it dies (a no-op off Linux)."""
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # no prctl: the SIGTERM path of the CLI still stops the pool
            log.debug("prctl(PR_SET_PDEATHSIG) is not available")
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the crawler's own SIGTERM handler is not the worker's
    if os.getppid() != parent:  # the crawler died before prctl took effect
        os._exit(1)
