"""The segment folders chromadb leaves behind: removed once no collection in the store owns them.

A persistent Chroma store (``<data-dir>/chroma/``) keeps each collection's HNSW vectors in a folder named by its
vector segment's id, beside ``chroma.sqlite3`` (the store's catalogue). chromadb 1.x deletes a collection's rows
from the catalogue but never its folder (chroma-core/chroma#5259: the removal is left to a garbage collector
the embedded store does not run), so every generation that embeds leaves one folder behind when it is retired.

A folder is removed only when the catalogue names no segment with its id. The folders are listed before the
catalogue is read: a collection's segment rows are written when it is created, before its folder exists, so a
collection being created meanwhile (another site's writer) is in the catalogue by then and keeps its folder.
When the catalogue cannot be read as expected, nothing is removed.
"""

from __future__ import annotations

import logging
import re
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

log = logging.getLogger(__name__)

CATALOGUE = "chroma.sqlite3"
SEGMENT_FOLDER = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def sweep_segments(store: Path) -> list[Path]:
    """Remove the segment folders in ``store`` that belong to no collection; returns the folders removed."""
    try:
        folders = [p for p in Path(store).iterdir() if SEGMENT_FOLDER.fullmatch(p.name) and p.is_dir()]
    except OSError:  # no store yet, or one this process may not read
        return []
    if not folders:
        return []
    owned = segment_ids(Path(store) / CATALOGUE)
    if owned is None:
        return []
    removed = []
    for folder in folders:
        if folder.name not in owned:
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    if removed:
        log.info("removed %d segment folders of deleted collections from %s", len(removed), store)
    return removed


def segment_ids(catalogue: Path) -> set[str] | None:
    """The id of every segment the store's catalogue names; None when it cannot be read (then nothing is swept)."""
    if not catalogue.is_file():
        return None
    try:
        with closing(sqlite3.connect(f"{catalogue.resolve().as_uri()}?mode=ro", uri=True, timeout=30)) as db:
            return {str(row[0]).lower() for row in db.execute("SELECT id FROM segments")}
    except sqlite3.Error as exc:  # a locked, damaged or differently shaped catalogue: keep every folder
        log.warning("could not read the segments of %s (%s); segment folders of deleted collections are kept",
                    catalogue, exc)
        return None
