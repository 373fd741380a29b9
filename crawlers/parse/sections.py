"""The section walk: one pass over a page's main region, for :mod:`crawlers.parse.extract`.

Headings, API/definition entries and the anchors the page links to (:mod:`crawlers.parse.anchor_sections`) open
sections; every other element's text goes to the innermost open section (:mod:`crawlers.parse.section_text`). Headings
are anchored by :mod:`crawlers.parse.heading_anchors`; a table row that is a record is one line
(:mod:`crawlers.parse.table_rows`); API entries are known and named the way their generator does
(:mod:`crawlers.parse.api_entries`), and what is chrome (:mod:`crawlers.parse.chrome`) is skipped.
"""

from __future__ import annotations

from collections.abc import Mapping

from lxml import etree

from crawlers.parse.anchor_sections import (
    ANCHOR,
    PageLink,
    anchor_ids,
    close_anchor,
    linked_start,
    may_start,
    open_anchor,
    rejoin,
)
from crawlers.parse.api_entries import API_DL, ENTRY_PART_TITLES, api_heading, entry_dl, entry_title, rustdoc_name
from crawlers.parse.chrome import chrome_free_text, chrome_free_text_raw, is_chrome
from crawlers.parse.heading_anchors import marker_ids, resolve_heading
from crawlers.parse.html import BLOCKS, HEADINGS, holds_lines, lines_of, link_text, text_of
from crawlers.parse.section_text import CELL, ExtractedSection, OpenSection, finish_sections
from crawlers.parse.table_rows import one_line

MAX_SECTIONS = 20_000  # sections kept per page; the rest of a runaway page is ignored
_TITLE_TAILS = (" - ", " — ", " – ", " | ", " · ", " :: ", ": ")  # what separates a page's name from the site's
# Boxes whose heading titles the box, not a section: DocBook writes <div class="note"><h3 class="title">Note</h3>.
# Taken as sections, every later entry of the page nested under the last "Note".
ADMONITION_CLASSES = frozenset({"note", "tip", "warning", "caution", "important", "admonition"})
_INLINE, _HEADING, _ENTRY, _PRE, _ITEM, _BLOCK, _CELL, _CODE = range(8)
START_ACTIONS: dict[str, int] = {
    **dict.fromkeys(HEADINGS, _HEADING), **dict.fromkeys(BLOCKS, _BLOCK),
    "dt": _ENTRY, "pre": _PRE, "li": _ITEM, "td": _CELL, "th": _CELL, "br": _CELL,
    "code": _CODE, "kbd": _CODE, "samp": _CODE, "tt": _CODE, "var": _CODE,
}
END_BREAKS = BLOCKS | {"li", "dt"}


def _is_banner(h1: etree._Element, site_name: str) -> bool:
    """An <h1> whose whole text links to another page (Django's <h1><a href="../../index.html">Django 3.2 documentation
    </a></h1>), not to a place in one (texi2html's <h1><a href="gettext_toc.html#TOC166">10. Producing…</a></h1>); or
    one that says the site's name the ``<title>`` gives after the page's (Node.js's <h1>Node.js v18.20.4 documentation
    </h1> on "HTTP | Node.js v18.20.4 Documentation"): the banner over every page, not this page's title."""
    total, linked = link_text(h1)
    if total > 0 and linked == total and any("#" not in href for a in h1.iter("a") if (href := a.get("href"))):
        return True
    return bool(site_name) and " ".join(chrome_free_text(h1).split()).casefold() == site_name.casefold()


def _names_page(heading: str, title: str) -> bool:
    """Whether the page's first heading is its ``<title>``, alone or before the site's name ("What Is Ownership?"
    for mdBook's "What is Ownership? - The Rust Programming Language"), or the title's name after what it names
    ("Class Jsoup" for Javadoc 11's "Jsoup (jsoup Java HTML Parser 1.15.3 API)")."""
    head, rest = heading.casefold(), title.casefold()
    if head and rest.startswith(head) and (len(rest) == len(head) or rest[len(head):].startswith(_TITLE_TAILS)):
        return True
    name = min((rest.split(tail, 1)[0] for tail in (*_TITLE_TAILS, " (") if tail in rest), key=len, default="")
    return bool(name.strip()) and head.endswith(" " + name.strip())


