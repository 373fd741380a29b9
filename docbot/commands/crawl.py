"""`docbot crawl`: crawl a documentation site into its anchor map and section texts."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Callable
from typing import Any

from crawlers.crawl import CrawlConfig, CrawlResult
from crawlers.fetch import FetchError
from crawlers.model import AnchorMap, map_path
from docbot.commands.args import positive_float, positive_int, site_name, start_url
from docbot.config import Settings, SiteConfig
from docbot.errors import SiteNotFound, UsageError
from docbot.indexing.generations import Generation
from docbot.refresh import change_lists, listed
from docbot.updating import update_site

MAX_LISTED = 8  # items per change list in the text summary
SKIPPED = frozenset({FetchError.NOT_HTML})  # error kinds the summary lists as skipped links, not as errors


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser(
        "crawl",
        help="crawl a documentation site into its anchor map",
        description="Fetch every in-scope page of a site (incrementally when it was crawled before), record every "
        "anchor and section, stage them as the site's next generation (served once `docbot index` has indexed "
        "it), write anchor_maps/SITE.json, and report what changed.",
    )
    p.add_argument("url", nargs="?", type=start_url, help="start URL (default: the site's url in docbot.toml, else its map's base URL)")
    p.add_argument("--site", type=site_name,
                   help="site name (the map is written to ANCHOR_MAPS/NAME.json; default: the one site in docbot.toml)")
    p.add_argument("--max-pages", type=positive_int, help="stop queueing pages after N (default 10000)")
    p.add_argument("--concurrency", type=positive_int, help="parallel requests to the host (default 8)")
    p.add_argument("--max-time", type=positive_float, metavar="SECONDS",
                   help="stop the crawl after SECONDS; pages not reached keep their last entry (default: no limit)")
    p.add_argument("--include", action="append", default=[], metavar="GLOB",
                   help="only crawl paths under the start URL matching GLOB (repeatable)")
    p.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                   help="skip paths under the start URL matching GLOB (repeatable)")
    p.add_argument("--render", choices=("auto", "always", "never"),
                   help="read pages in headless Chromium: auto (application shells only), always, never "
                   "(default: the site's render in docbot.toml, else auto)")
    p.add_argument("--force", action="store_true", help="replace the map even if the crawl lost many pages")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    p.set_defaults(func=run)


def config_from_args(args: argparse.Namespace, settings: Settings) -> CrawlConfig:
    """The crawl config: command line over the site's docbot.toml entry (without ``--site``, the only one)."""
    if args.site is None:
        args.site = _only_site(settings, args.url)
    site = next((s for s in settings.sites if s.name == args.site), None) or SiteConfig(args.site, "")
    url = args.url or site.url
    path = map_path(settings.anchor_maps, args.site)
    if not url and path.is_file():  # recrawl a site crawled before from the command line
        url = AnchorMap.load(path).base_url
    if not url:
        raise SiteNotFound(
            f"No start URL for site {args.site!r}: pass one (`docbot crawl URL --site {args.site}`) "
            "or add the site to docbot.toml"
        )
    return dataclasses.replace(
        site, url=url, include=tuple(args.include) or site.include, exclude=tuple(args.exclude) or site.exclude,
        max_pages=args.max_pages or site.max_pages, concurrency=args.concurrency or site.concurrency,
        max_time=args.max_time or site.max_time, render=args.render or site.render,
    ).crawl_config()


def _only_site(settings: Settings, url: str | None) -> str:
    """The site a crawl without ``--site`` means: docbot.toml's only one (a URL must be its URL), else an error that
    names the choices."""
    names = [s.name for s in settings.sites]
    if len(names) == 1 and (url is None or url == settings.sites[0].url):
        return names[0]
    if url is not None:
        raise UsageError(f"name the site {url} is crawled as: `docbot crawl {url} --site NAME` (the map is written "
                         "to ANCHOR_MAPS/NAME.json)")
    if not names:
        raise UsageError("name the site to crawl: `docbot crawl URL --site NAME`, or add it to docbot.toml")
    raise UsageError(f"name the site to crawl: --site NAME (docbot.toml has {', '.join(names)}; `docbot refresh` "
                     "recrawls them all)")


def _progress() -> tuple[Callable[[int, int], None] | None, Callable[[], None]]:
    """A tqdm bar on stderr when it is a terminal; otherwise no progress output."""
    if not sys.stderr.isatty():
        return None, lambda: None
    from tqdm import tqdm

    bar = tqdm(total=1, desc="crawling", unit="page", file=sys.stderr)

    def update(done: int, total: int) -> None:
        bar.total = max(total, done)
        bar.update(done - bar.n)

    return update, bar.close


def summary_json(config: CrawlConfig, result: CrawlResult, settings: Settings, staged: Generation) -> dict[str, Any]:
    return {
        "site": config.site,
        "start_url": config.start_url,
        "map": str(map_path(settings.anchor_maps, config.site)),
        "generation": staged.number,
        "texts": str(staged.sections_file),
        **result.report.to_json(),
        "stats": result.stats.to_json(),
    }


def summary_text(config: CrawlConfig, result: CrawlResult, settings: Settings, staged: Generation) -> str:
    """A one-screen summary: counts, errors by kind and the change report."""
    r, s = result.report, result.stats
    lines = [
        f"Crawled {config.site} ({config.start_url}) in {r.duration:.1f} s",
        f"  pages:    {r.pages} (+{len(r.pages_added)} added, -{len(r.pages_removed)} removed, {len(r.stale)} stale)",
        f"  anchors:  {r.anchors} (+{len(r.anchors_added)} / -{len(r.anchors_removed)} on existing pages, "
        f"{len(r.renames)} renamed)",
        f"  sections: {r.sections}",
        f"  requests: {s.requests} ({s.fetched} parsed, {s.not_modified} not modified, {s.failed} failed, "
        f"{s.skipped} skipped)",
    ]
    # a link to a file that is no HTML page (a Sphinx page's "Show Source" .txt, a PDF) is skipped, not an error
    for label, counts in (("errors:  ", {k: v for k, v in r.errors.items() if k not in SKIPPED}),
                          ("skipped: ", {k: v for k, v in r.errors.items() if k in SKIPPED})):
        if counts:
            lines.append(f"  {label} " + ", ".join(f"{k} {v}" for k, v in counts.items()))
            for kind in counts:
                lines.append(f"    {kind}: {', '.join(r.error_samples.get(kind, ())[:3])}")
    for title, items in change_lists(r.to_json()):  # named and worded as in the refresh report
        lines += listed(f"  {title} ({len(items)}):", items, MAX_LISTED, "    ", "use --json")
    lines.append(f"  map:      {map_path(settings.anchor_maps, config.site)}")
    lines.append(f"  staged as generation {staged.number}: `docbot index --site {config.site}` serves it")
    return "\n".join(lines)


def run(args: argparse.Namespace, settings: Settings) -> int:
    config = config_from_args(args, settings)
    progress, close = _progress()
    try:
        result, staged = update_site(settings, config, force=args.force, progress=progress)
    finally:
        close()
    if args.json:
        print(json.dumps(summary_json(config, result, settings, staged), ensure_ascii=False))
    else:
        print(summary_text(config, result, settings, staged))
    return 0
