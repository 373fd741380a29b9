"""`docbot index`: chunk and embed crawled sites into Chroma and BM25 (only what changed)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from crawlers.model import AnchorMap, load_section_texts, map_path
from crawlers.sitenames import map_sites
from docbot.commands.args import site_name
from docbot.config import Settings
from docbot.errors import SiteNotFound


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser(
        "index",
        help="build or update the search index from crawled sites",
        description="Chunk every crawled site (or --site) by section, embed new and changed chunks, "
        "store them in Chroma and BM25 under the data directory, and delete chunks of removed sections.",
    )
    p.add_argument("--site", action="append", default=[], type=site_name, help="index only this site (repeatable)")
    p.add_argument("--rebuild", action="store_true", help="drop the site's index and embed everything again")
    p.add_argument("--chroma-url", help="use a Chroma server, e.g. http://127.0.0.1:8000 (env CHROMA_URL)")
    p.add_argument("--json", action="store_true", help="print one JSON object per site")
    p.set_defaults(func=run)


def _sites(args: argparse.Namespace, settings: Settings) -> list[str]:
    if args.site:
        return list(args.site)
    names = map_sites(settings.anchor_maps)
    if not names:
        raise SiteNotFound(
            f"No anchor maps in {settings.anchor_maps}/ — run `docbot crawl URL --site NAME` first"
        )
    return names


def _tqdm_progress(site: str) -> tuple[Callable[[int, int], None], Callable[[], None]]:
    """A tqdm bar driven by Index.build's (done, total) callbacks, and its closer."""
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
    maps = {}
    for site in sites:  # check every map before the model loads
        path = map_path(settings.anchor_maps, site)
        if not path.is_file():
            raise SiteNotFound(f"No anchor map for site {site!r} at {path} — run `docbot crawl URL --site {site}` first")
        maps[site] = AnchorMap.load(path)
    with Index.open(settings.data_dir, embedder_from_settings(settings), chroma_url=settings.chroma_url) as index:
        for site in sites:
            _index_site(index, site, maps[site], args, settings)
    return 0


def _index_site(index: Any, site: str, amap: AnchorMap, args: argparse.Namespace, settings: Settings) -> None:
    """Index one site, with a progress bar on a TTY, and print its summary."""
    sections = load_section_texts(settings.data_dir, site)
    tty = sys.stderr.isatty() and not args.json
    progress, close = _tqdm_progress(site) if tty else (None, lambda: None)
    try:
        stats = index.build(site, sections, amap, progress, rebuild=args.rebuild)
    finally:
        close()
    if args.json:
        print(json.dumps(stats.to_json()), flush=True)
    else:
        rate = f", {stats.embedded / stats.seconds:.1f} chunks/s" if stats.embedded and stats.seconds > 0 else ""
        print(
            f"{site}: {stats.chunks} chunks, {stats.embedded} embedded, {stats.deleted} deleted "
            f"in {stats.seconds:.1f}s{rate}"
        )
