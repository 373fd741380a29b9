"""Section-aware chunks: one per section, long sections split at paragraph or code boundaries.

Pure functions over :class:`crawlers.model.SectionText` and the anchor map.

Rules:

- One chunk per section. A section longer than the token budget is split at
  paragraph and fenced-code-block boundaries, never inside a code block; one
  short trailing paragraph of the previous part is repeated as overlap.
- A single code block longer than ``CODE_SPLIT_FACTOR`` × budget is split at
  blank lines inside it (each piece re-fenced); a shorter one stays whole even
  if it exceeds the budget. A list or table over budget is split between its
  lines (an item, a row), each kept on its own line; a single prose paragraph
  (or line) over budget is split at sentence ends, then at words.
- The anchor is the section's own when the anchor map has it for that page;
  otherwise the nearest ancestor's (previous section on the page with a lower
  level); otherwise the page itself (``anchor=None``, ``deep_url=url``).
- A section with no text whose next section on the page is a descendant is
  skipped: its title lives on in its children's paths. A section with no text
  and no children keeps a title-only chunk (an API entry is findable by name).
- The embedded text is the parent path as a header line, a blank line, then
  the text, so every ancestor title is searchable.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from crawlers.model import AnchorMap, SectionText, SourceType
from docbot.references.links import format_url

DEFAULT_BUDGET = 350  # estimated tokens per chunk
DEFAULT_OVERLAP = 50  # at most this many tokens of the previous part are repeated
CODE_SPLIT_FACTOR = 4  # code blocks longer than this × budget are split at blank lines
TOKENS_PER_WORD = 1.3
PATH_SEPARATOR = " › "
_SPACE = re.compile(r"\s")

_FENCE = re.compile(r"^\s*(```|~~~)")
FENCED_BLOCK = re.compile(r"^\s*(```|~~~).*?^\s*\1\s*$", re.S | re.M)  # a whole fenced code block
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`\"'(])")


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
        return PATH_SEPARATOR.join(self.path)

    @property
    def embed_text(self) -> str:
        """The text that is embedded and BM25-indexed: parent path header, blank line, text."""
        return embedding_text(self.path, self.text)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id, "site": self.site, "url": self.url, "anchor": self.anchor,
            "deep_url": self.deep_url, "title": self.title, "path": list(self.path),
            "level": self.level, "source_type": self.source_type, "text": self.text,
            "content_hash": self.content_hash, "part": self.part, "kind": self.kind,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Chunk:
        return cls(
            id=data["id"], site=data["site"], url=data["url"], anchor=data.get("anchor"),
            deep_url=data["deep_url"], title=data.get("title", ""), path=tuple(data.get("path", ())),
            level=int(data.get("level", 1)), source_type=data.get("source_type", SourceType.OTHER),
            text=data.get("text", ""), content_hash=data["content_hash"],
            part=int(data.get("part", 0)), kind=data.get("kind", "heading"),
        )



def deep_url(url: str, anchor: str | None) -> str:
    """``url#anchor``; an anchor with whitespace (a route such as Swagger UI's ``#/Session (experimental)/Session``)
    encoded as the ReferenceValidator writes it, so the link is one it keeps (other anchors as they always were)."""
    if not anchor:
        return url
    return format_url(url, anchor) if _SPACE.search(anchor) else f"{url}#{anchor}"

def estimate_tokens(text: str) -> int:
    """Tokenizer-free token estimate: words × 1.3."""
    return int(len(text.split()) * TOKENS_PER_WORD + 0.5)


def embedding_text(path: Sequence[str], text: str) -> str:
    header = PATH_SEPARATOR.join(p for p in path if p)
    return f"{header}\n\n{text}".strip() if text.strip() else header


def chunk_id(site: str, url: str, anchor: str | None, part: int) -> str:
    """Stable id: short sha1 of site|url|anchor|part."""
    return hashlib.sha1(f"{site}|{url}|{anchor or ''}|{part}".encode()).hexdigest()[:20]


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def split_blocks(text: str) -> list[str]:
    """Paragraphs and fenced code blocks, in order; a code block is one block even with blank lines."""
    blocks: list[str] = []
    current: list[str] = []
    fence: str | None = None
    for line in text.splitlines():
        match = _FENCE.match(line)
        if fence is not None:
            current.append(line)
            if match and match.group(1) == fence:
                blocks.append("\n".join(current))
                current, fence = [], None
            continue
        if match:
            if current:
                blocks.append("\n".join(current))
            current, fence = [line], match.group(1)
        elif line.strip():
            current.append(line)
        elif current:
            blocks.append("\n".join(current))
            current = []
    if current:
        blocks.append("\n".join(current))  # an unclosed fence keeps the rest whole
    return [b for b in blocks if b.strip()]


def _is_code(block: str) -> bool:
    return bool(_FENCE.match(block))


def _split_code(block: str, budget: int) -> list[str]:
    """Split a huge fenced block at blank lines inside it, re-fencing each piece."""
    lines = block.splitlines()
    opening = lines[0]
    closing = lines[-1] if len(lines) > 1 and _FENCE.match(lines[-1]) else opening.strip()[:3]
    body = lines[1:-1] if len(lines) > 1 and _FENCE.match(lines[-1]) else lines[1:]
    groups: list[list[str]] = [[]]
    for line in body:
        groups[-1].append(line)
        if not line.strip():
            groups.append([])
    pieces: list[str] = []
    current: list[str] = []
    for group in groups:
        if current and estimate_tokens("\n".join(current + group)) > budget:
            pieces.append("\n".join([opening, *current, closing]))
            current = []
        current.extend(group)
    if any(line.strip() for line in current):
        pieces.append("\n".join([opening, *current, closing]))
    return pieces


def _split_prose(block: str, budget: int) -> list[str]:
    """Split one over-long paragraph at sentence ends, then at words."""
    units: list[str] = []
    for sentence in _SENTENCE_END.split(block):
        words = sentence.split()
        step = max(1, int(budget / TOKENS_PER_WORD))
        if estimate_tokens(sentence) <= budget:
            units.append(sentence)
        else:
            units.extend(" ".join(words[i : i + step]) for i in range(0, len(words), step))
    pieces: list[str] = []
    current = ""
    for unit in units:
        candidate = f"{current} {unit}".strip()
        if current and estimate_tokens(candidate) > budget:
            pieces.append(current)
            current = unit
        else:
            current = candidate
    if current:
        pieces.append(current)
    return pieces


def _split_lines(block: str, budget: int) -> list[str]:
    """Split an over-long block of lines (a list's items, a table's rows) between lines: split as a paragraph, the
    rows ran into one line ("… data parameters - Connection.Request — data(…) — …"), and so did answers quoting it."""
    pieces: list[str] = []
    current: list[str] = []
    for line in block.splitlines():
        if estimate_tokens(line) > budget:
            pieces.extend(["\n".join(current)] if current else [])
            pieces.extend(_split_prose(line, budget))
            current = []
        elif current and estimate_tokens("\n".join([*current, line])) > budget:
            pieces.append("\n".join(current))
            current = [line]
        else:
            current.append(line)
    if current:
        pieces.append("\n".join(current))
    return pieces


def split_text(text: str, budget: int = DEFAULT_BUDGET, overlap: int = DEFAULT_OVERLAP) -> list[str]:
    """Split ``text`` into parts of about ``budget`` tokens at block boundaries (see module doc)."""
    if estimate_tokens(text) <= budget:
        return [text.strip()] if text.strip() else [""]
    blocks: list[str] = []
    for block in split_blocks(text):
        if estimate_tokens(block) <= budget:
            blocks.append(block)
        elif _is_code(block):
            blocks.extend(_split_code(block, budget) if estimate_tokens(block) > CODE_SPLIT_FACTOR * budget else [block])
        elif "\n" in block.strip():
            blocks.extend(_split_lines(block, budget))
        else:
            blocks.extend(_split_prose(block, budget))
    parts: list[list[str]] = []
    current: list[str] = []
    for block in blocks:
        if current and estimate_tokens("\n\n".join([*current, block])) > budget:
            parts.append(current)
            tail = current[-1]
            carry = len(current) > 1 and not _is_code(tail) and estimate_tokens(tail) <= overlap
            current = [tail] if carry else []
        current.append(block)
    if current:
        parts.append(current)
    return ["\n\n".join(p) for p in parts]


def resolve_anchors(sections: Sequence[SectionText], amap: AnchorMap) -> list[str | None]:
    """Per section: its own valid anchor, else its nearest ancestor's, else None (the page)."""
    resolved: list[str | None] = []
    stack: list[tuple[int, str | None]] = []  # (level, resolved anchor) of open ancestors on this page
    page: str | None = None
    for section in sections:
        if section.url != page:
            page, stack = section.url, []
        while stack and stack[-1][0] >= section.level:
            stack.pop()
        own = section.anchor if section.anchor and amap.has_anchor(section.url, section.anchor) else None
        anchor = own if own is not None else (stack[-1][1] if stack else None)
        resolved.append(anchor)
        stack.append((section.level, anchor))
    return resolved


