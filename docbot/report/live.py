"""Re-check emitted links against the served HTML: the page answers 200 and the fragment is an anchor.

Each page is fetched once (cached per page URL) with bounded concurrency; the
anchors come from :func:`crawlers.parse.extract.extract_anchors`, the same extractor
the crawler uses, so the report and the anchor map agree on what an anchor is.
A page whose static HTML is an application shell (Redoc, docsify…; :func:`crawlers.fetch.shell.shell_evidence`)
is read as the crawl read it, rendered in headless Chromium by the crawl's own
:class:`~crawlers.fetch.RenderingFetcher`: its anchors are the rendered DOM's (a docsify app's routes gathered into
one document, as in its map). Static pages are never rendered.
A link's text directive is checked twice against the page as served now: by docbot's own rule (the crawler's
extractor and :meth:`~docbot.references.textfrag.PageMatcher.lands`, as when the link was made: a directive whose
sentence was edited or moved since is stale) and by other code than docbot's (:mod:`docbot.report.independent`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from contextlib import AsyncExitStack
from dataclasses import dataclass

import httpx

from crawlers.crawl.pages import page_text
from crawlers.crawl.styles import judge_pages
from crawlers.fetch import Fetch, Fetcher, RenderingFetcher
from crawlers.fetch.shell import shell_evidence
from crawlers.parse.extract import extract, extract_anchors
from crawlers.urls import normalize, origin, split_directive, split_fragment
from docbot.process import terminate
from docbot.references.textfrag import PageMatcher, parse
from docbot.report.independent import IndependentPage

DEFAULT_CONCURRENCY = 8
DEFAULT_TIMEOUT_S = 20.0


@dataclass(frozen=True, slots=True)
class LiveCheck:
    """Outcome of one live link check."""

    url: str
    ok: bool
    status: int | None  # HTTP status of the page, None when the request failed
    reason: str  # "ok", "fragment not in page", "HTTP 404", "request failed: ..."
    directive: str | None = None  # its text directive, if any, by the independent check: "ok" or why not
    own_directive: str | None = None  # the same by docbot's own rule on the served page ("ok", or why it is stale)

    @property
    def landed(self) -> bool:
        """The page answers, the fragment is on it, and a text directive (if any) still lands in its section."""
        return self.ok and self.own_directive in (None, "ok")


@dataclass(frozen=True, slots=True)
class _Fetched:
    status: int | None
    anchors: frozenset[str]
    error: str | None = None
    body: bytes = b""
    rendered: bool = False  # an application shell, read as rendered: a hash route in a link is a place on it


class LiveChecker:
    """Fetch pages over HTTP (one request per page) and check fragments in the served HTML; given a ``renderer``,
    an application shell's fragments in the DOM it renders."""

    def __init__(self, client: httpx.AsyncClient, concurrency: int = DEFAULT_CONCURRENCY,
                 renderer: Fetch | None = None) -> None:
        self._client = client
        self._renderer = renderer
        self._limit = asyncio.Semaphore(concurrency)
        self._pages: dict[str, asyncio.Task[_Fetched]] = {}
        self._read: dict[str, IndependentPage] = {}
        self._own: dict[str, asyncio.Future[PageMatcher | None]] = {}
        self._sheet_fetcher = Fetcher(client=client)  # the pages' style sheets, each read once for all of them
        self._sheets: dict[str, bool | None] = {}

    async def _fetch(self, page: str) -> _Fetched:
        async with self._limit:
            try:
                response = await self._client.get(page, follow_redirects=True)
            except httpx.HTTPError as exc:
                return _Fetched(None, frozenset(), f"request failed: {type(exc).__name__}: {exc}")
        if response.status_code != 200:
            return _Fetched(response.status_code, frozenset(), f"HTTP {response.status_code}")
        body = response.content
        if self._renderer is not None and shell_evidence(body, response.encoding) is not None:
            dom = await self._renderer.get(page)  # not rendered (no browser): the shell, whose links then fail
            if dom.ok and dom.rendered is not None:
                return _Fetched(200, extract_anchors(dom.body), body=dom.body, rendered=True)
        return _Fetched(200, extract_anchors(body), body=body)

    def _page(self, page: str) -> asyncio.Task[_Fetched]:
        task = self._pages.get(page)
        if task is None:
            task = asyncio.ensure_future(self._fetch(page))
            self._pages[page] = task
        return task

    async def check(self, url: str) -> LiveCheck:
        """Check one absolute URL: page fetched with 200 and fragment (if any) among its anchors."""
        base, fragment = split_fragment(url)
        try:
            page = normalize(base)
        except ValueError as exc:
            return LiveCheck(url, False, None, f"not an http(s) URL: {exc}")
        fetched = await self._page(page)
        if fetched.error:
            return LiveCheck(url, False, fetched.status, fetched.error)
        if fetched.rendered:  # an app's route (docsify's #/guide?id=x) is a place on it, one the app must render
            fragment = split_fragment(url, routes=True)[1]
        if fragment and fragment != "top" and fragment not in fetched.anchors:
            return LiveCheck(url, False, fetched.status, f"fragment #{fragment} not in page")
        directive = split_directive(url)[1]
        if directive is None:
            return LiveCheck(url, True, fetched.status, "ok")
        if page not in self._read:
            self._read[page] = IndependentPage(fetched.body)
            self._own[page] = asyncio.ensure_future(self._own_text(page, fetched.body))
        return LiveCheck(url, True, fetched.status, "ok", self._read[page].check(fragment, directive),
                         own_rule(await self._own[page], fragment, directive))

    async def _own_text(self, page: str, body: bytes) -> PageMatcher | None:
        """The served page's text as the crawler reads it, its style sheets read as a crawl reads them."""
        served = page_text(page, extract(body, page))
        if served is None:
            return None
        texts = {page: served}
        async with self._limit:
            await judge_pages(self._sheet_fetcher, texts, lambda sheet: same_origin(sheet, page), self._sheets)
        return PageMatcher(texts[page])

    async def check_all(self, urls: Iterable[str]) -> dict[str, LiveCheck]:
        """Check every distinct URL; returns url -> LiveCheck."""
        unique = list(dict.fromkeys(urls))
        results = await asyncio.gather(*(self.check(u) for u in unique))
        return dict(zip(unique, results))


