"""What a page says about the sections it links to: each link's words and the sentence around them.

Every link names its target in words ("use ``select_related()`` to avoid a query per row"), and a site's
back-of-book index (Sphinx's ``genindex``, DocBook's ``bookindex``, Javadoc's ``index-all``, Texinfo's
indices) lists the terms its authors chose for each section. Both are read here by their shape, never by
generator: a link's own text, the sentence of its block that holds it (a paragraph, list item, definition
term or table row), and the terms of the entries it is nested under (an index's "abs › built-in function",
a definition list's term for its description). Pure: a parsed main region in, plain tuples out; the crawl
loop keeps those whose target is in scope and resolves each fragment to its section
(:func:`section_owners`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from urllib.parse import unquote

from lxml import etree

from crawlers.model import Mention
from crawlers.parse.chrome import is_chrome
from crawlers.parse.html import PERMALINK_CHARS, text_of
from crawlers.parse.section_text import ExtractedSection

# The element whose text a link's sentence is taken from: the nearest of these around it.
CONTEXT_BLOCKS = frozenset({"p", "li", "dt", "dd", "tr", "caption", "blockquote", "h1", "h2", "h3", "h4", "h5",
                            "h6", "figcaption", "summary", "td", "th"})
ENTRY_BLOCKS = frozenset({"li", "dd", "dt"})  # an index's entries and sub-entries nest in these
MAX_ENTRY_LEVELS = 2  # parent entries named ("abs" over "built-in function"); an index nests two or three deep
MAX_ENTRY_WORDS = 12  # a parent item longer than this is prose, not an index term
MAX_CONTEXT_WORDS = 40  # of the sentence around a link
MAX_TEXT_CHARS = 200  # of a link's own words
MAX_PER_PAGE = 50_000  # mentions kept per page (an index page has thousands; a runaway page no more)
_SENTENCE = re.compile(r"(?<=[.!?;])\s+(?=[A-Z0-9`\"'(\[])")

RawMention = tuple[str, str, str]  # (absolute link target with its fragment, link text, sentence around it)


def _clean(text: str) -> str:
    return " ".join(text.split()).strip(PERMALINK_CHARS).strip()


def _block(a: etree._Element, main: etree._Element) -> etree._Element | None:
    node = a.getparent()
    while node is not None and node is not main:
        if node.tag in CONTEXT_BLOCKS:
            if node.tag in ("td", "th"):  # a table cell says little alone: its row (an index entry and its page)
                row = node.getparent()
                return row if row is not None and row.tag == "tr" else node
            return node
        node = node.getparent()
    return None


def _head(el: etree._Element) -> str:
    """An entry's own words: its text before any nested list (an index term over its sub-entries)."""
    parts: list[str] = [el.text or ""]
    for child in el:
        if not isinstance(child.tag, str) or child.tag in ("ul", "ol", "dl", "table"):
            break
        parts.append(text_of(child))
        parts.append(child.tail or "")
    return _clean("".join(parts))


def _entry_terms(block: etree._Element, main: etree._Element) -> list[str]:
    """The terms of the entries ``block`` is nested under, innermost first (at most :data:`MAX_ENTRY_LEVELS`)."""
    terms: list[str] = []
    node = block
    while node is not None and node is not main and len(terms) < MAX_ENTRY_LEVELS:
        parent = node.getparent()
        if parent is None or parent is main:
            break
        if parent.tag == "li" and node.tag in ("ul", "ol", "dl"):
            head = _head(parent)
            if head and len(head.split()) <= MAX_ENTRY_WORDS:
                terms.append(head)
        elif node.tag == "dd":  # a description's term is the <dt> before it
            term = node.getprevious()
            while term is not None and term.tag != "dt":
                term = term.getprevious()
            if term is not None:
                head = _clean(text_of(term))
                if head and len(head.split()) <= MAX_ENTRY_WORDS:
                    terms.append(head)
        node = parent
    return terms


