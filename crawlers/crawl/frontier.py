"""The crawl frontier: which URLs are new, in scope, allowed and within the caps.

Pure bookkeeping (no I/O): the crawl loop asks :meth:`Frontier.admit` for every
link and queues what comes back. Memory stays bounded: at most ``max_pages``
canonical URLs, ``max_query_variants`` query strings per path, and a capped
set of raw link spellings.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from crawlers.crawl.issues import CrawlIssue
from crawlers.crawl.robots import Robots
from crawlers.urls import in_scope, normalize

log = logging.getLogger(__name__)

MAX_PAGES = 10_000
MAX_QUERY_VARIANTS = 20  # distinct query strings admitted per path (calendar-like URL spaces)
MAX_URL_LENGTH = 2048
MAX_RAW_SEEN = 200_000  # link spellings remembered to skip re-normalising (bounded memory)


@dataclass(slots=True)
class Frontier:
    """Admission rules and the set of URLs already queued for one crawl."""

    prefix: str
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    robots: Robots | None = None
    max_pages: int = MAX_PAGES
    max_query_variants: int = MAX_QUERY_VARIANTS
    max_url_length: int = MAX_URL_LENGTH
    seen: set[str] = field(default_factory=set)
    rejected: Counter[CrawlIssue] = field(default_factory=Counter)  # reason -> count
    blocked: list[str] = field(default_factory=list)  # a few URLs robots.txt disallowed
    _raw: set[str] = field(default_factory=set)
    _variants: Counter[str] = field(default_factory=Counter)

    def in_scope(self, url: str) -> bool:
        return in_scope(url, self.prefix, self.include, self.exclude)

    def scoped(self, links: Iterable[str]) -> tuple[str, ...]:
        """The in-scope pages among ``links``, canonical and sorted (a page keeps them in the map for the next crawl)."""
        out = set()
        for link in links:
            try:
                canonical = normalize(link.partition("#")[0])
            except ValueError:
                continue
            if self.in_scope(canonical):
                out.add(canonical)
        return tuple(sorted(out))

    def in_page_order(self, scoped: tuple[str, ...], links: Iterable[str]) -> list[str]:
        """``scoped`` (what :meth:`scoped` made of ``links``) in the order the page gives them: queued so, the pages a
        site puts first (its header's index and contents, which link into most others) are read before the pages they
        link into, which are then split once at the anchors they link to (:mod:`crawlers.crawl.cross_links`)."""
        wanted = set(scoped)
        out: list[str] = []
        for link in links:
            try:
                canonical = normalize(link.partition("#")[0])
            except ValueError:
                continue
            if canonical in wanted:
                wanted.discard(canonical)
                out.append(canonical)
        return out

    def mark(self, canonical: str) -> None:
        """Record a URL reached another way (a redirect target) so links to it are not queued again."""
        self.seen.add(canonical)

    def admit(self, url: str) -> str | None:
        """The canonical URL to queue, or None when ``url`` is known, out of scope, disallowed or over a cap."""
        url = url.partition("#")[0]
        if url in self._raw:  # most links repeat on every page: skip normalising them again
            return None
        if len(self._raw) < MAX_RAW_SEEN:
            self._raw.add(url)
        if len(url) > self.max_url_length:
            self.rejected[CrawlIssue.URL_TOO_LONG] += 1
            return None
        try:
            canonical = normalize(url)
        except ValueError:
            return None
        if canonical in self.seen or not self.in_scope(canonical):
            return None
        if self.robots is not None and not self.robots.allowed(canonical):
            self.rejected[CrawlIssue.ROBOTS_DISALLOWED] += 1
            if len(self.blocked) < 5:
                self.blocked.append(canonical)
            self.seen.add(canonical)
            return None
        path, _, query = canonical.partition("?")
        if query:
            if self._variants[path] >= self.max_query_variants:
                self.rejected[CrawlIssue.QUERY_VARIANTS] += 1
                return None
            self._variants[path] += 1
        if len(self.seen) >= self.max_pages:
            if not self.rejected[CrawlIssue.MAX_PAGES]:
                log.warning("max-pages cap of %d reached; not queueing more URLs", self.max_pages)
            self.rejected[CrawlIssue.MAX_PAGES] += 1
            return None
        self.seen.add(canonical)
        return canonical
