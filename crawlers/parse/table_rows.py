"""Which table rows the section walk reads as one line, a record (:mod:`crawlers.parse.sections`).

A row read as one line has its cells joined by :data:`crawlers.parse.section_text.CELL_SEPARATOR` and is a list
item: an answer quotes it whole and never runs it into the next row. Two kinds of row are records:

- a short row whose cells hold paragraphs (or other blocks): Sphinx writes each cell's text as a paragraph, and
  read as paragraphs a row's "Execute every minute (!) at Sundays." lost the ``crontab(day_of_week='sunday')`` it
  describes;
- a short row of bare cells in a table with a header row (Markdown's tables, Javadoc's summaries): read as a line
  of words, "raw_html built-in Restore raw html from htmlStash…" ran its cells together and, with no sentence's end,
  into the next row's. A table without a header row is a layout (GTK-Doc's "GArray * g_array_new ()"): its bare
  cells stay one line joined by spaces, as they read.

A longer row (a page laid out in cells) or one holding code, a heading or a table keeps its blocks.
"""

from __future__ import annotations

from lxml import etree

from crawlers.parse.html import BLOCKS, HEADINGS, text_of

ROW_CHARS = 600  # a longer row (whitespace not counted) is a layout table's, not a record
_NOT_IN_A_LINE = ("pre", "table", *HEADINGS)
_BREAKS = BLOCKS | {"li", "dt"}
_CELLS = ("td", "th")


def one_line(row: etree._Element) -> bool:
    """Whether a table row is read as one line of text, a record (see the module's docstring)."""
    blocks = False
    for node in row.iterdescendants():
        tag = node.tag
        if tag in _NOT_IN_A_LINE:
            return False
        blocks = blocks or tag in _BREAKS
    return (blocks or _data_row(row)) and len("".join(text_of(row).split())) <= ROW_CHARS


def _cells(row: etree._Element) -> list[etree._Element]:
    return [c for c in row if c.tag in _CELLS]


def _data_row(row: etree._Element) -> bool:
    """A row of two or more cells with text, one a data cell (``td``), in a table whose columns are named by a
    header row: a row of ``th`` cells only, in the table's head or first."""
    cells = [c for c in _cells(row) if text_of(c).strip()]
    if len(cells) < 2 or all(c.tag == "th" for c in cells):
        return False
    table = next(row.iterancestors("table"), None)
    first = _first_row(table) if table is not None else None
    if first is None or first is row:
        return False
    named = _cells(first)
    return bool(named) and all(c.tag == "th" for c in named)


def _first_row(table: etree._Element) -> etree._Element | None:
    """The table's first row, its head's if it has one: found among the table's first children, so that asking it
    for every row of a long table stays linear."""
    for child in table:
        if child.tag == "tr":
            return child
        if child.tag in ("thead", "tbody"):
            return next((r for r in child if r.tag == "tr"), None)
    return None
