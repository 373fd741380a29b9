"""Site names and the files named after them: a site's name is a plain file name under anchor_maps/, never a path,
and not every ``*.json`` there is a site's map.

:func:`check_site_name` guards every ``--site`` and ``[[sites]] name``; :func:`map_sites` lists the sites that
have a map, skipping with a warning the files that are not one (``notes copy.json``, ``README.json``) so one
stray file stops no command.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

from crawlers.errors import BadSiteName

log = logging.getLogger(__name__)

SITE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")  # a file name under anchor_maps/, never a path
_SNIFF_BYTES = 512  # AnchorMap.save writes format_version first: a map names it in its first line
_skipped: set[Path] = set()  # files already warned about (site_names() and load_maps() may both look)


def check_site_name(site: str) -> str:
    """``site`` when it is a plain name; raises :class:`BadSiteName` for anything that could be a path."""
    if not SITE_NAME.fullmatch(site) or ".." in site:
        raise BadSiteName(f"Site name {site!r} is not allowed: use letters, digits, '.', '_' and '-' "
                          "(up to 64, starting with a letter or digit), e.g. --site flask")
    return site


def map_sites(anchor_maps_dir: str | os.PathLike[str]) -> list[str]:
    """The sites with a map in the directory, sorted. A file that is not a site's map is skipped with a warning:
    one whose name is no site name (``notes copy.json``), or without ``format_version`` at its start
    (``README.json``). A map cut short still names it: loading it then says the map is corrupt."""
    d = Path(anchor_maps_dir)
    sites = []
    for path in sorted(d.glob("*.json")) if d.is_dir() else ():
        why = _not_a_map(path)
        if why is None:
            sites.append(path.stem)
        elif path not in _skipped:
            _skipped.add(path)
            log.warning("%s is not an anchor map (%s); skipped", path, why)
    return sites


def _not_a_map(path: Path) -> str | None:
    if not SITE_NAME.fullmatch(path.stem) or ".." in path.stem:
        return "its name is no site name: letters, digits, '.', '_' and '-'"
    try:
        with path.open("rb") as fh:
            head = fh.read(_SNIFF_BYTES)
    except IsADirectoryError:
        return "a folder"
    return None if b'"format_version"' in head else "no format_version"
