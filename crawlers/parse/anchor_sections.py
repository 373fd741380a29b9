"""Sections that start at an anchor the page links to, heading or not, for :mod:`crawlers.parse.sections`.

Some reference pages mark each entry with a named anchor before a block, not with a heading
(SQLite's ``<a name="abs"></a><dt>abs(X)</dt><dd>…``, old Doxygen's ``<a name="x"></a><div class="memitem">``),
and list the entries at the top with ``href="#x"`` links. The page's own links say where its sections start:
an id or ``<a name>`` that a link of the page points at starts a section when it sits between blocks (an empty
marker, or a block element with that id) outside an API entry, and the section runs to the next section start (such an anchor, a
heading, an API entry), the end of the block that holds the id (a headless ``<section id>``) or the marker (a
``<dl>`` of entries), or the end of the API entry list it is in; markers that open a definition start it at the terms
it defines (:func:`_definition_markers`). A section with less than
:data:`MIN_ANCHOR_SECTION_CHARS` of text is no section: its text and ids stay where they were (a marker just
before a heading, a footnote). Nor is one that starts where its heading's section starts when the heading would
keep no text of its own (Texinfo's index markers just below a heading: a link to one lands on the heading), unless
the page lists it ahead of it, as a table of contents lists its entries (SQLite's first function, just below its
heading, is a section like the others); the later anchors under that heading still start sections.

Links from other pages (another page's text, the site's index) say the same, and the same rule applies to their
anchors (:func:`with_elsewhere`): the crawl learns them only once every page is read, so it gives each page the set
of its anchors linked from elsewhere, stores that set with the page, and splits the page again when the set changes
(:mod:`crawlers.crawl.cross_links`). Such a link lists nothing ahead of its anchor: an anchor that would take all of its
heading's text is that heading's section.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from itertools import takewhile

from lxml import etree

from crawlers.parse.api_entries import API_DL
from crawlers.parse.html import BLOCKS, has_text, text_of
from crawlers.parse.section_text import OpenSection

# Measured on SQLite's pages (sqlite3-doc): its shortest real entries are its math functions, 36 to 90 characters
# ("pi()  Return an approximation for π."), each the answer to a question; below 30 are a page's navigation
# ("[Contents][Index]", 17), a figure's caption (25), "No longer in use." (19) and, most of all, markers with no
# text of their own (before a heading, or where a heading's section already starts).
MIN_ANCHOR_SECTION_CHARS = 30
MAX_ANCHOR_TITLE = 80
# A first line that is only a mark ("[*]", "[12]", "†", "1."): a footnote's label, which names nothing ("See also
# Memory Usage › [*]"); such a section is titled by the line after it.
_MARK = re.compile(r"^[\[(]?[^\w\s]{0,3}\d{0,4}[^\w\s]{0,3}[\])]?$")
MAX_CONTAINER_CLIMB = 5  # parents a marker may open (a <p> in an <li> in a <ul>…)
ANCHOR = "anchor"  # the kind of such a section (beside "heading" and "api")
# Elements that start a section by their own id (a marker without text starts one whatever its tag).
ANCHOR_BLOCKS = BLOCKS | {"dt", "li", "pre"}


@dataclass(frozen=True, slots=True)
class PageLink:
    """The first text link of a page to one of its anchors: its words, and whether it comes before the anchor (a
    table of contents lists the entries that follow it; an index, a "see above" point back at what precedes)."""

    text: str
    ahead: bool


def linked_here(root: etree._Element, resolve: Callable[[str], str | None], here: Iterable[str],
                anchors: frozenset[str]) -> dict[str, PageLink]:
    """Every anchor of the page that one of its own links points at → the first such link.

    A permalink (a link of glyphs alone, like Sphinx's ``¶`` beside each parameter, or a link inside the element it
    points at) is written by the generator on every such element: it says nothing about where a section starts."""
    pages = set(here)
    out: dict[str, PageLink] = {}
    seen: set[str] = set()  # the ids met so far, in document order
    for el in root.iter(etree.Element):
        ident = el.get("id")
        if ident:
            seen.add(ident)
        if el.tag != "a":
            continue
        name, href = el.get("name"), el.get("href")
        if name:
            seen.add(name)
        if not href or "#" not in href:
            continue
        target = resolve(href)
        if target is None:
            continue
        page, _, frag = target.partition("#")
        if page in pages and frag in anchors and frag not in out and has_text(el) and not _inside(el, frag):
            out[frag] = PageLink(" ".join(text_of(el).split()), frag not in seen)
    return out


def with_elsewhere(own: Mapping[str, PageLink], elsewhere: Iterable[str], anchors: frozenset[str]) -> dict[str, PageLink]:
    """The page's own links (:func:`linked_here`) and the anchors other pages link to: an anchor only linked from
    elsewhere is titled by its id when its section has no line of text (the words of another page's link differ from
    page to page, and a page kept under a ``304`` must come out the same)."""
    out = dict(own)
    for ident in sorted(elsewhere):
        if ident in anchors:
            out.setdefault(ident, PageLink(ident, False))
    return out


def _inside(a: etree._Element, ident: str) -> bool:
    """Whether the link ``a`` lies in the element with id (or name) ``ident`` (not empty)."""
    return _lands_on(a, ident) or any(_lands_on(el, ident) for el in a.iterancestors())


def _lands_on(el: etree._Element, ident: str) -> bool:
    """``ident in anchor_ids(el)`` for an ``ident`` that is not empty, without building the list."""
    lands: bool = el.get("id") == ident or (el.tag == "a" and el.get("name") == ident)
    return lands


def anchor_ids(el: etree._Element) -> list[str]:
    """The ids an element lands on: its ``id`` and, for an ``<a>``, its ``name``."""
    ids = [el.get("id") or "", el.get("name") or "" if el.tag == "a" else ""]
    return [i for i in dict.fromkeys(ids) if i]


def may_start(el: etree._Element, cur: OpenSection) -> list[str]:
    """The ids with which ``el`` starts a section if a link points at one, whoever links to it: none inside an API
    entry or a paragraph. What the walk learns of them says which anchors another page's link may move a section
    start at (:attr:`crawlers.parse.extract.Extracted.starts`)."""
    if cur.kind == "api":
        return []  # inside an API entry a linked parameter or member is a part of the entry, as its headings are
    ids = anchor_ids(el)
    if not ids and el.tag == "dt":
        ids = [i for marker in _definition_markers(el) for i in anchor_ids(marker)]
    if not ids or any(not part.isspace() for part in cur.inline):
        return []  # a target in the middle of a sentence (a footnote reference) starts nothing
    if (el.tag not in ANCHOR_BLOCKS and has_text(el)) or _in_entry(el):
        return []
    return ids


def _definition_markers(dt: etree._Element) -> list[etree._Element]:
    """The empty markers a definition opens with, when ``dt`` is the first of the terms it defines: they start a
    section at the terms, which name what it describes (texi2html's options: ``<dt>‘-c’</dt><dt>‘--check’</dt><dd>
    <a name="IDX978"></a><a name="IDX979"></a><p>Perform all the checks…``: a section started at the markers left the
    option to the section before it)."""
    if (before := _sibling(dt, preceding=True)) is not None and before.tag == "dt":
        return []  # not the first term
    dd = _sibling(dt)
    while dd is not None and dd.tag == "dt":
        dd = _sibling(dd)
    if dd is None or dd.tag != "dd" or (dd.text or "").strip():
        return []
    markers = list(takewhile(lambda el: el.tag == "a" and not el.get("href") and not has_text(el), dd))
    ends = [i for i, el in enumerate(markers) if (el.tail or "").strip()]  # text after a marker ends the run
    return markers[: ends[0] + 1 if ends else len(markers)]


def _sibling(el: etree._Element, preceding: bool = False) -> etree._Element | None:
    """The element before (or after) ``el`` among its siblings, comments and processing instructions skipped."""
    return next((sib for sib in el.itersiblings(preceding=preceding) if isinstance(sib.tag, str)), None)


def linked_start(ids: list[str], cur: OpenSection, linked: Mapping[str, PageLink]) -> str | None:
    """Of ``el``'s ids that may start a section (:func:`may_start`), the first one linked, unless the section in
    effect already lands there (its anchor, or an id it took with it: a definition's markers, :func:`_definition_markers`)."""
    ident = next((i for i in ids if i in linked), None)
    return None if ident is None or (cur.anchor is not None and (ident == cur.anchor or ident in cur.aliases)) else ident


def _in_entry(el: etree._Element) -> bool:
    """Whether ``el`` lies in the description of an API entry that opens no section, having no id of its own
    (SQLAlchemy documents a type's constructor twice, once without ids): its parameters are the entry's too."""
    for dd in el.iterancestors("dd"):
        dl = dd.getparent()
        if dl is not None and API_DL & set(dl.get("class", "").split()):
            return True
    return False


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
    while before.into is not None:  # the section before it was too short to be one: it is where that one went
        before = before.into
    ids, opener = anchor_ids(el), el if el.tag in ANCHOR_BLOCKS else _container(el, main)
    if ident not in ids:  # a term, where its definition's markers start a section: it ends where theirs would
        markers = _definition_markers(el)
        ids, opener = [i for m in markers for i in anchor_ids(m)], _container(markers[-1], main)
    sec = OpenSection(ident, [i for i in ids if i != ident], "", host.raw_level + 1, ANCHOR, host.path,
                      opener=opener, before=before)
    sec.prefix, before.prefix = before.prefix, ""  # a list item's marker goes with its text
    # it starts where its heading's (or entry's) text starts: nothing of that section before it (the API entries of
    # a heading may be: Requests' "Status Code Lookup" is an entry, then the module's target and the heading's text)
    sec.at_start = before.kind != ANCHOR and not before.blocks
    return sec


def close_anchor(sec: OpenSection, opened: list[OpenSection], linked: Mapping[str, PageLink],
                 opens: dict[etree._Element, int] | None, whole: bool) -> bool:
    """Title an anchor section that ends; one too short is no section: its text and ids go back to the section
    in effect before it (a marker before a heading, a footnote), as if nothing had started there. Nor is one that
    took all of its heading's text (``whole``: it ends with its heading's section, which has no text before it):
    it starts where the heading's section starts (Texinfo's index entries just below a heading), so it is that
    section. True when it may still be: one that started where its heading's section starts (:func:`rejoin`)."""
    sec.flush()
    back = sec.before
    chars = sum(len(block) for block, _ in sec.blocks)
    if (back is not None and (chars < MIN_ANCHOR_SECTION_CHARS or (whole and _starts_heading(sec)))
            and _fold(sec, back, opened, opens)):
        return False
    link = linked.get(sec.anchor or "")
    sec.title = anchor_title(sec, link.text if link is not None else "")
    sec.short = sec.title
    sec.path = (*sec.path, sec.title)
    return _starts_heading(sec)


def rejoin(sec: OpenSection, opened: list[OpenSection], linked: Mapping[str, PageLink],
           opens: dict[etree._Element, int] | None, last: bool) -> None:
    """Give an anchor section that started where its heading's section starts back to the heading when the
    heading's section ends with no text of its own: a link to it lands where the heading is. So when it is the
    ``last`` to end (SQLAlchemy's ``<h2>asyncmy</h2><span id="module-…"></span><p>…``, then a wrapper ``<section
    id>`` of the next heading) and no section started after it, and, whatever followed it, when the page does not
    list it ahead of it (Texinfo's ``<h4>Pipelines</h4><a class="index-entry-id" id="index-pipeline"></a><p>A
    pipeline is…``, then an entry for a later paragraph: the index that links to them comes after). The entries
    of a table of contents (SQLite's ``<h1>…</h1><dl><a name="abs"></a><dt>abs(X)``…) stay a section each."""
    link = linked.get(sec.anchor or "")
    anywhere = link is None or not link.ahead
    # the text before any heading is no section once one opens: Doxygen's list of deprecations, with no heading, lost
    # its first entry to it (the marker of a navigation bar just before the first heading still goes back to it)
    if sec.before is not None and not sec.before.preamble and (last or anywhere) and _starts_heading(sec):
        _fold(sec, sec.before, opened, opens, anywhere)


def _starts_heading(sec: OpenSection) -> bool:
    """Whether ``sec`` starts where a heading's (or entry's) section starts, which has no text of its own."""
    back = sec.before
    return back is not None and sec.at_start and not back.blocks


def _fold(sec: OpenSection, back: OpenSection, opened: list[OpenSection], opens: dict[etree._Element, int] | None,
          anywhere: bool = False) -> bool:
    """Put ``sec``'s text and ids back into ``back``, as if it had never started; False when a section started
    after it, unless ``anywhere`` (each section after it then moves up one; those are anchor sections, and the
    walk's ``closes`` never names one: only the heading, entry or preamble in effect again after an end)."""
    at = next((i for i in range(len(opened) - 1, -1, -1) if opened[i] is sec), -1)
    if at < 0 or (at < len(opened) - 1 and not anywhere):
        return False
    del opened[at]
    if opens:  # in the order opened: the element that opened it opens nothing now (its text is back's)
        for el, index in list(takewhile(lambda item: item[1] >= at, reversed(opens.items()))):
            if index == at:
                del opens[el]
            else:
                opens[el] = index - 1
    back.blocks.extend(sec.blocks)
    back.block_links.extend(sec.block_links)
    back.chars += sec.chars
    back.linked += sec.linked
    back.counted = back.linked
    back.inner.extend([sec.anchor or "", *sec.aliases, *sec.inner])
    back.prefix = back.prefix or sec.prefix
    sec.into = back
    return True


def anchor_title(sec: OpenSection, link: str) -> str:
    """The section's first line (a term, a signature, a caption; past a footnote's mark, see :data:`_MARK`), cut at a
    word past :data:`MAX_ANCHOR_TITLE`; the words the page links to it with only when it has no line of text: those
    are as often "above" or "see here" as a name (git's "see <a href="#configaccessmethod">above</a>")."""
    lines = (line.strip().removeprefix("- ").strip() for block, _ in sec.blocks for line in block.splitlines()
             if line.strip() and not line.startswith("```"))
    first = next(lines, "")
    if first and _MARK.match("".join(first.split())):
        first = next(lines, first)
    if len(first) <= MAX_ANCHOR_TITLE:
        return first or link[:MAX_ANCHOR_TITLE]
    return first[:MAX_ANCHOR_TITLE].rsplit(" ", 1)[0] + "…"
