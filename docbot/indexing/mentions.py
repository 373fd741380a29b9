"""What other pages say about each section, as a lexical field of its own: a BM25 over their words.

The crawl keeps every link's words, the sentence around them and the index entries they stand under
(:class:`crawlers.model.Mention`). Here they are gathered by the section each one lands in (the deep URL its
chunks carry), each distinct text once, and indexed with the same tokenizer as the sections' own text. A
question in the words other pages use for a section ("avoid a query per row" for ``select_related``) then
finds it even when its own text says it otherwise. Self-contained: built from the mentions, the sections and
the anchor map, saved to and loaded from a directory the caller gives.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from crawlers.model import AnchorMap, Mention, SectionText
from docbot.indexing.bm25 import Lexical, replace_dir
from docbot.indexing.chunk import Chunk, resolve_anchors

MAX_TEXTS = 60  # distinct mention texts kept per section (a much-linked API entry has hundreds, mostly alike)
FORMAT = 1
META_FILE = "mentions.json"


def _deep(url: str, anchor: str | None) -> str:
    return f"{url}#{anchor}" if anchor else url


def gather(mentions: Iterable[Mention], sections: Sequence[SectionText], amap: AnchorMap,
           chunks: Sequence[Chunk]) -> tuple[dict[str, list[str]], dict[str, int]]:
    """(deep URL → the distinct texts that mention it, deep URL → the number of other pages that link to it).

    A mention lands where a link to its section lands in the index: the section's own chunks, its ancestor's
    when it has no valid anchor, and the page's first section when the section has no chunk (a title over
    subsections) or the link names no fragment.
    """
    indexed = {c.deep_url for c in chunks}
    first: dict[str, str] = {}
    for c in chunks:
        first.setdefault(c.url, c.deep_url)
    where: dict[tuple[str, str | None], str] = {}
    for section, anchor in zip(sections, resolve_anchors(sections, amap)):
        url = amap.canonical(section.url)
        if url is not None and section.anchor is not None:
            where.setdefault((url, section.anchor), _deep(url, anchor))
    texts: dict[str, dict[str, None]] = {}
    sources: dict[str, set[str]] = {}
    for m in mentions:
        deep = where.get((m.target, m.section)) if m.section else None
        if deep is None or deep not in indexed:
            deep = first.get(m.target)
        if deep is None:
            continue
        said = m.context if m.text in m.context else f"{m.text}. {m.context}".strip(". ")
        bucket = texts.setdefault(deep, {})
        if len(bucket) < MAX_TEXTS:
            bucket.setdefault(said, None)
        if m.source != m.target:
            sources.setdefault(deep, set()).add(m.source)
    return {k: list(v) for k, v in texts.items()}, {k: len(v) for k, v in sources.items()}


class MentionIndex:
    """BM25 over the mention texts of one site's sections, and how many other pages link to each."""

    def __init__(self, lexical: Lexical, inlinks: dict[str, int]) -> None:
        self.lexical = lexical
        self.inlinks = inlinks

    @classmethod
    def build(cls, mentions: Iterable[Mention], sections: Sequence[SectionText], amap: AnchorMap,
              chunks: Sequence[Chunk]) -> MentionIndex:
        texts, inlinks = gather(mentions, sections, amap, chunks)
        ids = sorted(texts)
        docs = ["\n".join(texts[k]) for k in ids]
        digest = hashlib.sha256("\0".join(f"{k}\n{d}" for k, d in zip(ids, docs)).encode()).hexdigest()
        return cls(Lexical.build(ids, docs, digest), inlinks)

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        """(deep URL, BM25 score of what other pages say about it), best first."""
        return self.lexical.search(query, k)

    def scores(self, query: str, keys: Sequence[str]) -> list[float]:
        """The BM25 score of each of ``keys`` (deep URLs) for ``query``; 0 for a section nobody mentions."""
        return self.lexical.scores_of(query, keys)

    def save(self, directory: Path) -> None:
        """Write to a sibling temp dir, then swap it in (as :meth:`Lexical.save` does)."""
        def write(tmp: Path) -> None:
            self.lexical.save(tmp / "bm25")
            (tmp / META_FILE).write_text(json.dumps({"format": FORMAT, "inlinks": self.inlinks}), encoding="utf-8")

        replace_dir(directory, write)

    @staticmethod
    def saved(directory: Path) -> bool:
        """Whether an index was saved in ``directory`` (by this docbot or another)."""
        return (directory / META_FILE).is_file()

    @classmethod
    def load(cls, directory: Path) -> MentionIndex | None:
        """The saved index, or None when there is none (a site crawled before mentions were kept)."""
        try:
            meta = json.loads((directory / META_FILE).read_text(encoding="utf-8"))
        except (FileNotFoundError, json.JSONDecodeError):
            return None
        lexical = Lexical.load(directory / "bm25")
        if lexical is None or meta.get("format") != FORMAT:
            return None
        return cls(lexical, {str(k): int(v) for k, v in meta.get("inlinks", {}).items()})