def _has_children(sections: Sequence[SectionText], i: int) -> bool:
    nxt = sections[i + 1] if i + 1 < len(sections) else None
    return nxt is not None and nxt.url == sections[i].url and nxt.level > sections[i].level


def chunk_sections(
    sections: Sequence[SectionText],
    amap: AnchorMap,
    budget: int = DEFAULT_BUDGET,
    overlap: int = DEFAULT_OVERLAP,
) -> list[Chunk]:
    """Chunks for one site's sections (page order, then document order); pages not in the map are skipped."""
    anchors = resolve_anchors(sections, amap)
    parts_used: dict[tuple[str, str | None], int] = {}
    chunks: list[Chunk] = []
    for i, (section, anchor) in enumerate(zip(sections, anchors)):
        url = amap.canonical(section.url)
        if url is None:
            continue
        if not section.text.strip() and _has_children(sections, i):
            continue
        path = section.path or (section.title,)
        for text in split_text(section.text, budget, overlap):
            key = (url, anchor)
            part = parts_used.get(key, 0)
            parts_used[key] = part + 1
            chunks.append(
                Chunk(
                    id=chunk_id(section.site, url, anchor, part),
                    site=section.site,
                    url=url,
                    anchor=anchor,
                    deep_url=deep_url(url, anchor),
                    title=section.title,
                    path=tuple(path),
                    level=section.level,
                    source_type=section.source_type,
                    text=text,
                    content_hash=content_hash(embedding_text(path, text)),
                    part=part,
                    kind=section.kind,
                )
            )
    return chunks
