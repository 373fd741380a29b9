"""The section walk: one pass over a page's main region, for :mod:`crawlers.extract`.

Headings, API/definition entries and the anchors the page links to (:mod:`crawlers.anchor_sections`) open
sections; every other element's text goes to the innermost open section (:mod:`crawlers.section_text`). Headings
are anchored by :mod:`crawlers.heading_anchors`; API entries are known and named the way their generator does
(:mod:`crawlers.api_entries`), and what is chrome (:mod:`crawlers.chrome`) is skipped.
"""

from __future__ import annotations

from collections.abc import Mapping

from lxml import etree

from crawlers.anchor_sections import ANCHOR, PageLink, anchor_ids, close_anchor, open_anchor, rejoin, starts_section
from crawlers.api_entries import (
    API_DL,
    API_HEADING_CLASSES,
    CALLABLE_DL,
    ENTRY_PART_TITLES,
    JAVA_SIGNATURE,
    MAX_API_TITLE,
    RUSTDOC_ANCHOR,
    SYMBOL_HEADING,
    entry_dl,
    rustdoc_name,
)
from crawlers.chrome import chrome_free_text, chrome_free_text_raw, is_chrome
from crawlers.heading_anchors import marker_ids, resolve_heading
from crawlers.html import BLOCKS, HEADINGS, holds_lines, lines_of, link_text, text_of
from crawlers.section_text import ExtractedSection, OpenSection, finish_sections

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
_DESCNAME = etree.XPath(".//*[contains(concat(' ', @class, ' '), ' descname ')]")
_DESCCLASSNAME = etree.XPath(".//*[contains(concat(' ', @class, ' '), ' descclassname ')]")


def _is_banner(h1: etree._Element) -> bool:
    """An <h1> whose whole text is a link to another page: the site's name over every page (Django's theme
    writes <h1><a href="../../index.html">Django 3.2 documentation</a></h1> above the page's own <h1>)."""
    total, linked = link_text(h1)
    return total > 0 and linked == total


def _names_page(heading: str, title: str) -> bool:
    """Whether the page's first heading is its ``<title>``, alone or before the site's name ("What Is Ownership?"
    for mdBook's "What is Ownership? - The Rust Programming Language")."""
    head, rest = heading.casefold(), title.casefold()
    return bool(head) and rest.startswith(head) and (
        len(rest) == len(head) or rest[len(head):].startswith(_TITLE_TAILS))


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


