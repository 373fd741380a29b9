"""Which id lands on a heading: resolved from what the generator wrote, never slugified.

A heading's anchor is its own id, else the id its same-page headerlink points at, else the id of the section
wrapper it opens (DocBook's ``div.sect1``), else an empty marker element (a label span, an ``<a name>``) just
before or inside it, else an element inside it that holds its text (``<h2><a name="intro">Introduction</a></h2>``,
texi2html's footnotes ``<h3><a name="FOOT1" href="…#DOCF1">(1)</a></h3>``); every other such id stays an alias that
lands on the same place.
"""

from __future__ import annotations

from urllib.parse import unquote

from lxml import etree

from crawlers.parse.anchor_sections import anchor_ids
from crawlers.parse.chrome import is_chrome
from crawlers.parse.html import has_text

MAX_WRAPPER_CLIMB = 5  # DocBook puts h2 four levels below div.sect1[id]
_ENTRY_IDS = etree.XPath(".//*[@id]/@id | .//a/@name")
_SAME_PAGE_HREFS = etree.XPath(".//a[starts-with(@href, '#')]/@href")


def _is_marker(el: etree._Element) -> bool:
    """An element that holds no text: a label span, an ``<a name>``, an empty div."""
    if el.tag in ("img", "svg", "iframe", "video", "pre", "table", "input"):
        return False
    return not has_text(el)


def marker_ids(el: etree._Element) -> list[str]:
    ids = [str(v) for v in _ENTRY_IDS(el)]
    own = el.get("id") or (el.get("name") if el.tag == "a" else None)
    return ([own] if own else []) + [i for i in ids if i != own]


def resolve_heading(
    h: etree._Element, main: etree._Element, anchors: frozenset[str]
) -> tuple[str | None, list[str], bool]:
    """(anchor, aliases, from_marker) of a heading, from ids the generator wrote."""
    own = h.get("id") or None
    inside = [i for m in h.iterdescendants() if _is_marker(m) for i in marker_ids(m) if i != own]
    holding = [i for el in h.iterdescendants() if not _is_marker(el) for i in anchor_ids(el) if i != own]
    wrappers: list[str] = []
    markers: list[str] = []
    node = h
    for _ in range(MAX_WRAPPER_CLIMB):
        blocked = False
        for sib in node.itersiblings(preceding=True):
            if not isinstance(sib.tag, str) or is_chrome(sib) or "sidebar" in (sib.get("class") or ""):
                continue  # an empty sidebar (Qt's, filled by script) is no marker of the heading after it
            if (sib.tail or "").strip() or not _is_marker(sib):
                blocked = True
                break
            markers.extend(marker_ids(sib))
        parent = node.getparent()
        if blocked or parent is None or node is main or parent is main or (parent.text or "").strip():
            break
        wrapper_id = parent.get("id") or (parent.get("name") if parent.tag == "a" else None)
        if wrapper_id:
            wrappers.append(wrapper_id)
        node = parent
    link_target = None
    for href in _SAME_PAGE_HREFS(h):
        target = unquote_fragment(str(href))
        if target in anchors:
            link_target = target
            break
        if str(href)[1:] in anchors:
            link_target = str(href)[1:]
            break
    candidates = [c for c in [own, *wrappers, *inside, *markers, *holding] if c]
    if own:
        anchor: str | None = own
    elif link_target and link_target in candidates:
        anchor = link_target
    elif wrappers:
        anchor = wrappers[0]
    elif link_target:
        anchor = link_target
    elif inside or markers or holding:
        anchor = (inside or markers or holding)[0]
    else:
        anchor = None
    if link_target and link_target not in candidates:
        candidates.append(link_target)
    aliases = list(dict.fromkeys(c for c in candidates if c != anchor))
    from_marker = anchor is not None and anchor not in (own, link_target) and anchor not in wrappers
    return anchor, aliases, from_marker


def unquote_fragment(href: str) -> str:
    """The fragment of a same-page ``href="#x"``, percent-decoded."""
    return unquote(href[1:]) if href.startswith("#") else ""
