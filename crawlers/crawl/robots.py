"""robots.txt: fetched once per origin, parsed with ``urllib.robotparser``."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit
from urllib.robotparser import RobotFileParser

from crawlers.fetch import Fetch, FetchError

log = logging.getLogger(__name__)

MAX_CRAWL_DELAY = 10.0  # seconds; a larger robots.txt Crawl-delay is capped


@dataclass(frozen=True, slots=True)
class Robots:
    """The rules of one origin for our user agent."""

    parser: RobotFileParser | None  # None: everything allowed
    user_agent: str
    crawl_delay: float = 0.0
    sitemaps: tuple[str, ...] = ()
    reachable: bool = True  # False when robots.txt could not be fetched at all (network error)

    def allowed(self, url: str) -> bool:
        return self.parser is None or self.parser.can_fetch(self.user_agent, url)


def robots_url(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}/robots.txt"


def parse_robots(text: str, user_agent: str) -> Robots:
    """Rules from the text of a robots.txt (pure)."""
    parser = RobotFileParser()
    parser.parse(text.splitlines())
    agent = user_agent.split("/", 1)[0]
    delay = parser.crawl_delay(agent)
    return Robots(
        parser=parser,
        user_agent=agent,
        crawl_delay=min(float(delay or 0.0), MAX_CRAWL_DELAY),
        sitemaps=tuple(parser.site_maps() or ()),
    )


async def fetch_robots(fetcher: Fetch, start_url: str, follow: Callable[[str], bool] | None = None) -> Robots:
    """Fetch and parse the origin's robots.txt (redirects only where ``follow`` allows); a missing or broken file
    allows everything."""
    agent = fetcher.user_agent.split("/", 1)[0]
    result = await fetcher.get(robots_url(start_url), html_only=False, retries=1, follow=follow)
    if result.error in (FetchError.CONNECT, FetchError.TIMEOUT):
        return Robots(None, agent, reachable=False)
    if result.status in (401, 403):
        log.warning("robots.txt of %s answers %s: treating the site as disallowed", start_url, result.status)
        parser = RobotFileParser()
        parser.disallow_all = True  # type: ignore[attr-defined]  # set by RobotFileParser.read(), not declared
        return Robots(parser, agent)
    if not result.ok:
        return Robots(None, agent)
    return parse_robots(result.body.decode("utf-8", errors="replace"), fetcher.user_agent)
