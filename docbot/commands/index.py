"""`docbot index`: chunk and embed crawled sites into Chroma and BM25 (only what changed)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from crawlers.sitenames import SITE_NAME
from docbot.commands.args import site_name
from docbot.config import Settings
from docbot.disk import disk_usage
from docbot.errors import SiteNotFound
from docbot.indexing import legacy
from docbot.indexing.generations import SITES, Generations


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser(
        "index",
        help="build or update the search index from crawled sites",
        description="Index the newest crawl of every site (or --site): chunk it by section, embed new and changed "
        "chunks (the others' vectors are reused), store them in Chroma and BM25 under the data directory, and "
        "commit it as the generation readers use.",
    )
    p.add_argument("--site", action="append", default=[], type=site_name, help="index only this site (repeatable)")
    p.add_argument("--rebuild", action="store_true", help="embed everything again (readers keep the current index meanwhile)")
    p.add_argument("--chroma-url", help="use a Chroma server, e.g. http://127.0.0.1:8000 (env CHROMA_URL)")
    p.add_argument("--json", action="store_true", help="print one JSON object per site")
    p.set_defaults(func=run)


def _sites(args: argparse.Namespace, settings: Settings) -> list[str]:
    """The sites to index, each checked to have a crawl before the model loads."""
    if args.site:
        names = list(args.site)
    else:
        root = settings.data_dir / SITES
        names = sorted(d.name for d in root.iterdir() if d.is_dir() and SITE_NAME.fullmatch(d.name)) if root.is_dir() else []
        if not names:
            raise SiteNotFound(f"No crawled sites in {settings.data_dir}/ — run `docbot crawl URL --site NAME` first")
    for site in names:
        crawled = Generations(settings.data_dir, site).latest() is not None
        if not (crawled or legacy.has_crawl(settings, site)):
            raise SiteNotFound(f"No crawl of site {site!r} in {settings.data_dir}/ — "
                               f"run `docbot crawl URL --site {site}` first")
    return names


def _tqdm_progress(site: str) -> tuple[Callable[[int, int], None], Callable[[], None]]:
    """A tqdm bar driven by indexing's (done, total) callbacks, and its closer."""
    from tqdm import tqdm

    state: dict[str, Any] = {}

    def update(done: int, total: int) -> None:
        bar = state.get("bar")
        if bar is None:
            bar = state["bar"] = tqdm(total=total, desc=f"{site}: embedding", unit="chunk", file=sys.stderr)
        bar.update(done - bar.n)

    def close() -> None:
        if "bar" in state:
            state["bar"].close()

    return update, close


def run(args: argparse.Namespace, settings: Settings) -> int:
    from docbot.indexing.embed import embedder_from_settings
    from docbot.indexing.index import Index

    sites = _sites(args, settings)
    with Index.from_settings(settings, embedder_from_settings(settings)) as index:
        for site in sites:
            _index_site(index, site, args, settings)
    if not args.json:
        print(f"on disk: {disk_usage(settings.data_dir).describe()}")
    return 0


def _index_site(index: Any, site: str, args: argparse.Namespace, settings: Settings) -> None:
    """Index one site's newest crawl (under its lock), with a progress bar on a TTY, and print its summary."""
    from docbot.updating import index_site

    tty = sys.stderr.isatty() and not args.json
    progress, close = _tqdm_progress(site) if tty else (None, lambda: None)
    try:
        with Generations(settings.data_dir, site).writing("index") as writer:
            stats = index_site(settings, index, writer, rebuild=args.rebuild, progress=progress)
    finally:
        close()
    if args.json:  # each site's line says what the data dir holds once that site is indexed
        print(json.dumps(stats.to_json() | {"disk": disk_usage(settings.data_dir).to_json()}), flush=True)
    else:
        rate = f", {stats.embedded / stats.seconds:.1f} chunks/s" if stats.embedded and stats.seconds > 0 else ""
        print(
            f"{site}: generation {stats.generation}, {stats.chunks} chunks, {stats.embedded} embedded, "
            f"{stats.reused} reused, {stats.deleted} deleted in {stats.seconds:.1f}s{rate}"
        )
