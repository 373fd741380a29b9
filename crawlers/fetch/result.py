"""What one fetch gives back, whichever fetcher made it: :class:`FetchResult` and its error kinds (:class:`FetchError`).

The contract of :class:`crawlers.fetch.Fetch`: the crawl loop reads nothing else. Errors are values (``error``),
never exceptions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

HTML_TYPES = ("text/html", "application/xhtml+xml")



class FetchError(StrEnum):
    """Why a fetch gave no page (``FetchResult.error``); the crawl report counts them by these names."""

    TIMEOUT = "timeout"
    DEADLINE = "deadline"  # the whole request took longer than Fetcher.deadline
    CONNECT = "connect"
    HTTP = "http"  # any other transport error
    SERVER_ERROR = "server_error"  # 5xx after retries
    RATE_LIMITED = "rate_limited"  # 429 after retries
    NOT_FOUND = "not_found"  # 404/410
    CLIENT_ERROR = "client_error"  # other 4xx
    REDIRECT_LOOP = "redirect_loop"
    TOO_MANY_REDIRECTS = "too_many_redirects"
    NOT_HTML = "not_html"
    OFFSITE_REDIRECT = "offsite_redirect"
    RENDER_FAILED = "render_failed"  # the browser did not give the page's rendered DOM (crawlers.fetch.render)


@dataclass(frozen=True, slots=True)
class FetchResult:
    """What one GET (after redirects and retries) produced."""

    url: str  # as requested
    final_url: str
    status: int | None
    redirects: tuple[str, ...] = ()  # every URL before final_url, in order
    headers: Mapping[str, str] = field(default_factory=dict)  # lower-case names
    body: bytes = b""
    content_type: str = ""
    encoding: str | None = None
    error: FetchError | None = None
    truncated: bool = False  # body cut at max_bytes
    attempts: int = 1
    rendered: str | None = None  # why the body is the DOM a browser rendered (the shell's evidence), else None
    source_type_hint: str | None = None  # what the generator that rendered it makes, e.g. "API reference"
    routes: str | None = None  # its anchors are the hash routes of an app, in this form (crawlers.fetch.routes)
    sources: tuple[str, ...] = ()  # the files a known app's rendered content was made of (crawlers.fetch.sources)

    @property
    def ok(self) -> bool:
        return self.error is None and self.status is not None and 200 <= self.status < 300

    @property
    def not_modified(self) -> bool:
        return self.status == 304


