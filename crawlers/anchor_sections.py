"""Sections that start at an anchor the page links to, heading or not, for :mod:`crawlers.sections`.

Some reference pages mark each entry with a named anchor before a block, not with a heading
(SQLite's ``<a name="abs"></a><dt>abs(X)</dt><dd>…``, old Doxygen's ``<a name="x"></a><div class="memitem">``),
and list the entries at the top with ``href="#x"`` links. The page's own links say where its sections start:
an id or ``<a name>`` that a link of the page points at starts a section when it sits between blocks (an empty
marker, or a block element with that id) outside an API entry, and the section runs to the next section start (such an anchor, a
heading, an API entry), the end of the block that holds the id (a headless ``<section id>``) or the marker (a
``<dl>`` of entries), or the end of the API entry list it is in. A section with less than
:data:`MIN_ANCHOR_SECTION_CHARS` of text is no section: its text and ids stay where they were (a marker just
before a heading, a footnote). Links from other pages are not used: the page is parsed once, alone, and its
sections must not depend on pages fetched after it (nor change under a ``304 Not Modified``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from lxml import etree

from crawlers.html import BLOCKS, has_text, text_of
from crawlers.section_text import OpenSection

# Measured on SQLite's pages (sqlite3-doc): its shortest real entries are its math functions, 36 to 90 characters
# ("pi()  Return an approximation for π."), each the answer to a question; below 30 are a page's navigation
# ("[Contents][Index]", 17), a figure's caption (25), "No longer in use." (19) and, most of all, markers with no
# text of their own (before a heading, or where a heading's section already starts).
MIN_ANCHOR_SECTION_CHARS = 30
MAX_ANCHOR_TITLE = 80
MAX_CONTAINER_CLIMB = 5  # parents a marker may open (a <p> in an <li> in a <ul>…)
ANCHOR = "anchor"  # the kind of such a section (beside "heading" and "api")
# Elements that start a section by their own id (a marker without text starts one whatever its tag).
ANCHOR_BLOCKS = BLOCKS | {"dt", "li", "pre"}


def linked_here(root: etree._Element, resolve: Callable[[str], str | None], here: Iterable[str],
                anchors: frozenset[str]) -> dict[str, str]:
    """Every anchor of the page that one of its own links points at → the text of the first such link.

    A permalink (a link of glyphs alone, like Sphinx's ``¶`` beside each parameter, or a link inside the element it
    points at) is written by the generator on every such element: it says nothing about where a section starts."""
    pages = set(here)
    out: dict[str, str] = {}
    for a in root.iter("a"):
        href = a.get("href")
        if not href or "#" not in href:
            continue
        target = resolve(href)
        if target is None:
            continue
        page, _, frag = target.partition("#")
        if page in pages and frag in anchors and frag not in out and has_text(a) and not _inside(a, frag):
            out[frag] = " ".join(text_of(a).split())
    return out


def _inside(a: etree._Element, ident: str) -> bool:
    """Whether the link ``a`` lies in the element with id (or name) ``ident``."""
    return any(ident in anchor_ids(el) for el in a.iterancestors()) or ident in anchor_ids(a)


def anchor_ids(el: etree._Element) -> list[str]:
    """The ids an element lands on: its ``id`` and, for an ``<a>``, its ``name``."""
    ids = [el.get("id") or "", el.get("name") or "" if el.tag == "a" else ""]
    return [i for i in dict.fromkeys(ids) if i]


def starts_section(el: etree._Element, cur: OpenSection, linked: Mapping[str, str]) -> str | None:
    """The linked id with which ``el`` starts a section, or None (not linked, or inside a paragraph)."""
    if not linked or cur.kind == "api":
        return None  # inside an API entry a linked parameter or member is a part of the entry, as its headings are
    ident = next((i for i in anchor_ids(el) if i in linked), None)
    if ident is None or (cur.anchor is not None and ident == cur.anchor):
        return None
    if any(not part.isspace() for part in cur.inline):
        return None  # a target in the middle of a sentence (a footnote reference) starts nothing
    if el.tag not in ANCHOR_BLOCKS and has_text(el):
        return None
    return ident


def _container(marker: etree._Element, main: etree._Element) -> etree._Element:
    """The element a marker's section ends with: its parent (SQLite's last ``<a name>`` of a ``<dl>`` ends with the
    list, not with the page's footer), or the parent's parent when the marker opens the parent (a ``<p>`` that
    starts with an ``<a name>`` is the first paragraph of the section, not all of it)."""
    node = marker
    for _ in range(MAX_CONTAINER_CLIMB):
        parent = node.getparent()
        if parent is None or node is main:
            return node
        if (parent.text or "").strip() or any(has_text(sib) or (sib.tail or "").strip()
                                               for sib in node.itersiblings(preceding=True)):
            return parent
        node = parent
    return node


def open_anchor(el: etree._Element, ident: str, host: OpenSection, before: OpenSection,
                main: etree._Element) -> OpenSection:
    """The section ``el`` starts under ``host`` where ``before`` was in effect (the section before it, or
    ``host``); its title and path are set when it ends (:func:`close_anchor`)."""
    sec = OpenSection(ident, [i for i in anchor_ids(el) if i != ident], "", host.raw_level + 1, ANCHOR, host.path,
                      opener=el if el.tag in ANCHOR_BLOCKS else _container(el, main), before=before)
    sec.prefix, before.prefix = before.prefix, ""  # a list item's marker goes with its text
    return sec


def close_anchor(sec: OpenSection, opened: list[OpenSection], linked: Mapping[str, str],
                 opens: dict[etree._Element, int] | None, whole: bool) -> bool:
    """Title an anchor section that ends; one too short is no section: its text and ids go back to the section
    in effect before it (a marker before a heading, a footnote), as if nothing had started there. Nor is one that
    took all of its heading's text (``whole``: it ends with its heading's section, which has no text before it):
    it starts where the heading's section starts (Texinfo's index entries just below a heading), so it is that
    section. True when it may still be: one that ended before its heading's section did (:func:`rejoin`)."""
    sec.flush()
    back = sec.before
    chars = sum(len(block) for block, _ in sec.blocks)
    if back is not None and (chars < MIN_ANCHOR_SECTION_CHARS or (whole and _starts_heading(sec))):
        if _fold(sec, back, opened, opens):
            return False
    sec.title = anchor_title(sec, linked.get(sec.anchor or "", ""))
    sec.short = sec.title
    sec.path = sec.path + (sec.title,)
    return _starts_heading(sec)


