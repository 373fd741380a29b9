"""The files a crawl keeps beside the anchor map: each section's text, what pages say about the sections they link
to, and each page's visible text (what text directives are checked against).

JSON Lines, one object a line, written atomically. The ``(data_dir, site)`` functions are the crawler's own layout
(``<data-dir>/sites/<site>/``); the path functions read and write anywhere (docbot keeps them in generations).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import orjson

from crawlers.errors import AnchorMapError
from crawlers.model import Mention, SectionText, _dumps, write_atomic
from crawlers.page_text import PageText
from crawlers.sitenames import check_site_name


def sections_path(data_dir: str | os.PathLike[str], site: str) -> Path:
    return Path(data_dir) / "sites" / check_site_name(site) / "sections.jsonl"


def load_section_texts(data_dir: str | os.PathLike[str], site: str) -> list[SectionText]:
    return read_section_texts(sections_path(data_dir, site), site)


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


def page_texts_path(data_dir: str | os.PathLike[str], site: str) -> Path:
    return Path(data_dir) / "sites" / check_site_name(site) / "pages.jsonl"


def load_page_texts(data_dir: str | os.PathLike[str], site: str) -> list[PageText]:
    return read_page_texts(page_texts_path(data_dir, site), site)


def save_page_texts(data_dir: str | os.PathLike[str], site: str, pages: Iterable[PageText]) -> None:
    write_page_texts(page_texts_path(data_dir, site), pages)


def save_section_texts(data_dir: str | os.PathLike[str], site: str, texts: Iterable[SectionText]) -> None:
    write_section_texts(sections_path(data_dir, site), texts)


def write_section_texts(path: str | os.PathLike[str], texts: Iterable[SectionText]) -> None:
    """Write ``texts`` to ``path`` atomically, one JSON object per line."""
    write_atomic(Path(path), "".join(_dumps(t.to_json()) + "\n" for t in texts))


def mentions_path(data_dir: str | os.PathLike[str], site: str) -> Path:
    """One JSON array a line (source, target, fragment, section, text, context), by source page."""
    return Path(data_dir) / "sites" / check_site_name(site) / "mentions.jsonl"


def load_mentions(data_dir: str | os.PathLike[str], site: str) -> list[Mention] | None:
    """The site's mentions as the last crawl saved them; None when that crawl saved none (an older crawl)."""
    return read_mentions(mentions_path(data_dir, site))


def save_mentions(data_dir: str | os.PathLike[str], site: str, mentions: Iterable[Mention]) -> None:
    write_mentions(mentions_path(data_dir, site), mentions)


def read_mentions(path: str | os.PathLike[str]) -> list[Mention] | None:
    """The mentions in ``path``; None when there is no such file (a crawl that kept none)."""
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        return None
    return [Mention(*orjson.loads(line)) for line in raw.splitlines() if line.strip()]


def write_mentions(path: str | os.PathLike[str], mentions: Iterable[Mention]) -> None:
    write_atomic(Path(path), "".join(_dumps(m.to_json()) + "\n" for m in mentions))
