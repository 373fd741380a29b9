"""The rendering fetcher: a static fetch first, then the browser's DOM for pages that are application shells.

:class:`RenderingFetcher` keeps the static fetcher's contract whole (conditional requests, redirects inside scope,
retries, error kinds): every page is first fetched as served. A 304, an error or a non-HTML body is returned as it is,
so a refresh re-renders only pages whose static response changed. An HTML page is then read in the browser when the
site's ``render`` says so: ``always``, or ``auto`` and the static HTML is an application shell
(:func:`crawlers.fetch.shell.shell_evidence`). The result carries the rendered DOM as its body, the static response's
validators, and ``rendered`` (the evidence). The browser starts on the first page that needs it, so a static site
never starts one. An app whose pages are hash routes (docsify) has each route rendered in a tab of its own and
gathered into one document whose ids are the routes (:mod:`crawlers.fetch.routes`); an app that renders its entries
collapsed and lands on them by routes (Swagger UI) has them expanded in the browser and the page composed with its
routes as ids (:mod:`crawlers.fetch.entries`). ``routes`` says their form. Such an app's content lives in other
files than its shell (Markdown, an OpenAPI description), so a known app (Redoc too) is rendered again unless the files
it loaded last time, read before the browser loads them, are unchanged (:mod:`crawlers.fetch.sources`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import re
from collections.abc import Callable
from typing import Literal, get_args
from urllib.parse import urljoin

from crawlers.errors import BrowserUnavailable
from crawlers.fetch.browser import MAX_TABS, Browser
from crawlers.fetch.entries import compose_entries, landing_ids_only
from crawlers.fetch.limits import (
    CEILING_BYTES,
    CEILING_S,
    PAGE_TIMEOUT,
    RenderLimits,
    count_operations,
    describe,
    scale,
)
from crawlers.fetch.protocol import Fetch
from crawlers.fetch.result import HTML_TYPES, FetchError, FetchResult
from crawlers.fetch.routes import MAX_ROUTES, compose, route_links, title_of
from crawlers.fetch.shell import Shell, Spec, shell_evidence
from crawlers.fetch.sources import fingerprint, loaded, ours
from crawlers.fetch.static import MAX_BYTES

log = logging.getLogger(__name__)

RenderMode = Literal["auto", "always", "never"]
RENDER_MODES: tuple[str, ...] = get_args(RenderMode)
RENDER: RenderMode = "auto"  # the default: static pages are read as served, application shells rendered
ALWAYS = Shell("render = always", None)
VALIDATORS = ("etag", "last-modified")  # the response headers a conditional request is made from
# the site setting that is the ceiling of each scaled limit (crawlers.fetch.limits; the heap's is the crawler's own)
SETTINGS = {"page_timeout": "render_max_seconds", "expand_budget": "render_max_seconds", "max_bytes": "render_max_bytes"}


class RenderingFetcher:
    """Static fetches, with the pages that need it rendered in headless Chromium; ``async with`` it like a Fetcher."""

    def __init__(self, static: Fetch, mode: RenderMode = RENDER, *, max_tabs: int = MAX_TABS,
                 timeout: float = PAGE_TIMEOUT, max_bytes: int = MAX_BYTES, user_agent: str | None = None,
                 browser: Callable[[], Browser] | None = None, max_seconds: float = CEILING_S,
                 max_page_bytes: int = CEILING_BYTES) -> None:
        self.static = static
        self.mode = mode
        self.max_bytes = max_bytes
        self.max_seconds = max_seconds  # the ceiling of a page's scaled time limits (crawlers.fetch.limits)
        self.max_page_bytes = max_page_bytes  # the ceiling of a composed page's scaled size
        self._make = browser or (lambda: Browser(max_tabs=max_tabs, timeout=timeout, user_agent=user_agent))
        self.browser: Browser | None = None
        self.rendered = 0  # pages read in the browser
        self._missing: str | None = None  # why there is no browser (auto: said once, then pages are read as served)

    @property
    def user_agent(self) -> str:
        return self.static.user_agent

    async def __aenter__(self) -> RenderingFetcher:
        if self.mode == "always":
            Browser.check()  # a crawl that must render says at once that it cannot
        await self.static.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        try:
            if self.browser is not None:
                await self.browser.close()
        finally:
            await self.static.__aexit__(*exc)

    async def get(self, url: str, etag: str | None = None, last_modified: str | None = None, html_only: bool = True,
                  retries: int | None = None, follow: Callable[[str], bool] | None = None,
                  max_bytes: int | None = None, sources: tuple[str, ...] = ()) -> FetchResult:
        """The static response, or for a page to render, that response with the browser's DOM as its body; a known
        app whose shell and ``sources`` are as they were when ``etag`` (docbot's own) was made answers 304, unrendered
        (:mod:`crawlers.fetch.sources`)."""
        made = etag if ours(etag) else None
        if made is not None:  # not the server's validator: the shell is fetched whole and compared with its sources
            etag = last_modified = None
        result = await self.static.get(url, etag=etag, last_modified=last_modified, html_only=html_only,
                                       retries=retries, follow=follow, max_bytes=max_bytes)
        if self.mode == "never" or not html_only or not result.ok or result.content_type not in HTML_TYPES:
            return result
        shell = ALWAYS if self.mode == "always" else shell_evidence(result.body, result.encoding)
        if shell is None:
            return result
        # read before the browser loads them: a file that changes in between makes the next crawl render again
        before = await fingerprint(self.static, result.final_url, result.body, sources, self.max_page_bytes) if (
            sources and shell.root is not None) else None
        if made is not None and made == before:
            log.info("%s: its shell and the %d files it loaded are unchanged; not rendered again", url, len(sources))
            return dataclasses.replace(result, status=304, body=b"")
        browser = self._browser(result.final_url, shell)
        if browser is None:
            return result
        log.info("rendering %s: %s", result.final_url, shell.reason)
        entries = shell.root.entries if shell.root is not None else None
        limits = await self._limits(result, shell)
        try:
            rendered = await browser.render(result.final_url, shell.ready, entries.expand if entries else None,
                                            entries.virtual if entries else None, limits)
        except BrowserUnavailable as exc:
            if self.mode == "always":
                raise
            self._say_missing(str(exc))
            return result
        if rendered.html is None:
            self._say_limit(result.final_url, limits, "seconds", f"it was not read ({rendered.error})")
            return dataclasses.replace(result, body=b"", error=FetchError.RENDER_FAILED, rendered=shell.reason)
        self.rendered += 1
        if rendered.out_of_time:
            self._say_limit(result.final_url, limits, "seconds", rendered.out_of_time)
        routes = shell.root.routes if shell.root is not None else None
        loaded_now = rendered.sources
        if routes is not None:
            page, loaded_now = await self._routes(browser, result.final_url, rendered.html, shell, loaded_now)
        elif entries is not None:
            # a second of lxml on 100 entries
            page = await asyncio.to_thread(compose_entries, rendered.html, entries, rendered.items)
        else:
            lands = shell.root.lands if shell.root is not None else None
            page = rendered.html if lands is None else await asyncio.to_thread(landing_ids_only, rendered.html, lands)
        body = page.encode("utf-8")
        truncated = len(body) > limits.max_bytes
        if truncated:
            log.warning("the rendered %s is larger than %d bytes; keeping only the first %d", url, limits.max_bytes,
                        limits.max_bytes)
            self._say_limit(result.final_url, limits, "bytes", f"its composed page is {len(body)} bytes")
        # a known app keeps its content in other files (Redoc's and Swagger UI's OpenAPI description, docsify's
        # Markdown): its shell's validators say nothing of them, so they give way to docbot's own, made from the files
        # the page loaded (crawlers.fetch.sources; none when one could not be read: rendered again on every crawl). An
        # unknown app's shell names its script bundle, whose new build changes the shell too
        routed = routes is not None or entries is not None
        headers = result.headers
        kept: tuple[str, ...] = ()  # the files to read before the next render: none when this one was not whole
        if shell.root is not None:
            used = loaded(result.final_url, loaded_now) if (
                loaded_now is not None and not rendered.out_of_time and not truncated) else ()
            # a fingerprint only when every file this render loaded was read before it (else the next crawl renders,
            # reading them all first)
            read_first = bool(used) and set(used) <= set(sources)
            own = {"etag": before} if read_first and before is not None else {}
            if used:
                kept = tuple(sorted(set(used) | set(sources)))
            headers = {k: v for k, v in result.headers.items() if k not in VALIDATORS} | own
        return dataclasses.replace(result, body=body[: limits.max_bytes], encoding="utf-8", truncated=truncated,
                                   headers=headers, rendered=shell.reason, source_type_hint=shell.source_type,
                                   routes=shell.root.links if routed and shell.root is not None else None,
                                   sources=kept)

    async def _routes(self, browser: Browser, url: str, home: str, shell: Shell,
                      loaded_home: tuple[str, ...] | None) -> tuple[str, tuple[str, ...] | None]:
        """An app whose pages are hash routes: every route its pages link to rendered (breadth first from the one
        its URL opens on, \"/\"), each in a tab of its own, and composed into one document (crawlers.fetch.routes);
        with the URLs all of them loaded (None: not all known)."""
        assert shell.root is not None and shell.root.routes is not None
        base = url.partition("#")[0]
        pages = {"/": home}
        sources: set[str] | None = set(loaded_home) if loaded_home is not None else None
        todo = [r for r in route_links(home) if r != "/"]
        seen = set(todo) | {"/"}
        while todo and len(pages) < MAX_ROUTES:
            batch, todo = todo[: MAX_ROUTES - len(pages)], []
            done = await asyncio.gather(*(browser.render(f"{base}#{route}", shell.ready) for route in batch))
            for route, got in zip(batch, done, strict=True):
                if got.html is None:
                    log.warning("could not render the route #%s of %s: %s", route, base, got.error)
                    sources = None  # the page lacks a route: no fingerprint may keep it so
                    continue
                self.rendered += 1
                pages[route] = got.html
                sources = sources | set(got.sources) if sources is not None and got.sources is not None else None
                new = [r for r in route_links(got.html) if r not in seen]
                seen.update(new)
                todo += new
        log.info("rendered %d routes of %s (%s)", len(pages), base, shell.root.generator)
        return compose(title_of(home), pages.items(), shell.root.routes), (
            tuple(sources) if sources is not None else None)

    async def _limits(self, result: FetchResult, shell: Shell) -> RenderLimits:
        """The limits the page renders within, scaled to the size of the API description its app loads."""
        spec = shell.root.spec if shell.root is not None else None
        body = await self._spec(result, spec) if spec is not None else None
        operations = await asyncio.to_thread(count_operations, body) if body else None
        limits = scale(operations, self.max_bytes, self.max_seconds, self.max_page_bytes)
        if limits.raised:
            log.info("%s renders within raised limits (%s): %s", result.final_url, limits.why, describe(limits))
        expands = shell.root is not None and shell.root.entries is not None
        held = {SETTINGS[k] for k in limits.capped if k in SETTINGS and (expands or k != "expand_budget")}
        for setting in sorted(held):
            log.warning("%s: the site's %s holds its limits below what its size asks (%s); if it does not render "
                        "whole, raise %s in docbot.toml", result.final_url, setting, describe(limits), setting)
        return limits

    async def _spec(self, result: FetchResult, spec: Spec) -> bytes | None:
        """The API description the shell names (in its HTML or its config script), or None."""
        named = _first(spec.url, result.body)
        if named is None and spec.config is not None and (src := _first(spec.config, result.body)) is not None:
            config = await self.static.get(urljoin(result.final_url, src), html_only=False)
            named = _first(spec.url, config.body) if config.ok else None
        if named is None:
            return None
        # read whole up to the composed page's ceiling (GitHub's is 13 MB): a JSON cut short does not parse
        got = await self.static.get(urljoin(result.final_url, named), html_only=False, max_bytes=self.max_page_bytes)
        if not got.ok or got.truncated:
            if got.truncated:
                log.warning("%s: its API description %s is past %d bytes, so its limits stay fixed: raise the site's "
                            "render_max_bytes in docbot.toml", result.final_url, named, self.max_page_bytes)
            return None
        return got.body

    def _say_limit(self, url: str, limits: RenderLimits, kind: Literal["seconds", "bytes"], what: str) -> None:
        """A warning, when a page did not fit its limits, saying which site setting would raise them."""
        setting, now = ("render_max_seconds", f"{self.max_seconds:.0f}") if kind == "seconds" \
            else ("render_max_bytes", f"{self.max_page_bytes}")
        if any(SETTINGS.get(k) == setting for k in limits.capped):
            advice = f"raise the site's {setting} in docbot.toml (now {now}), which held them"
        elif limits.raised:
            advice = "they were raised for its size and were not enough on this machine"
        else:
            advice = "they are the fixed ones: its API description is unknown or small"
        log.warning("%s did not fit its limits (%s; %s): %s", url, describe(limits), what, advice)

    def _browser(self, url: str, shell: Shell) -> Browser | None:
        if self.browser is None and self._missing is None:
            try:
                Browser.check()
            except BrowserUnavailable as exc:
                if self.mode == "always":
                    raise
                self._say_missing(f"{url} is an application shell ({shell.reason}) and is read as served. {exc}")
                return None
            self.browser = self._make()
        return self.browser

    def _say_missing(self, why: str) -> None:
        if self._missing is None:
            log.warning("%s", why)
            self._missing = why


def _first(pattern: re.Pattern[bytes], body: bytes) -> str | None:
    found = pattern.search(body)
    return found.group(1).decode("utf-8", "replace") if found else None
