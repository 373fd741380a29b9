"""The crawl loop: frontier, scope, bounded concurrency, and the anchor map it builds.

:class:`CrawlState` runs one crawl. It fetches robots.txt first, then the start URL, the
previous map's pages, sitemap URLs and every in-scope link, with at most ``concurrency`` requests in
flight; parses each HTML page once with :func:`crawlers.parse.extract.extract`; keeps a previous page's entry
when it did not change, or failed for a passing reason; once every page is read, splits again each page whose
anchors linked from other pages are not those it was split at (:mod:`crawlers.crawl.cross_links`), from its kept body. What it keeps of
each page is :mod:`crawlers.crawl.kept_pages`'s; what it counts and the :class:`~crawlers.crawl.types.CrawlResult` it
assembles are :mod:`crawlers.crawl.result`'s.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence

from crawlers.crawl.cross_links import LinkedSoFar, to_split
from crawlers.crawl.frontier import Frontier
from crawlers.crawl.issues import TRANSIENT, CrawlIssue, ErrorKind, Visit
from crawlers.crawl.kept_pages import KeptPages, PreviousCrawl
from crawlers.crawl.pages import ParsePool
from crawlers.crawl.result import Tally, crawl_result
from crawlers.crawl.robots import fetch_robots
from crawlers.crawl.sitemap import discover
from crawlers.crawl.types import CrawlConfig, CrawlResult
from crawlers.errors import StartURLError
from crawlers.fetch import Fetch, FetchError, FetchResult
from crawlers.model import AnchorMap, Mention, Page, PageText, SectionText
from crawlers.parse.extract import Extracted
from crawlers.urls import is_http, normalize, origin, scope_prefix, site_origins

# The loop logs under the name its messages had before it got a module of its own: the CLI prints that name
# ("WARNING crawlers.crawl: … keeping its last-known-good entry"), so moving code does not change the output.
log = logging.getLogger("crawlers.crawl")

SITEMAPS = ("sitemap.xml", "sitemap.xml.gz")  # looked for under the start directory and the origin
# Bodies kept for the second split, in bytes (the Python docs are 50 MB of HTML); a page beyond is fetched again
MAX_KEPT_BODY_BYTES = 64 * 1024 * 1024


class KeptBodies:
    """The fetches and first extractions kept for the second split, up to :data:`MAX_KEPT_BODY_BYTES` of bodies: a
    page kept is neither fetched again nor extracted again in full, only its section walk is done again."""

    def __init__(self) -> None:
        self.kept: dict[str, tuple[FetchResult, Extracted, Page]] = {}
        self.size = 0

    def keep(self, url: str, result: FetchResult, ex: Extracted, page: Page) -> None:
        """Keep the fetch of ``url`` and its extraction, from which ``page`` was recorded, if there is room."""
        if self.size + len(result.body) <= MAX_KEPT_BODY_BYTES:
            self.kept[url] = (result, ex, page)
            self.size += len(result.body)

    def take(self, url: str, page: Page) -> tuple[FetchResult, Extracted] | None:
        """The fetch and extraction of ``url`` if kept and ``page`` (its entry now) is the one recorded from them."""
        result, ex, recorded = self.kept.pop(url, (None, None, None))
        return (result, ex) if result is not None and ex is not None and recorded is page else None


class Pacer:
    """Keeps requests ``delay`` seconds apart across every worker (robots.txt's Crawl-delay; none at 0)."""

    def __init__(self) -> None:
        self.delay = 0.0
        self._lock = asyncio.Lock()
        self._last_request = 0.0

    async def wait(self) -> None:
        """Return when the next request may go."""
        delay = self.delay
        if delay <= 0:
            return
        async with self._lock:
            wait = self._last_request + delay - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            self._last_request = time.monotonic()


class CrawlState:
    """One crawl: its frontier and workers, and what each fetch comes to; lives for one call of
    :func:`crawlers.crawl.crawl`."""

    def __init__(self, config: CrawlConfig, previous: AnchorMap | None, previous_texts: Sequence[SectionText],
                 fetcher: Fetch, progress: Callable[[int, int], None] | None,
                 previous_mentions: Sequence[Mention] | None = (), previous_pages: Sequence[PageText] = ()) -> None:
        self.config = config
        self.previous = PreviousCrawl(previous, previous_texts, previous_mentions, previous_pages)
        if self.previous.reparse:
            log.warning("the map of %s was written by another version of docbot's extractor; every page is fetched "
                        "and parsed again", config.site)
        self.fetcher = fetcher
        self.progress = progress
        self.frontier = Frontier(scope_prefix(config.start_url), config.include, config.exclude,
                                 max_pages=config.max_pages, max_query_variants=config.max_query_variants,
                                 max_url_length=config.max_url_length)
        self.kept = KeptPages(config, self.previous)
        self.tally = Tally()
        self.queue: asyncio.Queue[str] = asyncio.Queue()
        self.done = 0
        self.parser = ParsePool(config.parse_processes)
        self.origins = site_origins(config.start_url, config.allow_origins)
        self.pacer = Pacer()
        self.bodies = KeptBodies()
        self.linked_so_far = LinkedSoFar()

    # -- frontier -------------------------------------------------------
    def admit(self, url: str) -> None:
        canonical = self.frontier.admit(url)
        if canonical is not None:
            self.queue.put_nowait(canonical)

    # -- one URL --------------------------------------------------------
    def keep_previous(self, prev: Page, aliases: set[str], stale: bool) -> None:
        """Keep the previous crawl's entry of ``prev`` and follow its links."""
        for link in self.kept.keep_previous(prev, aliases, stale):
            self.admit(link)

    async def visit(self, url: str, start: bool = False) -> Visit:
        """Fetch and record one URL; returns the outcome kind ("ok", "not_modified" or an error kind).

        The start URL may redirect anywhere (http → https, / → /en/latest/); the scope follows it.
        """
        prev = self.previous.page(url)
        etag, modified = self.previous.conditional(prev, self.config.refetch)
        await self.pacer.wait()
        result = await self.fetcher.get(url, etag=etag, last_modified=modified, sources=prev.sources if prev else (),
                                        follow=self.may_fetch if start else self.frontier.in_scope)
        self.tally.stats["requests"] += 1
        try:
            final = normalize(result.final_url)
        except ValueError:
            final = url
        requested = {normalize(u) for u in (url, *result.redirects) if is_http(u)}
        if result.error == FetchError.OFFSITE_REDIRECT:
            self.tally.error(FetchError.OFFSITE_REDIRECT, url)
            self.tally.stats["skipped"] += 1
            return FetchError.OFFSITE_REDIRECT
        if start and not self.frontier.in_scope(final):
            log.info("start URL %s redirects to %s; crawling under %s", url, final, scope_prefix(final))
            self.frontier.prefix = scope_prefix(final)
        self.frontier.mark(final)
        if result.not_modified:
            prev = prev or self.previous.page(final)
            if prev is None:
                self.tally.error(CrawlIssue.UNEXPECTED_304, url)
                return CrawlIssue.UNEXPECTED_304
            self.tally.stats["not_modified"] += 1
            self.keep_previous(prev, requested - {prev.url}, stale=False)
            return "not_modified"
        if result.error is not None:
            return self.failed(url, result.error, result.status, prev, requested)
        canonical = final
        aliases = requested - {canonical}
        if not self.kept.claim(canonical, aliases):
            return "ok"
        # split at what it was split at last time, or (new) at what the pages read so far link to (LinkedSoFar)
        elsewhere = frozenset(prev.linked) if prev is not None else self.linked_so_far.to(canonical, aliases)
        try:
            ex = await self.parser.extract(result, elsewhere)
        except Exception:  # one broken page must not stop the crawl
            log.exception("could not parse %s; skipped", canonical)
            self.kept.release(canonical)
            return self.failed(url, CrawlIssue.PARSE_ERROR, result.status, prev, requested)
        if result.truncated:
            self.tally.error(CrawlIssue.TRUNCATED, canonical)
        if ex.too_deep:
            self.tally.error(CrawlIssue.TOO_DEEP, canonical)
        self.tally.stats["fetched"] += 1
        self.tally.stats["bytes"] += len(result.body)
        for link in self.frontier.in_page_order(self.record(canonical, result, ex, aliases, elsewhere), ex.links):
            self.admit(link)
        self.bodies.keep(canonical, result, ex, self.kept.pages[canonical])
        return "ok"

    def record(self, canonical: str, result: FetchResult, ex: Extracted, aliases: set[str],
               elsewhere: frozenset[str]) -> tuple[str, ...]:
        """Keep a parsed page (split at the anchors ``elsewhere`` links to); returns its in-scope links."""
        links = self.frontier.scoped(ex.links)
        self.kept.record(canonical, result, ex, aliases, links, elsewhere)
        self.linked_so_far.add(canonical, aliases, ex.mentions)
        return links

    # -- the second split -------------------------------------------------
    async def split_again(self) -> None:
        """Split each page at the anchors other pages link to where they are not what it was split at (a page
        parsed before the pages that link to it, one whose linking pages changed while it answered 304): from the
        body kept of its fetch, or else fetched again in full, parsed with that set. A page that cannot be fetched
        keeps the split it has, and its set."""
        todo = to_split(self.kept.merged_pages(), self.kept.mentions)
        bodies, self.bodies = self.bodies, KeptBodies()
        if not todo:
            return
        log.info("%d pages of %s are split again at the anchors other pages link to", len(todo), self.config.site)
        slots = asyncio.Semaphore(max(1, self.config.concurrency))

        async def one(url: str, elsewhere: frozenset[str]) -> None:
            async with slots:
                kept = bodies.take(url, page := self.kept.pages[url])
                try:
                    fetched = await self.fetch_again(url, elsewhere) if kept is None else (
                        kept[0], await self.parser.extract_again(kept[0], elsewhere, kept[1], page.linked))
                except Exception:  # it was parsed once; it keeps that
                    log.exception("could not parse %s again; its sections stay as split", url)
                    return
                if fetched is None:
                    return
                result, ex = fetched
                self.record(url, result, ex, set(self.kept.pages[url].aliases), elsewhere)

        await asyncio.gather(*(one(url, frozenset(wanted)) for url, wanted in todo.items()))

    async def fetch_again(self, url: str, elsewhere: frozenset[str]) -> tuple[FetchResult, Extracted] | None:
        """``url`` fetched again and parsed in full with ``elsewhere``; None when it cannot be fetched (it keeps its
        split)."""
        await self.pacer.wait()
        result = await self.fetcher.get(url, follow=self.frontier.in_scope)
        self.tally.stats["requests"] += 1
        try:
            same = result.error is None and not result.not_modified and normalize(result.final_url) == url
        except ValueError:
            same = False
        if not same:
            log.info("%s could not be fetched again (%s); its sections stay as split", url,
                     result.error or result.status)
            return None
        ex = await self.parser.extract(result, elsewhere)
        self.tally.stats["bytes"] += len(result.body)
        return result, ex

    def failed(self, url: str, kind: ErrorKind, status: int | None, prev: Page | None, requested: set[str]) -> ErrorKind:
        self.tally.error(kind, url)
        if kind == FetchError.NOT_HTML:
            self.tally.stats["skipped"] += 1
            return kind
        self.tally.stats["failed"] += 1
        if kind in TRANSIENT and prev is not None:
            log.warning("%s failed (%s); keeping its last-known-good entry", url, kind)
            self.keep_previous(prev, requested - {prev.url}, stale=True)
        elif kind == FetchError.NOT_FOUND and prev is not None:
            log.info("%s is gone (%s); removing it", url, status)
        return kind

    async def worker(self) -> None:
        while True:
            url = await self.queue.get()
            try:
                if not self.down():  # a site that is down is not asked for every one of its pages
                    await self.visit(url)
            except Exception:
                log.exception("unexpected error while crawling %s", url)
                self.tally.error(CrawlIssue.INTERNAL, url)
            finally:
                self.done += 1
                if self.progress:
                    self.progress(self.done, len(self.frontier.seen))
                self.queue.task_done()

    def may_fetch(self, url: str) -> bool:
        """Whether robots.txt, a sitemap or the start URL's redirect may be fetched from ``url``'s origin."""
        try:
            return origin(url) in self.origins
        except ValueError:
            return False

    def down(self) -> bool:
        """True once ``outage_after`` pages failed and none was fetched or found unchanged."""
        stats = self.tally.stats
        reached = stats["fetched"] + stats["not_modified"]
        return reached == 0 and stats["failed"] >= self.config.outage_after

    # -- the whole crawl ------------------------------------------------
    async def run(self) -> None:
        try:
            start = normalize(self.config.start_url)
        except ValueError as exc:
            raise StartURLError(f"{self.config.start_url!r} is not a start URL ({exc}); use an http(s) URL") from None
        robots = await fetch_robots(self.fetcher, start, follow=self.may_fetch)
        if not robots.reachable:
            raise StartURLError(f"Cannot reach {self.config.start_url} — check the URL and that the site is up")
        if not robots.allowed(start):
            raise StartURLError(
                f"robots.txt of {self.config.start_url} disallows it for {robots.user_agent}; "
                "crawl a different start URL or ask the site owner"
            )
        self.frontier.robots = robots
        self.pacer.delay = robots.crawl_delay
        self.frontier.mark(start)
        outcome = await self.visit(start, start=True)
        self.done += 1
        if outcome == FetchError.OFFSITE_REDIRECT:
            raise StartURLError(f"Start URL {self.config.start_url} redirects to another origin — crawl the URL it "
                                "redirects to, or list that origin in the site's allow_origins")
        if outcome not in ("ok", "not_modified") and start not in self.kept.pages and (
            self.previous.page(start) is None or outcome == FetchError.CONNECT
        ):
            raise StartURLError(f"Start URL {self.config.start_url} failed ({outcome}) — check the URL and that "
                                "it serves an HTML page")
        if self.previous.anchor_map:
            for url in sorted(self.previous.anchor_map.pages):
                self.admit(url)
        if self.config.sitemaps:
            origin = "/".join(start.split("/", 3)[:3]) + "/"
            bases = (self.frontier.prefix, origin)
            candidates = [*robots.sitemaps, *(base + name for base in bases for name in SITEMAPS)]
            for url in await discover(self.fetcher, candidates, self.may_fetch,
                                      lambda url: self.tally.error(CrawlIssue.OFFSITE_SITEMAP, url)):
                self.admit(url)
        workers = [asyncio.create_task(self.worker()) for _ in range(max(1, self.config.concurrency))]
        try:
            await self.queue.join()
        finally:
            for w in workers:
                w.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
        await self.split_again()

    def keep_unreached(self) -> None:
        """After the crawl's time limit: pages of the previous map not reached yet keep their entries as they were."""
        self.tally.error(CrawlIssue.MAX_TIME, self.config.start_url)
        last = self.previous.anchor_map
        for url, prev in sorted(last.pages.items()) if last else ():
            if url not in self.kept.pages:
                self.keep_previous(prev, set(), stale=False)

    def result(self, crawled_at: str, duration: float, previous_texts: Sequence[SectionText]) -> CrawlResult:
        """The crawl's :class:`~crawlers.crawl.types.CrawlResult` (see :func:`crawlers.crawl.result.crawl_result`)."""
        return crawl_result(self.config, self.previous.anchor_map, self.kept, self.tally, self.frontier.rejected,
                            crawled_at, duration, previous_texts)
