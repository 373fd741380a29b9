"""A data dir written before generations, and its adoption: the one module that knows that layout.

Before generations a site kept its section texts in ``<data-dir>/sites/<site>/sections.jsonl``, its chunk manifest
in ``<data-dir>/index/<site>.json``, its BM25 in ``<data-dir>/bm25/<site>/`` and its vectors in one collection per
site (``docbot_<site>``), beside the published map. The next ``docbot index`` adopts it: the texts and map become
the site's first generation, its vectors are copied rather than embedded again, and the old files are removed.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from crawlers.model import AnchorMap, map_path
from crawlers.sitenames import check_site_name
from docbot.config import Settings
from docbot.errors import SiteNotFound
from docbot.indexing.chunk import Chunk
from docbot.indexing.generations import SITES, Generation, GenerationWriter, link_or_copy
from docbot.indexing.manifest import Manifest


def sections_file(data_dir: Path, site: str) -> Path:
    """Where a data dir from before generations kept the site's section texts."""
    return Path(data_dir) / SITES / check_site_name(site) / "sections.jsonl"


def has_crawl(settings: Settings, site: str) -> bool:
    """The site was crawled into the layout before generations (its texts and its published map are there)."""
    return sections_file(settings.data_dir, site).is_file() and map_path(settings.anchor_maps, site).is_file()


def read_manifest(data_dir: Path, site: str) -> Manifest | None:
    """The manifest a data dir kept before generations (``index/<site>.json``), if it has one."""
    try:
        data = json.loads((Path(data_dir) / "index" / f"{site}.json").read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return None
    return Manifest(site, data["embedding_model"], int(data["dim"]), data.get("collection") or f"docbot_{site}",
                    tuple(Chunk.from_json(c) for c in data["chunks"]))


def adopt(settings: Settings, writer: GenerationWriter) -> tuple[Generation, Manifest | None]:
    """Stage the old layout's texts and published map as the site's first generation; returns it and the old
    manifest (whose vectors the indexing copies)."""
    site = writer.generations.site
    texts_file, published = sections_file(settings.data_dir, site), map_path(settings.anchor_maps, site)
    if not published.is_file() or not texts_file.is_file():
        raise SiteNotFound(f"Site {site!r} has not been crawled into {settings.data_dir}/ — "
                           f"run `docbot crawl URL --site {site}` first")
    staged = writer.stage()
    link_or_copy(texts_file, staged.sections_file)
    AnchorMap.load(published).save(staged.map_file)
    return staged, read_manifest(settings.data_dir, site)


def remove(settings: Settings, site: str) -> None:
    """The files of the layout before generations, once their data lives in a generation."""
    data_dir = Path(settings.data_dir)
    (data_dir / "index" / f"{site}.json").unlink(missing_ok=True)
    sections_file(data_dir, site).unlink(missing_ok=True)
    shutil.rmtree(data_dir / "bm25" / site, ignore_errors=True)