def walk_sections(
    main: etree._Element, anchors: frozenset[str], html_title: str, skip: frozenset[etree._Element],
    opens: dict[etree._Element, int] | None = None, closes: dict[etree._Element, int] | None = None,
    linked: Mapping[str, PageLink] | None = None,
) -> tuple[tuple[ExtractedSection, ...], str, int, int]:
    """(sections, page title, API entry count, heading count) of the main region.

    ``linked``: the page's anchors its own links point at (→ the link's text); each starts a section where it sits
    between blocks (:mod:`crawlers.anchor_sections`).

    ``opens`` and ``closes``, when given, learn where the text's section changes: the element that opens each
    section (→ its index), and each API entry list after whose end its parent's section (→ its index, or -1 for
    the page's preamble) is in effect again (what :func:`crawlers.visible_text.visible_runs` tags text with)."""
    banners = frozenset(h for h in main.iter("h1") if _is_banner(h))
    if banners:
        skip = skip | banners
    title_h1 = next((h for h in main.iter("h1") if not _hidden(h, skip)), None)
    page_title = chrome_free_text(title_h1) if title_h1 is not None else ""
    if not page_title:
        first = next((h for h in main.iter(*HEADINGS) if not _hidden(h, skip)), None)
        first_text = chrome_free_text(first) if first is not None else ""
        page_title = html_title or first_text
        if first is not None and _names_page(first_text, page_title):
            page_title = first_text
            title_h1 = first  # the page starts at a lower heading that repeats the title
    preamble = OpenSection(None, [], page_title, 1, "heading", (page_title,))
    opened: list[OpenSection] = []
    stack: list[OpenSection] = []
    li_depth = 0
    walker = etree.iterwalk(main, events=("start", "end"))
    cur = preamble
    breaks = END_BREAKS
    actions = START_ACTIONS
    links = linked or {}

    at_start: list[OpenSection] = []  # anchor sections that started where their heading's section starts
    ended: list[OpenSection] = []  # of them, the one that ended at the latest anchor start or since

    def end_anchors(whole: bool = True) -> OpenSection:
        """Ends the anchor section in effect (they never nest) with its parent's (``whole``) or at the next anchor;
        returns the section in effect again."""
        if not whole:
            ended.clear()
        while stack and stack[-1].kind == ANCHOR:
            sec = stack.pop()
            if close_anchor(sec, opened, links, opens, whole):
                at_start.append(sec)
                ended.append(sec)
        while whole and at_start:
            sec = at_start.pop()
            rejoin(sec, opened, links, opens, last=any(s is sec for s in ended))
        if whole:
            ended.clear()
        return stack[-1] if stack else preamble

    for event, el in walker:
        tag = el.tag
        if event == "end":
            if tag in breaks:
                if cur.inline:
                    cur.flush()
                if tag == "li":
                    li_depth = max(0, li_depth - 1)
                elif tag == "dl" and stack and any(s.dl is el for s in stack):
                    end_anchors()
                    while stack:
                        if stack.pop().dl is el:
                            break
                    cur = stack[-1] if stack else preamble
                    if closes is not None:
                        closes[el] = next((i for i in range(len(opened) - 1, -1, -1) if opened[i] is cur), -1)
            if stack and stack[-1].opener is el:  # a linked block (a headless <section id>) ends its section, as
                cur.flush()  # does the end of a marker's container (which holds its heading when nothing is between)
                cur = end_anchors(whole=stack[-1].anchor not in anchor_ids(el))
                if closes is not None:
                    closes[el] = next((i for i in range(len(opened) - 1, -1, -1) if opened[i] is cur), -1)
            tail = el.tail
            if tail and (cur.inline or not tail.isspace()) and el is not main:
                cur.inline.append(tail)
            continue
        if not isinstance(tag, str) or is_chrome(el) or (skip and el in skip):
            walker.skip_subtree()
            continue
        action = actions.get(tag, _INLINE)
        if action == _HEADING and (_in_box(el, main) or (
            stack and stack[-1].kind == "api" and chrome_free_text(el).strip().rstrip(":").lower() in ENTRY_PART_TITLES
        )):
            action = _BLOCK  # its title is a line of the box's (or the API entry's) text
        if action == _HEADING and len(opened) < MAX_SECTIONS:
            cur.flush()
            walker.skip_subtree()
            end_anchors()
            raw = int(tag[1])
            while stack and stack[-1].dl is None and stack[-1].raw_level >= raw:
                stack.pop()
            top = stack[-1] if stack else None
            if top is not None and top.dl is not None:
                raw = top.raw_level + 1
            title = chrome_free_text(el)
            anchor, aliases, from_marker = resolve_heading(el, main, anchors)
            cls = set(el.get("class", "").split())
            symbol = SYMBOL_HEADING.fullmatch(title.strip())
            is_api = bool(cls & API_HEADING_CLASSES) or symbol is not None or bool(
                anchor and (("(" in anchor and (from_marker or anchor.endswith(")"))) or RUSTDOC_ANCHOR.match(anchor))
            )
            overload = JAVA_SIGNATURE.fullmatch(anchor or "")
            if overload and overload["name"] == title.strip():  # Javadoc: "toBoolean" ×6 → "toBoolean(String)"
                params = [p.strip().rsplit(".", 1)[-1] for p in overload["params"].split(",") if p.strip()]
                title = f"{title.strip()}({', '.join(params)})"
            if symbol is not None:  # "g_hash_table_new ()" → "g_hash_table_new()", "struct GHashTableIter" → "GHashTableIter"
                title = (symbol["typed"] or (symbol["called"] + "()" if symbol["called"] else symbol["const"]))
            if el is title_h1:
                path: tuple[str, ...] = (page_title,)
            else:
                path = (top.path if top is not None else (page_title,)) + (title,)
            short = rustdoc_name(anchor) or title
            if is_api and short != title:
                title = short
                path = (*path[:-1], title)
            sec = OpenSection(anchor, aliases, title, raw, "api" if is_api else "heading", path, short=short, sig=is_api)
            if opens is not None:
                opens[el] = len(opened)
            opened.append(sec)
            stack.append(sec)
            cur = sec
            continue
        if action == _ENTRY and len(opened) < MAX_SECTIONS:
            dl, classes = entry_dl(el)
            ids = marker_ids(el) if dl is not None else []
            if ids:
                cur.flush()
                walker.skip_subtree()
                end_anchors()
                while stack and stack[-1].dl is dl:
                    stack.pop()
                top = stack[-1] if stack else None
                parent_api = top if top is not None and top.kind == "api" else None
                signature = chrome_free_text(el)
                names = _DESCNAME(el)
                if names:
                    short = " ".join("".join(names[0].itertext()).split())
                    if parent_api is not None:
                        title = f"{parent_api.short}.{short}"
                    else:
                        prefixes = _DESCCLASSNAME(el)
                        prefix = "".join(prefixes[0].itertext()).strip() if prefixes else ""
                        title = prefix + short
                    if classes & CALLABLE_DL:
                        title += "()"
                else:
                    title = short = signature[:MAX_API_TITLE].strip()
                raw = top.raw_level + 1 if top is not None else 1
                path = (top.path if top is not None else (page_title,)) + (title,)
                is_sig = bool(classes & API_DL) or "sig" in el.get("class", "").split()
                sec = OpenSection(ids[0], ids[1:], title, raw, "api", path, short=short, dl=dl, sig=is_sig)
                sec.add(signature)
                if opens is not None:
                    opens[el] = len(opened)
                opened.append(sec)
                stack.append(sec)
                cur = sec
                continue
        ident = el.get("id")
        start = starts_section(el, cur, links) if links and len(opened) < MAX_SECTIONS else None
        if (ident and cur.anchor is None and tag == "section" and cur is not preamble and ident in anchors
                and next(el.iter(*HEADINGS), None) is None):
            # Javadoc: <h1>Class X</h1> (no id), then <section id="class-description"> with no heading of its
            # own (one with a heading lends its id to that heading's section instead)
            cur.anchor = ident
        elif start is not None:
            cur.flush()
            before = cur
            cur = open_anchor(el, start, end_anchors(whole=False), before, main)
            if opens is not None:
                opens[el] = len(opened)
            opened.append(cur)
            stack.append(cur)
        elif ident:
            cur.inner.append(ident)
        if tag == "div" and el.get("class") == "fragment":  # Doxygen's code: one <div class="line"> a line
            walker.skip_subtree()
            if cur.inline:
                cur.flush()
            code = "\n".join(chrome_free_text_raw(line) for line in el if isinstance(line.tag, str))
            if code.strip():
                cur.add(f"```\n{code.strip(chr(10))}\n```")
            continue
        if tag == "a" and el.get("name") and start is None:
            cur.inner.append(el.get("name"))
        if tag == "a" and el.get("href"):
            cur.linked += len("".join(text_of(el).split()))
        if action == _INLINE:
            if el.text:
                cur.inline.append(el.text)
            continue
        if action == _CODE:  # inline code: its highlighting spans carry no structure
            walker.skip_subtree()
            if not holds_lines(el):
                cur.inline.append(text_of(el))
                continue
            # code whose lines are elements (Redoc's JSON samples: <code><ul><li>"Id": …</li>…</ul></code>) is a
            # block of code; read as inline text it became one line of prose, its "sentences" taken for facts
            if cur.inline:
                cur.flush()
            code = lines_of(el)
            if code:
                cur.add(f"```\n{code}\n```")
            continue
        if action == _PRE:
            if cur.inline:
                cur.flush()
            walker.skip_subtree()
            code = text_of(el).strip("\n").replace("\xa0", " ")
            if code.strip():
                cur.add(f"```\n{code}\n```")
            continue
        if action == _ITEM:
            if cur.inline:
                cur.flush()
            li_depth += 1
            cur.prefix = "  " * (li_depth - 1) + "- "
        elif action == _CELL:
            cur.inline.append(" ")
        elif cur.inline:  # a block (or a dt that opens no entry)
            cur.flush()
        text = el.text
        if text and (cur.inline or not text.isspace()):
            cur.inline.append(text)
    (stack[-1] if stack else preamble).flush()
    end_anchors()
    for sec in stack:
        sec.flush()
    preamble.flush()
    return finish_sections(opened, preamble, page_title)
