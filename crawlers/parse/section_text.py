"""A section's text as the walk gathers it, and the ExtractedSection it becomes.

:class:`OpenSection` collects a section's blocks (paragraphs, list items, fenced code) while the walk of
:mod:`crawlers.parse.sections` is inside it, and renders them into clean text; a section that is mostly links (a
table of contents) keeps only its prose. :func:`finish_sections` turns the opened sections into
:class:`ExtractedSection` values, levels counted from the page's top heading.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from lxml import etree

from crawlers.parse.html import LINK_LIST_MIN_CHARS, LINK_LIST_SHARE

MAX_SECTION_CHARS = 200_000  # clean text kept per section
LINK_LIST_PROSE_WORDS = 5  # what a section of links keeps: its sentences of prose, not its links
CELL = "\x1f"  # where a table cell starts in a row read as one line (crawlers.parse.table_rows)
CELL_SEPARATOR = " — "  # what separates a row's cells in its line: "crontab() — Execute every minute."


@dataclass(frozen=True, slots=True)
class ExtractedSection:
    """A heading or API/definition entry, in document order.

    ``anchor``: an id present in the page, or None; ``path``: titles from the
    page title down to this section (inclusive); ``text``: clean text of the
    section's own content up to the next section (code blocks fenced with ```).
    ``aliases``: other ids that land on the same place (label spans, wrappers);
    ``inner_ids``: ids of elements inside the section's own content.
    """

    anchor: str | None
    title: str
    level: int
    path: tuple[str, ...]
    kind: str  # "heading" | "api" | "anchor" (an anchor the page links to: crawlers.parse.anchor_sections)
    text: str
    aliases: tuple[str, ...] = ()
    inner_ids: tuple[str, ...] = ()


@dataclass(slots=True)
class OpenSection:
    """A section being filled by the walk."""

    anchor: str | None
    aliases: list[str]
    title: str
    raw_level: int
    kind: str
    path: tuple[str, ...]
    short: str = ""
    dl: etree._Element | None = None
    opener: etree._Element | None = None  # a linked block element whose end ends the section (crawlers.parse.anchor_sections)
    before: OpenSection | None = None  # the section in effect where an anchor section starts: too short, it rejoins it
    at_start: bool = False  # an anchor section that starts where its heading's section starts: it may be that one
    into: OpenSection | None = None  # the section an anchor section's text and ids went back to: it is no section
    preamble: bool = False  # the text before any section: no section when one opens, nor where an anchor lands
    sig: bool = False
    blocks: list[tuple[str, bool]] = field(default_factory=list)
    block_links: list[int] = field(default_factory=list)  # link characters of each block
    inline: list[str] = field(default_factory=list)
    inner: list[str] = field(default_factory=list)
    prefix: str = ""
    chars: int = 0
    linked: int = 0  # characters of link text (whitespace not counted): a list of links is no answer
    counted: int = 0  # of them, in blocks already added

    def flush(self) -> None:
        if not self.inline:
            return
        joined = "".join(self.inline)
        if CELL in joined:  # the row's cells with text, each on one line (str.split() takes CELL for a space)
            text = CELL_SEPARATOR.join(cell for cell in (" ".join(part.split()) for part in joined.split(CELL)) if cell)
        else:
            text = " ".join(joined.split())
        self.inline.clear()
        if text:
            self.add(self.prefix + text, bool(self.prefix))
            self.prefix = ""

    def add(self, block: str, is_item: bool = False) -> None:
        if self.chars < MAX_SECTION_CHARS:
            self.blocks.append((block, is_item))
            self.block_links.append(self.linked - self.counted)
            self.chars += len(block)
        self.counted = self.linked

    def render(self) -> str:
        blocks = self.blocks
        if _is_link_list(self):  # a table of contents keeps only the prose that introduces it
            blocks = [(block, False) for (block, item), linked in zip(self.blocks, self.block_links)
                      if not item and len(block.split()) >= LINK_LIST_PROSE_WORDS
                      and linked < LINK_LIST_SHARE * len("".join(block.split()))]
        out: list[str] = []
        prev_item = False
        for block, is_item in blocks:
            if out:
                out.append("\n" if is_item and prev_item else "\n\n")
            out.append(block)
            prev_item = is_item
        return "".join(out)[:MAX_SECTION_CHARS]


def finish_sections(opened: list[OpenSection], preamble: OpenSection, page_title: str) -> tuple[tuple[ExtractedSection, ...], str, int]:
    if not opened:
        if not preamble.blocks:
            return (), page_title, 0
        opened = [preamble]
    headings = [s.raw_level for s in opened if s.kind == "heading"]
    offset = min(headings) - 1 if headings else 0
    taken: set[str] = set()
    for s in opened:
        if s.anchor:
            taken.add(s.anchor)
        taken.update(s.aliases)
    out = tuple(
        ExtractedSection(
            anchor=s.anchor,
            title=s.title,
            level=max(1, s.raw_level - offset),
            path=s.path,
            kind=s.kind,
            text=s.render(),
            aliases=tuple(s.aliases),
            inner_ids=_unique(i for i in s.inner if i not in taken),
        )
        for s in opened
    )
    api = sum(1 for s in opened if s.kind == "api" and s.sig)
    return out, page_title, api


def _is_link_list(section: OpenSection) -> bool:
    """Whether the section's text is mostly link text (a table of contents, a list of pages): it answers nothing
    but the prose that introduces it; its anchor stays valid (see :data:`LINK_LIST_SHARE`)."""
    chars = sum(len("".join(block.split())) for block, _ in section.blocks)
    return chars >= LINK_LIST_MIN_CHARS and section.linked >= LINK_LIST_SHARE * chars


def _unique(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))
