"""Read a parsed page's visible text into block-level runs, each tagged with the section in effect there.

What a browser matches a text directive against (WICG "URL Fragment Text Directives", as Chrome, Safari and Firefox
do it): the rendered text of the whole document, not only its main region (a sidebar that repeats a sentence comes
first), across inline elements, never across a block boundary, without what is not rendered (the head, script,
style, template, noscript, ``hidden``, an inline ``display:none`` or ``visibility:hidden``, form controls) and
without Sphinx's permalink glyphs (``visibility: hidden`` in every Sphinx theme). Whitespace is collapsed; a no-break
space counts as a space and a soft hyphen as nothing, as find-in-page reads them. One pass over the tree the page
parse (:mod:`crawlers.extract`) already holds.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from lxml import etree

from crawlers.page_text import OUTSIDE

# Elements a browser lays out as blocks (the UA style sheet's display: block, list-item, table and its parts, which
# Chrome lays out as blocks of their own): a match stops at their start and end.
BLOCK_TAGS = frozenset(
    """address article aside blockquote body caption center dd details dialog dir div dl dt fieldset figcaption
    figure footer form frameset h1 h2 h3 h4 h5 h6 header hgroup hr html legend li listing main menu nav ol optgroup p
    plaintext pre search section summary table tbody td tfoot th thead tr ul xmp""".split()
)
# Elements whose content is never searched: not rendered, or a form control's own text.
INVISIBLE_TAGS = frozenset(
    """head script style template noscript title meta link base iframe object embed video audio canvas svg img
    picture source track map area input textarea select datalist option""".split()
)
# Attributes that hide an element: ``hidden``, an inline display:none or visibility:hidden. Asked of every element only
# when the page's source may hold one (:data:`MAY_HIDE`): most pages hold none, and asking costs a tenth of a parse.
_HIDING_STYLE = re.compile(r"(?:display\s*:\s*none|visibility\s*:\s*hidden)", re.I)
MAY_HIDE = re.compile(rb"\shidden[\s>=/]|\sstyle\s*=", re.I)
PERMALINK_CLASS = "headerlink"  # Sphinx's ¶: visibility: hidden until hovered, in every Sphinx theme
_SOFT_HYPHEN = "\xad"


def _hidden_by_attributes(el: etree._Element) -> bool:
    if el.get("hidden") is not None:
        return True
    style = el.get("style")
    return style is not None and _HIDING_STYLE.search(style) is not None


def visible_runs(
    root: etree._Element, opens: Mapping[etree._Element, int], closes: Mapping[etree._Element, int],
    may_hide: bool = True,
) -> tuple[tuple[tuple[int, str], ...], dict[str, int]]:
    """(runs, ids) of the document: runs as :class:`crawlers.page_text.PageText` holds them, and every id (and
    ``<a name>``) → the index of the run its element starts at.

    ``opens``: element → the section index that starts with it (a heading, an API entry's ``dt``);
    ``closes``: element → the section index in effect again after its end (an API entry's ``dl``, the main region);
    ``may_hide``: False when the page's source has no attribute that hides an element (see :data:`MAY_HIDE`).
    """
    runs: list[tuple[int, str]] = []
    ids: dict[str, int] = {}
    buf: list[str] = []
    section = OUTSIDE
    invisible, blocks = INVISIBLE_TAGS, BLOCK_TAGS
    skipped: etree._Element | None = None  # the element whose subtree was just skipped: its end event comes next

    def flush() -> None:
        text = " ".join("".join(buf).split())
        buf.clear()
        if text:
            if _SOFT_HYPHEN in text:
                text = text.replace(_SOFT_HYPHEN, "")
            runs.append((section, text))

    body = root.find("body")
    walker = etree.iterwalk(body if body is not None else root, events=("start", "end"))
    for event, el in walker:
        tag = el.tag
        if not isinstance(tag, str):  # comments and processing instructions (the parser drops most)
            if event == "start":
                walker.skip_subtree()
            elif el.tail:
                buf.append(el.tail)
            continue
        if event == "end":
            if el is skipped:  # a hidden block breaks no run: a browser searches past it
                skipped = None
            elif tag in blocks:
                if buf:
                    flush()
                section = closes.get(el, section)
            tail = el.tail
            if tail:
                buf.append(tail)
            continue
        if tag in invisible or (may_hide and _hidden_by_attributes(el)) or (
                tag == "a" and el.get("class") == PERMALINK_CLASS):
            walker.skip_subtree()
            skipped = el
            continue
        if tag in blocks:
            if buf:
                flush()
            section = opens.get(el, section)
        elif tag == "br":
            buf.append(" ")
        ident = el.get("id")
        if ident:
            ids.setdefault(ident, len(runs))
        if tag == "a":
            name = el.get("name")
            if name:
                ids.setdefault(name, len(runs))
        text = el.text
        if text:
            buf.append(text)
    flush()
    return tuple(runs), ids
