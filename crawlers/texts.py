"""The files a crawl keeps beside the anchor map: each section's text, what pages say about the sections they link
to, and each page's visible text (what text directives are checked against).

JSON Lines, one object a line, written atomically, at whatever path the caller names (docbot keeps them in its
generations).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import orjson

from crawlers.errors import AnchorMapError
from crawlers.model import Mention, SectionText, _dumps, write_atomic
from crawlers.page_text import PageText


def read_section_texts(path: str | os.PathLike[str], site: str) -> list[SectionText]:
    """The section texts in ``path`` (a ``sections.jsonl``); raises :class:`AnchorMapError` with a next step."""
    path = Path(path)
    try:
        raw = path.read_bytes()  # orjson reads UTF-8 bytes directly: twice as fast as decoded lines
    except FileNotFoundError:
        raise AnchorMapError(
            f"No section texts for site {site!r} in {path.parent} — run `docbot crawl URL --site {site}`"
        ) from None
    from_json, loads = SectionText.from_json, orjson.loads
    return [from_json(loads(line)) for line in raw.splitlines() if line.strip()]


def read_page_texts(path: str | os.PathLike[str], site: str) -> list[PageText]:
    """The visible texts of a site's pages in ``path`` (a ``pages.jsonl``); raises :class:`AnchorMapError`."""
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise AnchorMapError(f"No page texts for site {site!r} in {Path(path).parent} — "
                             f"run `docbot crawl URL --site {site}`") from None
    return [PageText.from_json(orjson.loads(line)) for line in raw.splitlines() if line.strip()]


def write_page_texts(path: str | os.PathLike[str], pages: Iterable[PageText]) -> None:
    write_atomic(Path(path), "".join(_dumps(p.to_json()) + "\n" for p in pages))


def write_section_texts(path: str | os.PathLike[str], texts: Iterable[SectionText]) -> None:
    """Write ``texts`` to ``path`` atomically, one JSON object per line."""
    write_atomic(Path(path), "".join(_dumps(t.to_json()) + "\n" for t in texts))


def read_mentions(path: str | os.PathLike[str]) -> list[Mention] | None:
    """The mentions in ``path``; None when there is no such file (a crawl that kept none)."""
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        return None
    return [Mention(*orjson.loads(line)) for line in raw.splitlines() if line.strip()]


def write_mentions(path: str | os.PathLike[str], mentions: Iterable[Mention]) -> None:
    write_atomic(Path(path), "".join(_dumps(m.to_json()) + "\n" for m in mentions))