def _hidden(el: etree._Element, skip: frozenset[etree._Element]) -> bool:
    """True when ``el`` sits inside chrome (a heading in a sidebar is not content)."""
    node: etree._Element | None = el
    while node is not None:
        if node in skip or is_chrome(node):
            return True
        node = node.getparent()
    return False


def _in_box(heading: etree._Element, main: etree._Element) -> bool:
    """Whether ``heading`` titles an admonition box (a note, tip, warning…) rather than a section."""
    for el in heading.iterancestors():
        if el is main:
            return False
        if ADMONITION_CLASSES & set(el.get("class", "").split()):
            return True
    return False


def _page_title(main: etree._Element, html_title: str,
                skip: frozenset[etree._Element]) -> tuple[str, etree._Element | None]:
    """(the page's title, the heading that carries it, if any): its first visible <h1>, else the ``<title>`` (or the
    first heading) — that heading itself when it repeats the title."""
    title_h1 = next((h for h in main.iter("h1") if not _hidden(h, skip)), None)
    page_title = chrome_free_text(title_h1) if title_h1 is not None else ""
    if not page_title:
        first = next((h for h in main.iter(*HEADINGS) if not _hidden(h, skip)), None)
        first_text = chrome_free_text(first) if first is not None else ""
        page_title = html_title or first_text
        if first is not None and _names_page(first_text, page_title):
            page_title = first_text
            title_h1 = first  # the page starts at a lower heading that repeats the title
    return page_title, title_h1


def walk_sections(
    main: etree._Element, anchors: frozenset[str], html_title: str, skip: frozenset[etree._Element],
    opens: dict[etree._Element, int] | None = None, closes: dict[etree._Element, int] | None = None,
    linked: Mapping[str, PageLink] | None = None, starts: set[str] | None = None, site_name: str = "",
) -> tuple[tuple[ExtractedSection, ...], str, int]:
    """(sections, page title, API entry count) of the main region (``site_name``: what the ``<title>`` names after
    the page's name).

    ``linked``: the page's anchors its own links point at (→ the link's text); each starts a section where it sits
    between blocks (:mod:`crawlers.parse.anchor_sections`).

    ``opens`` and ``closes``, when given, learn where the text's section changes: the element that opens each
    section (→ its index), and each API entry list after whose end its parent's section (→ its index, or -1 for
    the page's preamble) is in effect again (what :func:`crawlers.parse.visible_text.visible_runs` tags text with).
    ``starts``, when given, learns every id that starts a section where it sits if a link points at it (linked or not:
    :func:`crawlers.parse.anchor_sections.may_start`)."""
    banners = frozenset(h for h in main.iter("h1") if _is_banner(h, site_name))
    if banners:
        skip = skip | banners
    page_title, title_h1 = _page_title(main, html_title, skip)
    walk = _SectionWalk(main, anchors, skip, page_title, title_h1, opens, closes, linked or {})
    if starts is not None:
        walk.starts = starts
    walk.run()
    return finish_sections(walk.opened, walk.preamble, page_title)


