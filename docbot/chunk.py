"""Section-aware chunks: one per section, long sections split at paragraph or code boundaries."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Chunk:
    """A retrievable piece of a section that is already a correct deep link.

    ``anchor`` exists in the anchor map for ``url`` (or is None: the page);
    ``deep_url`` is ``url#anchor``; ``path`` runs from page title to section
    title; ``id`` is stable: derived from site + page + anchor + part.
    """

    id: str
    site: str
    url: str
    anchor: str | None
    deep_url: str
    title: str
    path: tuple[str, ...]
    level: int
    source_type: str
    text: str
    content_hash: str
    part: int = 0
    kind: str = "heading"

    @property
    def path_label(self) -> str:
        return " › ".join(self.path)
