"""Parse one HTML page (once, with lxml) into anchors, links, title and section tree.

Pure function: bytes in, plain data out. The ReferenceValidator's live check
reuses :func:`extract_anchors` so crawl and check never disagree about what
an anchor is.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ExtractedSection:
    """A heading or API/definition entry, in document order.

    ``anchor``: an id present in the page, or None; ``path``: titles from the
    page title down to this section (inclusive); ``text``: clean text of the
    section's own content up to the next section (code blocks fenced with ```).
    """

    anchor: str | None
    title: str
    level: int
    path: tuple[str, ...]
    kind: str  # "heading" | "api"
    text: str


@dataclass(frozen=True, slots=True)
class Extracted:
    title: str
    anchors: frozenset[str]
    sections: tuple[ExtractedSection, ...]
    links: tuple[str, ...]  # absolute URLs as found (fragment kept), in document order, deduplicated
    source_type_hint: str | None  # e.g. "API reference" when the page is mostly API entries
    canonical: str | None = None  # <link rel=canonical>, absolute


def extract(html: bytes | str, url: str, encoding: str | None = None) -> Extracted:
    """Parse a page fetched from ``url``. Never raises on broken HTML; returns empty parts instead."""
    raise NotImplementedError  # implemented by the crawler issue


def extract_anchors(html: bytes | str, encoding: str | None = None) -> frozenset[str]:
    """Every fragment target in the page: any element's ``id`` and ``<a name>``."""
    raise NotImplementedError