def same_origin(url: str, page: str) -> bool:
    try:
        return origin(url) == origin(page)
    except ValueError:
        return False


def own_rule(matcher: PageMatcher | None, fragment: str, directive: str) -> str:
    """docbot's verdict on a directive against the page as served now: "ok", or why it no longer lands."""
    if matcher is None:
        return "the page as served has no text a directive lands in"
    found, _others = parse(directive)
    if not found:
        return "no text= directive"
    for text in found:
        why = "malformed" if text is None else matcher.lands(text, fragment)
        if why:
            return why
    return "ok"


async def check_links(
    urls: Iterable[str],
    client: httpx.AsyncClient | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    render: bool = True,
) -> dict[str, LiveCheck]:
    """Check ``urls`` live; opens (and closes) its own client unless one is given. ``render``: application shells
    are read as a browser renders them (the browser starts only for the first such page)."""
    async with AsyncExitStack() as stack:
        if client is None:
            client = await stack.enter_async_context(httpx.AsyncClient(timeout=DEFAULT_TIMEOUT_S))
        renderer = None
        if render:
            renderer = await stack.enter_async_context(RenderingFetcher(Fetcher(client=client), "auto"))
        return await LiveChecker(client, concurrency, renderer).check_all(urls)


def check_links_sync(urls: Iterable[str], concurrency: int = DEFAULT_CONCURRENCY) -> dict[str, LiveCheck]:
    """Blocking wrapper around :func:`check_links` for command-line use."""
    return terminate.run(check_links(list(urls), concurrency=concurrency))
