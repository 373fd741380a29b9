"""What one crawl of one site takes and gives back.

:class:`CrawlConfig` holds the start URL, the scope and every limit (each one overridable per site);
:class:`CrawlResult` the new anchor map, its section texts, the change report against the previous map,
the :class:`CrawlStats` and the pages' visible texts. Frozen values, shared by the loop (:mod:`crawlers.crawl.loop`) and
the entry points that run it (:mod:`crawlers.crawl.run`).
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass, field

from crawlers import fetch as f
from crawlers.crawl.diff import ChangeReport
from crawlers.crawl.frontier import MAX_PAGES, MAX_QUERY_VARIANTS, MAX_URL_LENGTH
from crawlers.fetch.limits import CEILING_BYTES, CEILING_S
from crawlers.model import AnchorMap, Mention, PageText, SectionText
from crawlers.urls import origin, strip_userinfo

log = logging.getLogger("crawlers.crawl")

CONCURRENCY = 8  # requests in flight; a crawl stays on one host (its scope is one origin)
LOSS_THRESHOLD = 0.2
OUTAGE_AFTER = 16  # failed pages, with none fetched or unchanged, after which the site counts as down


@dataclass(frozen=True, slots=True)
class CrawlConfig:
    """Everything one crawl of one site needs; limits are per-site overridable."""

    site: str
    start_url: str
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    source_types: tuple[tuple[str, str], ...] = ()  # (glob, source type), first match wins
    max_pages: int = MAX_PAGES
    concurrency: int = CONCURRENCY
    timeout: float = f.TIMEOUT
    deadline: float | None = f.DEADLINE  # seconds for one whole request (redirects, retries, body)
    max_time: float | None = None  # seconds for the whole crawl; pages not reached keep their last entry
    refetch: bool = False  # no conditional requests: every page is downloaded and parsed again
    outage_after: int = OUTAGE_AFTER
    max_bytes: int = f.MAX_BYTES
    loss_threshold: float = LOSS_THRESHOLD
    user_agent: str = f.USER_AGENT
    retries: int = f.RETRIES
    backoff: float = f.BACKOFF
    max_query_variants: int = MAX_QUERY_VARIANTS
    max_url_length: int = MAX_URL_LENGTH
    sitemaps: bool = True
    parse_processes: int | None = None  # None: one per CPU (up to 4) once the crawl is big; 0 or 1: inline
    # Origins besides the start URL's that robots.txt, sitemaps and the start URL's redirect may lead to.
    # Pages are crawled under the start URL's directory only, whatever this allows.
    allow_origins: tuple[str, ...] = ()
    # Basic credentials (user, password), sent to the start URL's origin only; never in a repr, a map or a report.
    auth: tuple[str, str] | None = field(default=None, repr=False)
    # Which pages are read in headless Chromium: "auto" those whose static HTML is an application shell,
    # "always" every HTML page, "never" none (crawlers.fetch.render).
    render: f.RenderMode = f.RENDER
    # The ceilings of a rendered page's limits, which grow with the API description it loads (crawlers.fetch.limits):
    # seconds of its page limit and of its expansion budget each, and bytes of the page composed from it.
    render_max_seconds: float = CEILING_S
    render_max_bytes: int = CEILING_BYTES

    def __post_init__(self) -> None:
        bare = strip_userinfo(self.start_url)
        if bare != self.start_url:  # never sent, never stored: the URL ends up in the map, reports and logs
            log.warning("the start URL of %s carries credentials; they are neither sent nor stored. Give the site "
                        "auth = { username = \"…\", password_env = \"NAME\" } in docbot.toml and export NAME",
                        self.site)
            object.__setattr__(self, "start_url", bare)
        object.__setattr__(self, "allow_origins", tuple(origin(o) for o in self.allow_origins))
        if self.render not in f.RENDER_MODES:
            raise ValueError(f"render must be one of {', '.join(f.RENDER_MODES)}, not {self.render!r}")


@dataclass(frozen=True, slots=True)
class CrawlStats:
    requests: int = 0  # page GETs (after redirects and retries)
    fetched: int = 0  # pages downloaded and parsed
    not_modified: int = 0  # 304s kept without re-parsing
    failed: int = 0
    skipped: int = 0  # out of scope, robots, non-HTML, caps
    bytes: int = 0

    def to_json(self) -> dict[str, int]:
        return dataclasses.asdict(self)


@dataclass(frozen=True, slots=True, repr=False)
class CrawlResult:
    map: AnchorMap
    texts: list[SectionText]
    report: ChangeReport
    stats: CrawlStats
    mentions: list[Mention] = field(default_factory=list)  # what each page says about the sections it links to
    page_texts: list[PageText] = field(default_factory=list)  # what text directives are checked against

    def __repr__(self) -> str:
        # Short on purpose: asyncio.run (3.11) reprs the main task's result when restoring SIGINT.
        return f"CrawlResult(site={self.map.site!r}, pages={len(self.map.pages)}, texts={len(self.texts)})"