def rejoin(sec: OpenSection, opened: list[OpenSection], opens: dict[etree._Element, int] | None) -> None:
    """Give an anchor section that ended early (SQLAlchemy's ``<h2>asyncmy</h2><span id="module-…"></span><p>…``,
    then a wrapper ``<section id>`` of the next heading) back to its heading when the heading's section ends with no
    other text: it was all of it."""
    if sec.before is not None and _starts_heading(sec):
        _fold(sec, sec.before, opened, opens)


def _starts_heading(sec: OpenSection) -> bool:
    """Whether ``sec`` starts where a heading's (or entry's) section starts: nothing of that section before it."""
    back = sec.before
    return back is not None and back.kind != ANCHOR and not back.blocks


def _fold(sec: OpenSection, back: OpenSection, opened: list[OpenSection],
          opens: dict[etree._Element, int] | None) -> bool:
    """Put ``sec``'s text and ids back into ``back``, as if it had never started; False when a section started
    after it (it can no longer be undone)."""
    if not opened or opened[-1] is not sec:
        return False
    opened.pop()
    if opens:
        el, index = next(reversed(opens.items()))  # the element that opened it: nothing opened since
        if index == len(opened):
            del opens[el]
    back.blocks.extend(sec.blocks)
    back.block_links.extend(sec.block_links)
    back.chars += sec.chars
    back.linked += sec.linked
    back.counted = back.linked
    back.inner.extend([sec.anchor or "", *sec.aliases, *sec.inner])
    back.prefix = back.prefix or sec.prefix
    return True


def anchor_title(sec: OpenSection, link: str) -> str:
    """The section's first line (a term, a signature, a caption), cut at a word past :data:`MAX_ANCHOR_TITLE`;
    the words the page links to it with only when it has no line of text: those are as often "above" or "see
    here" as a name (git's "see <a href="#configaccessmethod">above</a>")."""
    first = next((line.strip() for block, _ in sec.blocks for line in block.splitlines()
                  if line.strip() and not line.startswith("```")), "")
    first = first.removeprefix("- ").strip()
    if len(first) <= MAX_ANCHOR_TITLE:
        return first or link[:MAX_ANCHOR_TITLE]
    return first[:MAX_ANCHOR_TITLE].rsplit(" ", 1)[0] + "…"
