"""Does a page lay its content out lazily (CSS ``content-visibility: auto``)? Then no text directive is safe on it.

An element with ``content-visibility: auto`` is laid out only when near the viewport; until then it takes its
``contain-intrinsic-size`` (Node.js's API pages: every ``<section>``, 5,000 px each). Chromium scrolls to a text
directive's match before the sections on the way are laid out, and the view ends up far from the quote: measured in
Chromium on Node's ``child_process.html#maxbuffer-and-unicode:~:text=…`` it stopped 7,400 px above the anchor, where the
bare ``#maxbuffer-and-unicode`` lands exactly (3 of 58 of a report's links on Node; none once the style was removed).
So a page whose style lays it out lazily gets the ``#fragment`` alone.

Pure: which style sheets a parsed page links (:func:`linked_sheets`), whether its own ``<style>`` elements and
``style`` attributes lay it out lazily (:func:`lazy_here`), and, for a style sheet's text, whether it does and what
it imports (:func:`read_sheet`). Fetching the sheets is the crawl's (:mod:`crawlers.crawl.styles`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from lxml import etree

from crawlers.parse.html import in_document, rel_words

_LAZY = re.compile(r"content-visibility\s*:\s*auto\b", re.IGNORECASE)
_LAZY_BYTES = re.compile(rb"content-visibility", re.IGNORECASE)  # a page without the words needs no closer look
_COMMENT = re.compile(r"/\*.*?(?:\*/|$)", re.DOTALL)
# @import url("x.css") screen;  @import 'x.css';
_IMPORT = re.compile(r"""@import\s+(?:url\(\s*)?["']?([^"')\s;]+)["']?\s*\)?\s*([^;]*);""", re.IGNORECASE)


class Sheet(NamedTuple):
    """What a style sheet's text says: whether it lays content out lazily, and the sheets it imports (absolute)."""

    lazy: bool
    imports: tuple[str, ...]


def lazy_here(html: bytes, root: etree._Element) -> bool:
    """Whether the page's own ``<style>`` elements or ``style`` attributes set ``content-visibility: auto``."""
    if not _LAZY_BYTES.search(html):
        return False
    if any(_LAZY.search(_uncommented(style.text or "")) for style in in_document(root, "style")
           if _for_screen(style.get("media"))):
        return True
    return any(_LAZY.search(el.get("style") or "") for el in root.iter() if el.get("style"))


def linked_sheets(root: etree._Element, resolve: Callable[[str], str | None]) -> tuple[str, ...]:
    """The absolute URLs of the style sheets the page links for the screen (``<link rel="stylesheet">``, not an
    alternate one, not ``media="print"``, and what its own ``<style>`` elements ``@import``), in order, each once."""
    hrefs: list[str] = []
    for el in in_document(root, "link", "style"):
        if not _for_screen(el.get("media")):
            continue
        if el.tag == "style":
            if "@import" in (el.text or ""):
                hrefs.extend(read_sheet(el.text or "", str).imports)
            continue
        rel = rel_words(el)
        href = el.get("href")
        if href is not None and "stylesheet" in rel and "alternate" not in rel:
            hrefs.append(href)
    found = (resolve(href) for href in hrefs)
    return tuple(dict.fromkeys(url.partition("#")[0] for url in found if url is not None))


def read_sheet(css: str, resolve: Callable[[str], str]) -> Sheet:
    """Whether the sheet ``css`` sets ``content-visibility: auto`` anywhere, and the sheets it imports for the screen
    (``resolve``: a relative URL against the sheet's own)."""
    text = _uncommented(css)
    imports = tuple(dict.fromkeys(resolve(href) for href, media in _IMPORT.findall(text) if _for_screen(media)))
    return Sheet(_LAZY.search(text) is not None, imports)


def _uncommented(css: str) -> str:
    return _COMMENT.sub(" ", css) if "/*" in css else css


def _for_screen(media: str | None) -> bool:
    """Whether a sheet with this media query may apply on a screen (anything but a query for print, speech alone)."""
    words = set(re.findall(r"[a-z]+", (media or "").lower()))
    return not words or not words <= {"print", "speech", "only", "and", "not"} or "not" in words
