"""The static HTTP fetcher: the only module of the crawler that calls httpx.

One :class:`Fetcher` wraps an injected (or owned) ``httpx.AsyncClient`` and
turns every request into a :class:`FetchResult` value: redirects followed by
hand (so the chain is recorded and loops are caught), retries with
exponential backoff on 429/5xx and network errors honouring ``Retry-After``
(capped), a streamed size cap, conditional GET with ETag/Last-Modified, and a
total deadline per request (a server dripping one byte at a time is cut off).
Errors are values (``error`` kind), never exceptions.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import email.utils
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from urllib.parse import urljoin

import httpx

from crawlers.fetch.result import HTML_TYPES, FetchError, FetchResult
from crawlers.urls import origin, strip_userinfo

log = logging.getLogger(__name__)

DRAIN_BYTES = 64 * 1024  # unneeded bodies up to this size are read to keep the connection
USER_AGENT = "docbot/0.1 (+docs crawler)"
MAX_BYTES = 5_000_000
TIMEOUT = 15.0  # per connect/read: a server that drips bytes never trips it, hence DEADLINE
DEADLINE = 60.0  # seconds for one whole request: redirects, retries and the body included
RETRIES = 3
BACKOFF = 0.5  # seconds; doubled on every retry
MAX_RETRY_AFTER = 30.0  # a server asking for longer is not waited for that long
MAX_REDIRECTS = 10
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})

def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or HTTP date)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def _content_type(headers: httpx.Headers) -> tuple[str, str | None]:
    raw = headers.get("content-type", "")
    mime, _, params = raw.partition(";")
    charset = None
    for param in params.split(";"):
        key, _, val = param.strip().partition("=")
        if key.lower() == "charset" and val:
            charset = val.strip().strip('"') or None
    return mime.strip().lower(), charset


@dataclass(slots=True)
class Fetcher:
    """Polite GETs over one AsyncClient; use as ``async with Fetcher(...) as f``."""

    client: httpx.AsyncClient | None = None
    user_agent: str = USER_AGENT
    timeout: float = TIMEOUT
    deadline: float | None = DEADLINE
    max_bytes: int = MAX_BYTES
    retries: int = RETRIES
    backoff: float = BACKOFF
    max_retry_after: float = MAX_RETRY_AFTER
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    auth: tuple[str, str] | None = field(default=None, repr=False)  # Basic credentials (user, password)
    auth_origin: str | None = None  # the one origin they are sent to
    _owned: bool = False

    async def __aenter__(self) -> Fetcher:
        if self.client is None:
            self.client = httpx.AsyncClient(
                timeout=httpx.Timeout(self.timeout),
                limits=httpx.Limits(max_connections=64, max_keepalive_connections=32),
            )
            self._owned = True
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._owned and self.client is not None:
            await self.client.aclose()
            self.client = None

    async def get(
        self,
        url: str,
        etag: str | None = None,
        last_modified: str | None = None,
        html_only: bool = True,
        retries: int | None = None,
        follow: Callable[[str], bool] | None = None,
        max_bytes: int | None = None,
        sources: tuple[str, ...] = (),
    ) -> FetchResult:
        """GET ``url`` following redirects (those ``follow`` accepts); a non-HTML body is not downloaded when ``html_only``;
        its body is cut at ``max_bytes`` (None: the fetcher's ``max_bytes``); ``sources`` are a rendering fetcher's
        (:class:`crawlers.fetch.Fetch`), unused here.

        The whole request (redirects, retries, body) ends after ``deadline`` seconds with a ``deadline`` error.
        """
        try:
            async with asyncio.timeout(self.deadline):
                return await self._get(url, etag, last_modified, html_only, retries, follow, max_bytes)
        except TimeoutError:
            log.warning("%s took longer than %.0f s in all; given up", url, self.deadline)
            return FetchResult(url, url, None, error=FetchError.DEADLINE)

    async def _get(
        self,
        url: str,
        etag: str | None,
        last_modified: str | None,
        html_only: bool,
        retries: int | None,
        follow: Callable[[str], bool] | None,
        max_bytes: int | None = None,
    ) -> FetchResult:
        headers = {"User-Agent": self.user_agent, "Accept": "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5"}
        if etag:
            headers["If-None-Match"] = etag
        if last_modified:
            headers["If-Modified-Since"] = last_modified
        chain: list[str] = []
        url = current = strip_userinfo(url)  # credentials come from ``auth`` alone, never from a URL
        attempts = 0
        while True:
            result, location, used = await self._get_with_retries(
                url, current, headers, html_only, tuple(chain), self.retries if retries is None else retries, max_bytes
            )
            attempts += used
            if location is None:
                return _with_attempts(result, attempts)
            chain.append(current)
            nxt = strip_userinfo(urljoin(current, location).partition("#")[0])
            if nxt in chain or nxt == current:
                log.warning("redirect loop at %s (via %s)", url, " -> ".join(chain))
                return FetchResult(url, nxt, result.status, tuple(chain), error=FetchError.REDIRECT_LOOP, attempts=attempts)
            if follow is not None and not follow(nxt):
                log.info("%s redirects out of scope to %s; not followed", url, nxt)
                return FetchResult(url, nxt, result.status, tuple(chain), error=FetchError.OFFSITE_REDIRECT, attempts=attempts)
            if len(chain) > MAX_REDIRECTS:
                log.warning("more than %d redirects from %s", MAX_REDIRECTS, url)
                return FetchResult(url, nxt, result.status, tuple(chain), error=FetchError.TOO_MANY_REDIRECTS, attempts=attempts)
            current = nxt

    async def _get_with_retries(
        self, url: str, current: str, headers: dict[str, str], html_only: bool, chain: tuple[str, ...], retries: int,
        max_bytes: int | None = None,
    ) -> tuple[FetchResult, str | None, int]:
        """One hop: (result, redirect location or None, attempts used)."""
        attempt = 0
        while True:
            attempt += 1
            result, location, retry_after = await self._once(url, current, headers, html_only, chain, max_bytes)
            retryable = result.error in (FetchError.TIMEOUT, FetchError.CONNECT, FetchError.HTTP) or result.status in RETRY_STATUSES
            if not retryable or attempt > retries:
                return result, location, attempt
            delay = self.backoff * (2 ** (attempt - 1))
            if retry_after is not None:
                delay = min(max(delay, retry_after), self.max_retry_after)
            log.info("retrying %s in %.1fs (%s)", current, delay, result.error or result.status)
            await self.sleep(delay)

    async def _once(
        self, url: str, current: str, headers: dict[str, str], html_only: bool, chain: tuple[str, ...],
        max_bytes: int | None = None,
    ) -> tuple[FetchResult, str | None, float | None]:
        assert self.client is not None, "use Fetcher as an async context manager"
        if self.auth is not None and _origin(current) == self.auth_origin:
            token = base64.b64encode(f"{self.auth[0]}:{self.auth[1]}".encode()).decode("ascii")
            headers = {**headers, "Authorization": f"Basic {token}"}
        try:
            async with self.client.stream(
                "GET", current, headers=headers, follow_redirects=False, timeout=self.timeout
            ) as resp:
                status = resp.status_code
                hdrs = {k.lower(): v for k, v in resp.headers.items()}
                mime, charset = _content_type(resp.headers)
                if 300 <= status < 400 and status != 304 and "location" in resp.headers:
                    await _drain(resp)
                    return FetchResult(url, current, status, chain, hdrs), resp.headers["location"], None
                retry_after = parse_retry_after(resp.headers.get("retry-after"))
                error = _status_error(status)
                if error is None and status != 304 and html_only and mime not in HTML_TYPES:
                    error = FetchError.NOT_HTML
                body = b""
                truncated = False
                if error is None and status != 304:
                    body, truncated = await self._read_capped(resp, current, max_bytes or self.max_bytes)
                else:
                    await _drain(resp)
                return (
                    FetchResult(url, current, status, chain, hdrs, body, mime, charset, error, truncated),
                    None,
                    retry_after,
                )
        except httpx.TimeoutException:
            return FetchResult(url, current, None, chain, error=FetchError.TIMEOUT), None, None
        except (httpx.ConnectError, httpx.RemoteProtocolError, httpx.ReadError) as exc:
            log.debug("connect error for %s: %s", current, exc)
            return FetchResult(url, current, None, chain, error=FetchError.CONNECT), None, None
        except httpx.HTTPError as exc:
            log.debug("http error for %s: %s", current, exc)
            return FetchResult(url, current, None, chain, error=FetchError.HTTP), None, None

    async def _read_capped(self, resp: httpx.Response, url: str, cap: int) -> tuple[bytes, bool]:
        chunks: list[bytes] = []
        size = 0
        async for chunk in resp.aiter_bytes():
            chunks.append(chunk)
            size += len(chunk)
            if size > cap:
                log.warning("%s is larger than %d bytes; keeping only the first %d", url, cap, cap)
                return b"".join(chunks)[:cap], True
        return b"".join(chunks), False


async def _drain(resp: httpx.Response) -> None:
    """Read a small or empty body that is not needed (304, redirect, error page) so the connection is reused.

    An unread body makes httpx close the connection: a recrawl of all-304
    pages would open one TCP (and TLS) connection per page.
    """
    length = resp.headers.get("content-length")
    if resp.status_code == 304 or (length is not None and length.isdigit() and int(length) <= DRAIN_BYTES):
        try:
            await resp.aread()
        except httpx.HTTPError:  # the status is what counts; the connection is simply not reused
            log.debug("could not read the body of %s (%s)", resp.url, resp.status_code)


def _origin(url: str) -> str | None:
    try:
        return origin(url)
    except ValueError:
        return None


def _status_error(status: int) -> FetchError | None:
    if status < 400:
        return None
    if status in (404, 410):
        return FetchError.NOT_FOUND
    if status == 429:
        return FetchError.RATE_LIMITED
    if status >= 500:
        return FetchError.SERVER_ERROR
    return FetchError.CLIENT_ERROR


def _with_attempts(result: FetchResult, attempts: int) -> FetchResult:
    return result if attempts == result.attempts else dataclasses.replace(result, attempts=attempts)