def _sentence(block_text: str, sentences: Sequence[str], link_text: str) -> str:
    """The sentence of ``block_text`` (split into ``sentences``) that holds ``link_text``, cut to
    :data:`MAX_CONTEXT_WORDS` around it."""
    chosen = next((s for s in sentences if link_text in s), block_text)
    words = chosen.split()
    if len(words) <= MAX_CONTEXT_WORDS:
        return chosen
    at = len(chosen[: max(chosen.find(link_text), 0)].split())
    start = max(0, min(at - MAX_CONTEXT_WORDS // 2, len(words) - MAX_CONTEXT_WORDS))
    return " ".join(words[start : start + MAX_CONTEXT_WORDS])


def _chrome_inside(a: etree._Element, main: etree._Element, skip: frozenset[etree._Element],
                   verdicts: dict[etree._Element, bool]) -> bool:
    path: list[etree._Element] = []
    node: etree._Element | None = a
    found = False
    while node is not None and node is not main:
        known = verdicts.get(node)
        if known is not None:
            found = known
            break
        path.append(node)
        if node in skip or is_chrome(node):
            found = True
            break
        node = node.getparent()
    for el in path:
        verdicts[el] = found
    return found


def page_mentions(main: etree._Element, resolve: Callable[[str], str | None],
                  skip: frozenset[etree._Element] = frozenset()) -> tuple[RawMention, ...]:
    """Every link of the main region outside chrome, as (target, text, sentence); ``resolve(href)`` makes a
    link absolute (or returns None to skip it). Repeats of the same (target, text, sentence) are dropped."""
    out: dict[RawMention, None] = {}
    texts: dict[etree._Element, tuple[str, list[str], int]] = {}  # a block's text, its sentences, its words
    verdicts: dict[etree._Element, bool] = {}
    for a in main.iter("a"):
        href = a.get("href")
        if not href or href == "#" or len(out) >= MAX_PER_PAGE:
            continue
        text = _clean(text_of(a))[:MAX_TEXT_CHARS]
        if not text or _chrome_inside(a, main, skip, verdicts):
            continue
        target = resolve(href)
        if target is None:
            continue
        block = _block(a, main)
        context = ""
        if block is not None:
            if block not in texts:  # read once per block: a paragraph or table row may hold many links
                whole = _clean(" ".join(text_of(cell) for cell in block) if block.tag == "tr" else text_of(block))
                texts[block] = (whole, _SENTENCE.split(whole), len(whole.split()))
            whole, sentences, words = texts[block]
            context = _sentence(whole, sentences, text)
            # An entry (a short list item or definition term) is named by the entries it is nested under; a
            # paragraph of prose in a definition is not (its term may be a long API signature).
            terms = _entry_terms(block, main) if block.tag in ENTRY_BLOCKS and words <= MAX_ENTRY_WORDS else []
            if terms:
                context = " › ".join([*reversed(terms), context])
        out.setdefault((target, text, context if context != text else ""), None)
    return tuple(out)


def section_owners(sections: Sequence[ExtractedSection]) -> dict[str, str | None]:
    """Every id of a page → the anchor of the section a link to it lands in (a section without an anchor of its
    own lends its nearest ancestor's, as chunking does; None: the page's top)."""
    owners: dict[str, str | None] = {}
    stack: list[tuple[int, str | None]] = []
    for s in sections:
        while stack and stack[-1][0] >= s.level:
            stack.pop()
        anchor = s.anchor if s.anchor else (stack[-1][1] if stack else None)
        stack.append((s.level, anchor))
        for ident in (s.anchor, *s.aliases, *s.inner_ids):
            if ident:
                owners.setdefault(ident, anchor)
    return owners


def resolve_mentions(
    source: str, raw: Sequence[RawMention], canonical: Callable[[str], str | None],
    owners: Mapping[str, Mapping[str, str | None]], known: Callable[[str], frozenset[str]],
    previous: Mapping[tuple[str, str], str | None],
) -> list[Mention]:
    """``source``'s links as records, each fragment resolved to the section it lands in.

    ``owners`` holds the id tables (:func:`section_owners`) of the pages parsed in this crawl; a page found
    unchanged keeps the resolution the last crawl made (``previous``, by (target, fragment)), else a fragment
    that is one of its section anchors (``known``) is its own section. Links to pages outside the map are dropped.
    """
    out: list[Mention] = []
    for link, text, context in raw:
        page, _, frag = link.partition("#")
        target = canonical(page)
        if target is None:
            continue
        fragment = frag or None
        section: str | None = None
        if fragment is not None:
            table = owners.get(target)
            if table is not None:  # the fragment as written, else decoded (unquote changes nothing without a %)
                if fragment in table:
                    section = table[fragment]
                elif "%" in fragment:
                    section = table.get(unquote(fragment))
            elif (target, fragment) in previous:
                section = previous[(target, fragment)]
            else:
                anchors = known(target)
                section = fragment if fragment in anchors else unquote(fragment) if unquote(fragment) in anchors else None
        out.append(Mention(source, target, fragment, section, text, context))
    return out