class _SectionWalk:
    """One walk over the main region: the sections opened so far, those in effect (``stack``), the innermost (``cur``)."""

    def __init__(self, main: etree._Element, anchors: frozenset[str], skip: frozenset[etree._Element],
                 page_title: str, title_h1: etree._Element | None, opens: dict[etree._Element, int] | None,
                 closes: dict[etree._Element, int] | None, links: Mapping[str, PageLink]) -> None:
        self.main, self.anchors, self.skip, self.links = main, anchors, skip, links
        self.page_title, self.title_h1 = page_title, title_h1
        self.opens, self.closes = opens, closes
        self.preamble = OpenSection(None, [], page_title, 1, "heading", (page_title,), preamble=True)
        self.opened: list[OpenSection] = []
        self.stack: list[OpenSection] = []
        self.cur = self.preamble
        self.li_depth = 0
        self.rows: list[etree._Element] = []  # the table rows being read as one line each (innermost last)
        self.at_start: list[OpenSection] = []  # anchor sections that started where their heading's section starts
        self.ended: list[OpenSection] = []  # of them, the one that ended at the latest anchor start or since
        self.starts: set[str] = set()  # the ids that start a section where they are if a link points at one
        self.walker = etree.iterwalk(main, events=("start", "end"))

    def run(self) -> None:
        """Walk the region: a heading or an API entry opens a section; every other element adds its text."""
        walker, skip, actions, stack, main = self.walker, self.skip, START_ACTIONS, self.stack, self.main
        # Most elements are inline, with no id, ending nothing: they are handled here without a call (the walk
        # meets every element of every page twice), as end(), mark() and add_text() would handle them
        for event, el in walker:
            if event == "end":
                if el.tag in END_BREAKS or (stack and stack[-1].opener is el):
                    self.end(el)
                elif (tail := el.tail) and ((cur := self.cur).inline or not tail.isspace()) and el is not main:
                    cur.inline.append(tail)
                continue
            tag = el.tag
            if not isinstance(tag, str) or is_chrome(el) or (skip and el in skip):
                walker.skip_subtree()
                continue
            action = actions.get(tag, _INLINE)
            ident = el.get("id")
            if action == _INLINE:
                if ident or tag == "a":
                    self.mark(el, tag, ident)
                if text := el.text:
                    self.cur.inline.append(text)
                continue
            if action == _HEADING and self.titles_box_or_entry(el):
                action = _BLOCK  # its title is a line of the box's (or the API entry's) text
            room = len(self.opened) < MAX_SECTIONS
            if action == _HEADING and room:
                self.open_heading(el, tag)
            elif not (action == _ENTRY and room and self.open_entry(el)):
                if ident or tag in ("a", "dt"):  # nothing else may start a section or hold an id (a dt: may_start)
                    self.mark(el, tag, ident)
                self.add_text(el, tag, action)
        self.in_effect().flush()
        self.end_anchors()
        for sec in self.stack:
            sec.flush()
        self.preamble.flush()

    def in_effect(self) -> OpenSection:
        """The innermost section open, the preamble before any."""
        return self.stack[-1] if self.stack else self.preamble

    def push(self, el: etree._Element, sec: OpenSection) -> None:
        """Open ``sec`` at ``el``: it is the innermost section from here."""
        if self.opens is not None:
            self.opens[el] = len(self.opened)
        self.opened.append(sec)
        self.stack.append(sec)
        self.cur = sec

    def end_anchors(self, whole: bool = True) -> OpenSection:
        """Ends the anchor section in effect (they never nest) with its parent's (``whole``) or at the next anchor;
        returns the section in effect again."""
        stack, at_start, ended = self.stack, self.at_start, self.ended
        if not whole:
            ended.clear()
        while stack and stack[-1].kind == ANCHOR:
            sec = stack.pop()
            if close_anchor(sec, self.opened, self.links, self.opens, whole):
                at_start.append(sec)
                ended.append(sec)
        while whole and at_start:
            sec = at_start.pop()
            rejoin(sec, self.opened, self.links, self.opens, last=any(s is sec for s in ended))
        if whole:
            ended.clear()
        return self.in_effect()

    def end(self, el: etree._Element) -> None:
        """An element's end: a block ends its line; an API entry list or a linked block ends its sections."""
        cur, stack = self.cur, self.stack
        if el.tag in END_BREAKS:
            rows = self.rows
            if rows and rows[-1] is not el:  # inside a row read as one line, a block's end is a space
                cur.inline.append(" ")
            else:
                if rows:
                    rows.pop()
                if cur.inline:
                    cur.flush()
                if el.tag == "li":
                    self.li_depth = max(0, self.li_depth - 1)
            if el.tag == "dl" and stack and any(s.dl is el for s in stack):
                self.end_anchors()
                while stack:
                    if stack.pop().dl is el:
                        break
                cur = self.cur = self.in_effect()
                if self.closes is not None:
                    self.closes[el] = _index_of(self.opened, cur)
        if stack and stack[-1].opener is el:  # a linked block (a headless <section id>) ends its section, as
            cur.flush()  # does the end of a marker's container (which holds its heading when nothing is between)
            cur = self.cur = self.end_anchors(whole=stack[-1].anchor not in anchor_ids(el))
            if self.closes is not None:
                self.closes[el] = _index_of(self.opened, cur)
        tail = el.tail
        if tail and (cur.inline or not tail.isspace()) and el is not self.main:
            cur.inline.append(tail)

    def titles_box_or_entry(self, heading: etree._Element) -> bool:
        """Whether ``heading`` titles an admonition box or a part of the API entry in effect ("Parameters:")."""
        return _in_box(heading, self.main) or (bool(self.stack) and self.stack[-1].kind == "api" and (
            chrome_free_text(heading).strip().rstrip(":").lower() in ENTRY_PART_TITLES))

    def open_heading(self, el: etree._Element, tag: str) -> None:
        """Open the section a heading starts, under the innermost section of a higher level (or API entry)."""
        self.cur.flush()
        self.walker.skip_subtree()
        self.end_anchors()
        stack = self.stack
        raw = int(tag[1])
        while stack and stack[-1].dl is None and stack[-1].raw_level >= raw:
            stack.pop()
        top = stack[-1] if stack else None
        if top is not None and top.dl is not None:
            raw = top.raw_level + 1
        anchor, aliases, from_marker = resolve_heading(el, self.main, self.anchors)
        is_api, title = api_heading(el, chrome_free_text(el), anchor, from_marker)
        if el is self.title_h1:
            path: tuple[str, ...] = (self.page_title,)
        else:
            path = (top.path if top is not None else (self.page_title,)) + (title,)
        short = rustdoc_name(anchor, title) or title
        if is_api and short != title:
            title = short
            path = (*path[:-1], title)
        kind = "api" if is_api else "heading"
        self.push(el, OpenSection(anchor, aliases, title, raw, kind, path, short=short, sig=is_api))

    def open_entry(self, dt: etree._Element) -> bool:
        """Open the API entry a ``dt`` with an id starts, inside its list's parent; False when it starts none."""
        dl, classes = entry_dl(dt)
        ids = marker_ids(dt) if dl is not None else []
        if not ids:
            return False
        self.cur.flush()
        self.walker.skip_subtree()
        self.end_anchors()
        stack = self.stack
        while stack and stack[-1].dl is dl:
            stack.pop()
        top = stack[-1] if stack else None
        signature = chrome_free_text(dt)
        parent_api = top.short if top is not None and top.kind == "api" else None
        title, short = entry_title(dt, signature, parent_api, classes)
        raw = top.raw_level + 1 if top is not None else 1
        path = (top.path if top is not None else (self.page_title,)) + (title,)
        is_sig = bool(classes & API_DL) or "sig" in dt.get("class", "").split()
        sec = OpenSection(ids[0], ids[1:], title, raw, "api", path, short=short, dl=dl, sig=is_sig)
        sec.add(signature)
        self.push(dt, sec)
        return True

    def mark(self, el: etree._Element, tag: str, ident: str | None) -> None:
        """Where ``el`` has an id (``ident``) or is an ``<a>`` (a name, a link): open the section an anchor the page
        links to starts, lend a headless section's id to the section in effect, or keep it as an id inside it."""
        cur = self.cur
        start = None
        if len(self.opened) < MAX_SECTIONS:
            ids = may_start(el, cur)
            if ids:
                self.starts.update(ids)  # asked whether linked or not: which links may move a start
                start = linked_start(ids, cur, self.links)
        if (ident and cur.anchor is None and tag == "section" and cur is not self.preamble and ident in self.anchors
                and next(el.iter(*HEADINGS), None) is None):
            # Javadoc: <h1>Class X</h1> (no id), then <section id="class-description"> with no heading of its
            # own (one with a heading lends its id to that heading's section instead)
            cur.anchor = ident
        elif start is not None:
            cur.flush()
            self.push(el, open_anchor(el, start, self.end_anchors(whole=False), cur, self.main))
            cur = self.cur
        elif ident:
            cur.inner.append(ident)
        if tag == "a":
            if el.get("name") and start is None:
                cur.inner.append(el.get("name"))
            if el.get("href"):
                cur.linked += len("".join(text_of(el).split()))

    def add_text(self, el: etree._Element, tag: str, action: int) -> None:
        """Add an element's own text to the innermost section: inline, as fenced code, as a list item or a block."""
        cur = self.cur
        if action == _INLINE:
            if el.text:
                cur.inline.append(el.text)
            return
        if tag == "div" and el.get("class") == "fragment":  # Doxygen's code: one <div class="line"> a line
            self.add_code(_doxygen_code(el))
            return
        if action == _CODE:  # inline code: its highlighting spans carry no structure
            if not holds_lines(el):
                self.walker.skip_subtree()
                cur.inline.append(text_of(el))
                return
            # code whose lines are elements (Redoc's JSON samples: <code><ul><li>"Id": …</li>…</ul></code>) is a
            # block of code; read as inline text it became one line of prose, its "sentences" taken for facts
            self.add_code(lines_of(el))
            return
        if action == _PRE:
            self.add_code(_pre_code(el))
            return
        if self.rows and action in (_ITEM, _BLOCK, _ENTRY, _CELL):  # inside a row read as one line
            cur.inline.append(CELL if tag in ("td", "th") else " ")
        elif action == _ITEM:
            if cur.inline:
                cur.flush()
            self.li_depth += 1
            cur.prefix = "  " * (self.li_depth - 1) + "- "
        elif action == _CELL:
            cur.inline.append(" ")
        elif cur.inline:  # a block (or a dt that opens no entry)
            cur.flush()
        if tag == "tr" and one_line(el):  # a record, as a list item is: never run into the next, read whole
            self.rows.append(el)
            cur.prefix = "  " * self.li_depth + "- "
        text = el.text
        if text and (cur.inline or not text.isspace()):
            cur.inline.append(text)

    def add_code(self, code: str) -> None:
        """End the line in progress and add ``code`` (when there is any) as a fenced block; its element is read."""
        self.walker.skip_subtree()
        if self.cur.inline:
            self.cur.flush()
        if code:
            self.cur.add(f"```\n{code}\n```")


def _index_of(opened: list[OpenSection], sec: OpenSection) -> int:
    """``sec``'s index among the ``opened`` sections, -1 for the preamble."""
    return next((i for i in range(len(opened) - 1, -1, -1) if opened[i] is sec), -1)


def _doxygen_code(fragment: etree._Element) -> str:
    """The code of Doxygen's ``<div class="fragment">``, one ``<div class="line">`` a line ("" when blank)."""
    code = "\n".join(chrome_free_text_raw(line) for line in fragment if isinstance(line.tag, str))
    return code.strip("\n") if code.strip() else ""


def _pre_code(pre: etree._Element) -> str:
    """The code of a ``<pre>`` ("" when blank)."""
    code = text_of(pre).strip("\n").replace("\xa0", " ")
    return code if code.strip() else ""
