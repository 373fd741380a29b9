"""Read a parsed page's visible text into block-level runs, each tagged with the section in effect there.

What a browser matches a text directive against (WICG "URL Fragment Text Directives", as Chrome, Safari and Firefox
do it): the rendered text of the whole document, not only its main region (a sidebar that repeats a sentence comes
first), across inline elements, never across a block boundary, without what is not rendered (the head, script,
style, template, noscript, ``hidden``, an inline ``display:none`` or ``visibility:hidden``, form controls) and
without Sphinx's permalink glyphs (``visibility: hidden`` in every Sphinx theme). Whitespace is collapsed; a no-break
space counts as a space and a soft hyphen as nothing, as find-in-page reads them. One pass over the tree the page
parse (:mod:`crawlers.parse.extract`) already holds.

What the model leaves out is not always what a browser leaves out: Chromium searches an SVG's ``<text>``, a ``hidden``
element that a style sheet shows, a declarative shadow root, a textarea's text and an input's value; a class may hide
what the model counts. So the text of every element left out that a browser might still search is kept aside, with
where it stands (:data:`HiddenPiece`): a directive's text must stand nowhere in it (:mod:`docbot.references.textfrag`).
What Chromium never searches is not kept (:data:`NEVER_SEARCHED`, measured construct by construct in Chromium 156 by
``scripts/probe_text_directives.py``). A ``<br>`` ends a run: an exact match stops there in Chromium.
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
# when the page's source may hold one (:func:`may_hide`).
_HIDING_STYLE = re.compile(r"(?:display\s*:\s*none|visibility\s*:\s*hidden)", re.I)
_DISPLAY_NONE = re.compile(rb"display\s*:\s*none")  # each starts with a literal: a fast scan of the lowered page
_VISIBILITY_HIDDEN = re.compile(rb"visibility\s*:\s*hidden")
_ATTRIBUTE_END = frozenset(b" \t\n\r>=/")
_SOFT_HYPHEN = "\xad"  # zero width: find-in-page reads past it
PERMALINK_CLASS = "headerlink"  # Sphinx's ¶: visibility: hidden until hovered, in every Sphinx theme
# Elements whose start may change the section in effect (a heading, an API entry's term), or whose end may (an API
# entry list, the main region): only they, and elements with an id or name, are looked up in ``opens`` and ``closes``.
_OPENERS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6", "dt"})
_SKIPPED = INVISIBLE_TAGS | {etree.Comment, etree.ProcessingInstruction, etree.Entity}
# Left out and never searched by Chromium (measured: scripts/probe_text_directives.py): their text is not kept aside.
# A template that declares a shadow root is rendered and searched, so it is kept (see _never_searched); an SVG's
# title and desc are tooltips, never searched; an embedded object's, frame's or media element's fallback content is
# skipped whether the embedded resource loads or not; a select's options are not searched.
NEVER_SEARCHED = frozenset("""head script style template meta link base noscript object embed iframe video audio
    canvas img picture source track map area select option datalist title desc""".split())
# Elements whose text a browser lays out apart from its neighbours' (an SVG's text and its labels, a form's options).
_SEPARATE = BLOCK_TAGS | {"text", "tspan", "textpath", "desc", "option", "td", "th", "li"}
# Past this much text left out on one page, none is kept and the page gets no directive: the guarantee needs it all.
MAX_HIDDEN_CHARS = 2_000_000

HiddenPiece = tuple[int, int, str]  # (run index, offset in that run's text, the text): text the model leaves out


def may_hide(html: bytes) -> bool:
    """Whether any element of the page may be hidden by its attributes (a false yes costs time, never a wrong run)."""
    low = html.lower()
    if _DISPLAY_NONE.search(low) or _VISIBILITY_HIDDEN.search(low):
        return True
    at = low.find(b"hidden")
    while at >= 0:
        if at and low[at - 1] in b" \t\n\r" and (at + 6 == len(low) or low[at + 6] in _ATTRIBUTE_END):
            return True
        at = low.find(b"hidden", at + 1)
    return False


def _hidden_by_attributes(el: etree._Element) -> bool:
    if el.get("hidden") is not None:
        return True
    style = el.get("style")
    return style is not None and _HIDING_STYLE.search(style) is not None


def _never_searched(el: etree._Element) -> bool:
    tag = el.tag
    if not isinstance(tag, str):
        return True
    return tag in NEVER_SEARCHED and not (tag == "template" and el.get("shadowrootmode") is not None)


def hidden_text(el: etree._Element) -> str:
    """The text of a left-out element that a browser might still search: script and style left out, whitespace
    collapsed, a space between elements laid out apart (an SVG's ``<text>`` elements, blocks, options)."""
    parts: list[str] = []
    walker = etree.iterwalk(el, events=("start", "end"))
    for event, node in walker:
        if event == "start":
            if node is not el and _never_searched(node):
                walker.skip_subtree()  # its end event still comes, and adds its tail
                continue
            if node.tag in _SEPARATE:
                parts.append(" ")
            if node.text and isinstance(node.tag, str):
                parts.append(node.text)
        else:
            if node.tag in _SEPARATE:
                parts.append(" ")
            if node is not el and node.tail:
                parts.append(node.tail)
    return " ".join("".join(parts).replace(_SOFT_HYPHEN, "").split())


class _LeftOut:
    """The text a page leaves out that a browser might still search, each piece where it stands."""

    def __init__(self) -> None:
        self.pieces: list[HiddenPiece] = []
        self.chars = 0

    def keep(self, el: etree._Element, run: int, buf: list[str]) -> None:
        """Keep what a browser might search of left-out ``el`` (an input's value, else :func:`hidden_text`), standing
        after ``buf``, the text so far of run ``run``."""
        if _never_searched(el):
            return
        tag = el.tag
        text = (el.get("value", "") if el.get("type", "").lower() != "hidden" else "") if tag == "input" \
            else hidden_text(el)
        if text:
            offset = len(" ".join("".join(buf).split())) if buf else 0
            self.pieces.append((run, offset, text))
            self.chars += len(text)

    def kept(self) -> tuple[HiddenPiece, ...] | None:
        """The pieces, or None past :data:`MAX_HIDDEN_CHARS` (the page then gets no directive)."""
        return tuple(self.pieces) if self.chars <= MAX_HIDDEN_CHARS else None


def visible_runs(
    root: etree._Element, opens: Mapping[etree._Element, int], closes: Mapping[etree._Element, int],
    may_hide: bool = True,
) -> tuple[str, tuple[int, ...], dict[str, int], tuple[HiddenPiece, ...] | None]:
    """(text, tags, ids, hidden) of the document, as :class:`crawlers.page_text.PageText` holds them: the runs joined
    with newlines, each run's section index, every id (and ``<a name>``) → the index of the run its element starts at,
    and the text left out that a browser might search (None when there is more than :data:`MAX_HIDDEN_CHARS`).

    ``opens``: element → the section index that starts with it (a heading, an API entry's ``dt``, a linked anchor);
    ``closes``: element → the section index in effect again after its end (an API entry's ``dl``, the main region);
    ``may_hide``: False when the page's source has no attribute that hides an element (see :func:`may_hide`).
    One pass, written for speed (it runs on every page of every crawl): the flush is inline.
    """
    runs: list[str] = []
    tags: list[int] = []
    ids: dict[str, int] = {}
    buf: list[str] = []
    add = buf.append
    left_out = _LeftOut()
    section = OUTSIDE
    skipped: etree._Element | None = None  # the element whose subtree was just skipped: its end event comes next
    invisible, blocks, openers = _SKIPPED, BLOCK_TAGS, _OPENERS
    body = root.find("body")
    walker = etree.iterwalk(body if body is not None else root, events=("start", "end"))
    for event, el in walker:
        tag = el.tag
        if event == "end":
            if el is skipped:  # a hidden block breaks no run: a browser searches past it
                skipped = None
            elif tag in blocks:
                if buf:
                    text = " ".join("".join(buf).split())
                    buf.clear()
                    if text:
                        runs.append(text)
                        tags.append(section)
                if closes:
                    section = closes.get(el, section)
            tail = el.tail
            if tail:
                add(tail)
            continue
        permalink = tag == "a" and el.get("class") == PERMALINK_CLASS
        if tag in invisible or (may_hide and _hidden_by_attributes(el)) or permalink:
            walker.skip_subtree()
            skipped = el
            if not permalink:  # a permalink's glyph is no sentence
                left_out.keep(el, len(runs), buf)
            continue
        if tag in blocks or tag == "br":  # an exact match stops at a line break in Chromium: it ends the run too
            if buf:
                text = " ".join("".join(buf).split())
                buf.clear()
                if text:
                    runs.append(text)
                    tags.append(section)
            if tag in openers:
                section = opens.get(el, section)
        ident = el.get("id")
        if ident:
            ids.setdefault(ident, len(runs))
        name = el.get("name") if tag == "a" else None
        if name:
            ids.setdefault(name, len(runs))
        if (ident or name) and tag not in openers:  # an anchor the page links to may start a section
            section = opens.get(el, section)
        text = el.text
        if text:
            add(text)
    if buf:
        text = " ".join("".join(buf).split())
        if text:
            runs.append(text)
            tags.append(section)
    joined = "\n".join(runs)
    return (joined.replace(_SOFT_HYPHEN, "") if _SOFT_HYPHEN in joined else joined), tuple(tags), ids, left_out.kept()
