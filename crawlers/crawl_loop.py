"""The crawl loop: frontier, scope, bounded concurrency, and the anchor map it builds.

:class:`CrawlState` is one crawl's mutable state. It fetches robots.txt first, then the start URL, the
previous map's pages, sitemap URLs and every in-scope link, with at most ``concurrency`` requests in
flight; parses each HTML page once with :func:`crawlers.extract.extract`; keeps a previous page's entry
when it did not change, or failed for a passing reason; once every page is read, fetches and splits again each page
whose anchors linked from other pages are not those it was split at (:mod:`crawlers.cross_links`); and assembles the
:class:`~crawlers.crawl_types.CrawlResult`. The result never depends on completion order: pages, anchors
and texts are sorted before they leave.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections import Counter
from collections.abc import Callable, Sequence

from crawlers.crawl_types import CrawlConfig, CrawlResult, CrawlStats
from crawlers.cross_links import to_split
from crawlers.diff import ChangeReport, diff_maps, merge_renames
from crawlers.errors import StartURLError
from crawlers.extract import EXTRACTOR_VERSION, Extracted
from crawlers.fetch import Fetch, FetchError, FetchResult
from crawlers.frontier import Frontier
from crawlers.issues import TRANSIENT, CrawlIssue, ErrorKind, Visit
from crawlers.mentions import RawMention, resolve_mentions, section_owners
from crawlers.model import AnchorMap, Mention, Page, PageText, SectionText, SourceType
from crawlers.pages import ParsePool, aggregate_pages, build_page, dir_alias, page_text
from crawlers.robots import fetch_robots
from crawlers.sitemap import discover
from crawlers.sourcetype import classify, is_navigation
from crawlers.urls import is_http, normalize, origin, scope_prefix, site_origins

# The loop logs under the name its messages had before it got a module of its own: the CLI prints that name
# ("WARNING crawlers.crawl: … keeping its last-known-good entry"), so moving code does not change the output.
log = logging.getLogger("crawlers.crawl")

MAX_ERROR_SAMPLES = 5
SITEMAPS = ("sitemap.xml", "sitemap.xml.gz")  # looked for under the start directory and the origin


class CrawlState:
    """Mutable state of one crawl; lives for one call of :func:`crawlers.crawl.crawl`."""

    def __init__(self, config: CrawlConfig, previous: AnchorMap | None, previous_texts: Sequence[SectionText],
                 fetcher: Fetch, progress: Callable[[int, int], None] | None,
                 previous_mentions: Sequence[Mention] | None = (), previous_pages: Sequence[PageText] = ()) -> None:
        self.config = config
        self.previous = previous
        # A map written by another version of the extractor (or without the mentions its version writes): every
        # page is parsed again (no conditional requests), so a docbot upgrade reaches pages that did not change.
        self.reparse = previous is not None and (previous.extractor != EXTRACTOR_VERSION or previous_mentions is None)
        if self.reparse:
            log.warning("the map of %s was written by another version of docbot's extractor; every page is fetched "
                        "and parsed again", config.site)
        self.fetcher = fetcher
        self.progress = progress
        self.frontier = Frontier(scope_prefix(config.start_url), config.include, config.exclude,
                                 max_pages=config.max_pages, max_query_variants=config.max_query_variants,
                                 max_url_length=config.max_url_length)
        self.prev_texts: dict[str, list[SectionText]] = {}
        for t in previous_texts:
            self.prev_texts.setdefault(t.url, []).append(t)
        self.prev_mentions: dict[str, list[RawMention]] = {}
        self.prev_sections: dict[tuple[str, str], str | None] = {}  # (target, fragment) → section, as last resolved
        for m in previous_mentions or ():
            self.prev_mentions.setdefault(m.source, []).append(
                (m.target + ("#" + m.fragment if m.fragment is not None else ""), m.text, m.context))
            if m.fragment is not None:
                self.prev_sections[(m.target, m.fragment)] = m.section
        self.mentions: dict[str, Sequence[RawMention]] = {}
        self.owners: dict[str, dict[str, str | None]] = {}  # id → section anchor, for the pages parsed now
        self.prev_pages = {p.url: p for p in previous_pages}
        self.page_texts: dict[str, PageText] = {}
        self.queue: asyncio.Queue[str] = asyncio.Queue()
        self.pages: dict[str, Page] = {}
        self.texts: dict[str, list[SectionText]] = {}
        self.aliases: dict[str, set[str]] = {}
        self.claimed: set[str] = set()
        self.errors: Counter[ErrorKind] = Counter()
        self.samples: dict[ErrorKind, list[str]] = {}
        self.stats = Counter[str]()
        self.done = 0
        self.parser = ParsePool(config.parse_processes)
        self.origins = site_origins(config.start_url, config.allow_origins)
        self.crawl_delay = 0.0
        self._delay_lock = asyncio.Lock()
        self._last_request = 0.0

    # -- frontier -------------------------------------------------------
    def error(self, kind: ErrorKind, url: str) -> None:
        self.errors[kind] += 1
        samples = self.samples.setdefault(kind, [])
        if len(samples) < MAX_ERROR_SAMPLES:
            samples.append(url)

    def admit(self, url: str) -> None:
        canonical = self.frontier.admit(url)
        if canonical is not None:
            self.queue.put_nowait(canonical)

    # -- one URL --------------------------------------------------------
    async def _polite(self) -> None:
        delay = self.crawl_delay
        if delay <= 0:
            return
        async with self._delay_lock:
            wait = self._last_request + delay - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            self._last_request = time.monotonic()

    def keep_previous(self, prev: Page, aliases: set[str], stale: bool) -> None:
        if prev.url in self.pages and not self.pages[prev.url].stale:
            self.aliases.setdefault(prev.url, set()).update(aliases)
            return
        self.pages[prev.url] = dataclasses.replace(prev, stale=stale)
        self.aliases.setdefault(prev.url, set(prev.aliases)).update(aliases)
        self.texts[prev.url] = self.prev_texts.get(prev.url, [])
        self.mentions[prev.url] = self.prev_mentions.get(prev.url, [])
        if prev.url in self.prev_pages:  # a 304 keeps the page's visible text as it keeps its section texts
            self.page_texts[prev.url] = self.prev_pages[prev.url]
        for link in prev.links or ():  # an unchanged page still leads to pages the last crawl did not reach
            self.admit(link)

    def conditional(self, prev: Page | None) -> tuple[str | None, str | None]:
        # Without the page's previous texts (or links) a 304 would leave it textless (or a dead end): fetch it.
        # ("Other" pages, navigation among them, may have no texts by design.) The same for its visible text, when
        # the site has any stored.
        textless = prev is not None and bool(prev.sections) and prev.source_type != SourceType.OTHER and (
            prev.url not in self.prev_texts or (bool(self.prev_pages) and prev.url not in self.prev_pages))
        if prev is None or self.config.refetch or self.reparse or prev.links is None or textless:
            return None, None
        return prev.etag, prev.last_modified

    async def visit(self, url: str, start: bool = False) -> Visit:
        """Fetch and record one URL; returns the outcome kind ("ok", "not_modified" or an error kind).

        The start URL may redirect anywhere (http → https, / → /en/latest/); the scope follows it.
        """
        prev = self.previous.page(url) if self.previous else None
        etag, modified = self.conditional(prev)
        await self._polite()
        result = await self.fetcher.get(url, etag=etag, last_modified=modified,
                                        follow=self.may_fetch if start else self.frontier.in_scope)
        self.stats["requests"] += 1
        try:
            final = normalize(result.final_url)
        except ValueError:
            final = url
        requested = {normalize(u) for u in (url, *result.redirects) if is_http(u)}
        if result.error == FetchError.OFFSITE_REDIRECT:
            self.error(FetchError.OFFSITE_REDIRECT, url)
            self.stats["skipped"] += 1
            return FetchError.OFFSITE_REDIRECT
        if start and not self.frontier.in_scope(final):
            log.info("start URL %s redirects to %s; crawling under %s", url, final, scope_prefix(final))
            self.frontier.prefix = scope_prefix(final)
        self.frontier.mark(final)
        if result.not_modified:
            prev = prev or (self.previous.page(final) if self.previous else None)
            if prev is None:
                self.error(CrawlIssue.UNEXPECTED_304, url)
                return CrawlIssue.UNEXPECTED_304
            self.stats["not_modified"] += 1
            self.keep_previous(prev, requested - {prev.url}, stale=False)
            return "not_modified"
        if result.error is not None:
            return self.failed(url, result.error, result.status, prev, requested)
        canonical = final
        aliases = requested - {canonical}
        if canonical in self.claimed:
            self.aliases.setdefault(canonical, set()).update(aliases)
            return "ok"
        self.claimed.add(canonical)
        # split at what the page was split at last time: unless other pages' links changed, once is enough
        elsewhere = frozenset(prev.linked) if prev is not None else frozenset()
        try:
            ex = await self.parser.extract(result, elsewhere)
        except Exception:  # one broken page must not stop the crawl
            log.exception("could not parse %s; skipped", canonical)
            self.claimed.discard(canonical)
            return self.failed(url, CrawlIssue.PARSE_ERROR, result.status, prev, requested)
        if result.truncated:
            self.error(CrawlIssue.TRUNCATED, canonical)
        if ex.too_deep:
            self.error(CrawlIssue.TOO_DEEP, canonical)
        self.stats["fetched"] += 1
        self.stats["bytes"] += len(result.body)
        for link in self.record(canonical, result, ex, aliases, elsewhere):
            self.admit(link)
        return "ok"

    def record(self, canonical: str, result: FetchResult, ex: Extracted, aliases: set[str],
               elsewhere: frozenset[str]) -> tuple[str, ...]:
        """Keep a parsed page (split at the anchors ``elsewhere`` links to); returns its in-scope links."""
        if not ex.navigation and is_navigation(canonical):
            ex = dataclasses.replace(ex, navigation=True)
        hint = SourceType.OTHER if ex.navigation else result.source_type_hint or ex.source_type_hint
        source_type = classify(canonical, self.config.source_types, hint)
        links = self.frontier.scoped(ex.links)
        page, texts = build_page(self.config.site, canonical, result, ex, source_type, aliases, links, elsewhere)
        self.pages[canonical] = page
        self.texts[canonical] = texts
        self.mentions[canonical] = ex.mentions
        self.owners[canonical] = section_owners(ex.sections)
        visible = page_text(canonical, ex)
        if visible is not None:
            self.page_texts[canonical] = visible
        else:
            self.page_texts.pop(canonical, None)
        self.aliases.setdefault(canonical, set()).update(aliases)
        return links

    # -- the second split -------------------------------------------------
    async def split_again(self) -> None:
        """Split each page at the anchors other pages link to where they are not what it was split at (a page
        parsed before the pages that link to it, one whose linking pages changed while it answered 304): fetched
        again in full, parsed with that set. A page that cannot be fetched keeps the split it has, and its set."""
        todo = to_split(self.merged_pages(), self.mentions)
        if not todo:
            return
        log.info("%d pages of %s are split again at the anchors other pages link to", len(todo), self.config.site)
        slots = asyncio.Semaphore(max(1, self.config.concurrency))

        async def one(url: str, elsewhere: frozenset[str]) -> None:
            async with slots:
                await self._polite()
                result = await self.fetcher.get(url, follow=self.frontier.in_scope)
                self.stats["requests"] += 1
                try:
                    same = result.error is None and not result.not_modified and normalize(result.final_url) == url
                except ValueError:
                    same = False
                if not same:
                    log.info("%s could not be fetched again (%s); its sections stay as split", url,
                             result.error or result.status)
                    return
                try:
                    ex = await self.parser.extract(result, elsewhere)
                except Exception:  # it was parsed once; it keeps that
                    log.exception("could not parse %s again; its sections stay as split", url)
                    return
                self.stats["bytes"] += len(result.body)
                self.record(url, result, ex, set(self.pages[url].aliases), elsewhere)

        await asyncio.gather(*(one(url, frozenset(wanted)) for url, wanted in todo.items()))

    def failed(self, url: str, kind: ErrorKind, status: int | None, prev: Page | None, requested: set[str]) -> ErrorKind:
        self.error(kind, url)
        if kind == FetchError.NOT_HTML:
            self.stats["skipped"] += 1
            return kind
        self.stats["failed"] += 1
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
                self.error(CrawlIssue.INTERNAL, url)
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
        reached = self.stats["fetched"] + self.stats["not_modified"]
        return reached == 0 and self.stats["failed"] >= self.config.outage_after

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
        self.crawl_delay = robots.crawl_delay
        self.frontier.mark(start)
        outcome = await self.visit(start, start=True)
        self.done += 1
        if outcome == FetchError.OFFSITE_REDIRECT:
            raise StartURLError(f"Start URL {self.config.start_url} redirects to another origin — crawl the URL it "
                                "redirects to, or list that origin in the site's allow_origins")
        if outcome not in ("ok", "not_modified") and start not in self.pages and (
            self.previous is None or self.previous.page(start) is None or outcome == FetchError.CONNECT
        ):
            raise StartURLError(f"Start URL {self.config.start_url} failed ({outcome}) — check the URL and that "
                                "it serves an HTML page")
        if self.previous:
            for url in sorted(self.previous.pages):
                self.admit(url)
        if self.config.sitemaps:
            origin = "/".join(start.split("/", 3)[:3]) + "/"
            bases = (self.frontier.prefix, origin)
            candidates = [*robots.sitemaps, *(base + name for base in bases for name in SITEMAPS)]
            for url in await discover(self.fetcher, candidates, self.may_fetch,
                                      lambda url: self.error(CrawlIssue.OFFSITE_SITEMAP, url)):
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
        self.error(CrawlIssue.MAX_TIME, self.config.start_url)
        for url, prev in sorted(self.previous.pages.items()) if self.previous else ():
            if url not in self.pages:
                self.keep_previous(prev, set(), stale=False)

    def result(self, crawled_at: str, duration: float, previous_texts: Sequence[SectionText]) -> CrawlResult:
        texts = [t for url in sorted(self.pages) for t in self.texts.get(url, ())]
        copies = aggregate_pages(texts)  # all-in-one copies of other pages: valid anchors, no texts to index
        texts = [t for t in texts if t.url not in copies]
        pages = {url: dataclasses.replace(page, source_type=SourceType.OTHER) if url in copies else page
                 for url, page in self.merged_pages().items()}
        new_map = AnchorMap(site=self.config.site, base_url=self.config.start_url,
                            crawled_at=crawled_at, pages=pages, extractor=EXTRACTOR_VERSION)
        d = diff_maps(self.previous, new_map, previous_texts, texts)
        new_map.renames = merge_renames(self.previous, d.renames)
        report = ChangeReport(
            pages=len(pages),
            anchors=new_map.anchor_count(),
            sections=new_map.section_count(),
            pages_added=d.pages_added,
            pages_removed=d.pages_removed,
            anchors_added=d.anchors_added,
            anchors_removed=d.anchors_removed,
            renames=d.renames,
            stale=tuple(sorted(u for u, p in pages.items() if p.stale)),
            errors={str(k): n for k, n in sorted((self.errors + Counter[ErrorKind](self.frontier.rejected)).items())},
            error_samples={str(k): tuple(sorted(v)) for k, v in sorted(self.samples.items())},
            duration=duration,
        )
        stats = CrawlStats(**{k: self.stats[k] for k in ("requests", "fetched", "not_modified", "failed",
                                                         "skipped", "bytes")})
        visible = [self.page_texts[u] for u in sorted(self.pages) if u in self.page_texts and u not in copies]
        return CrawlResult(new_map, texts, report, stats, self.resolved_mentions(new_map), visible)

    def merged_pages(self) -> dict[str, Page]:
        """The pages so far, by URL in order, each with every alias it was reached by."""
        pages = {}
        for url in sorted(self.pages):
            page = self.pages[url]
            aliases = set(page.aliases) | self.aliases.get(url, set())
            extra = dir_alias(url)
            if extra:
                aliases.add(extra)
            aliases.discard(url)
            pages[url] = dataclasses.replace(page, aliases=tuple(sorted(aliases)))
        return pages

    def resolved_mentions(self, new_map: AnchorMap) -> list[Mention]:
        """Every page's mentions of pages in the new map, each fragment resolved to its section."""
        def known(url: str) -> frozenset[str]:
            page = new_map.pages.get(url)
            return frozenset(s.anchor for s in page.sections if s.anchor) if page else frozenset()

        return [m for url in sorted(self.mentions) if url in new_map.pages
                for m in resolve_mentions(url, self.mentions[url], new_map.canonical, self.owners, known,
                                          self.prev_sections)]

