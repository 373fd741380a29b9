"""Parse one HTML page (once, with lxml) into anchors, links, title and section tree.

Pure function: bytes in, plain data out. The page is read by :mod:`crawlers.parse.html`, its main region found by
:mod:`crawlers.parse.chrome`, and its sections by the walk of :mod:`crawlers.parse.sections`; this module decides
the page-level parts: every anchor, the links, the title, the canonical URL, and whether the page is
navigation. The ReferenceValidator's live check reuses :func:`extract_anchors` so crawl and check never
disagree about what an anchor is. Works on the generators real sites use (Sphinx old and new, MkDocs,
DocBook, Docusaurus, rustdoc/Javadoc/Doxygen, plain HTML) by reading what they put in the page; slugs are
never generated.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from urllib.parse import urljoin

from lxml import etree

from crawlers.page_text import OUTSIDE
from crawlers.parse.anchor_sections import linked_here, with_elsewhere
from crawlers.parse.chrome import body_chrome, main_region
from crawlers.parse.html import MAX_DEPTH, in_document, link_text, nested_too_deep, parse_html, rel_words
from crawlers.parse.mentions import RawMention, page_mentions
from crawlers.parse.section_text import ExtractedSection
from crawlers.parse.sections import walk_sections
from crawlers.parse.styles import lazy_here, linked_sheets
from crawlers.parse.visible_text import may_hide, visible_runs
from crawlers.sourcetype import markup_hint

log = logging.getLogger(__name__)

SKIPPED_SCHEMES = ("javascript:", "mailto:", "tel:", "data:", "about:")
TITLE_SEPARATORS = (" — ", " – ", " | ", " · ", " :: ")
_WS = re.compile(r"\s+")
_EMPTY_HEAD = re.compile(r"^(?:[:|·—–-]+ )+")  # a title that starts with a separator: the site's name was empty
_ANCHOR_XPATH = etree.XPath("//@id | //a/@name", smart_strings=False)  # plain str: no link back to the tree
# Doxygen's page title, outside its main region (and the only one when the page has no <title>)
_HEADER_TITLE = etree.XPath("//div[contains(concat(' ', @class, ' '), ' headertitle ')]"
                            "//div[contains(concat(' ', @class, ' '), ' title ')]")
# A page's links, <base> and <link rel=canonical> are found by lxml's tag-filtered walk, whose names libxml2 matches in
# C: an XPath "//a/@href" first gathers every node of the page (0.32 → 0.11 CPU-s for the three over python3.11-doc).
# What a page links to: a frameset page's frames are its content (Javadoc's index.html before Java 11, gettext's C#
# docs); an <iframe> embeds into a page that has its own, and is not followed
_LINKING = {"a": "href", "area": "href", "frame": "src"}


@dataclass(frozen=True, slots=True)
class Extracted:
    title: str
    anchors: frozenset[str]
    sections: tuple[ExtractedSection, ...]
    links: tuple[str, ...]  # absolute URLs as found (fragment kept), in document order, deduplicated
    source_type_hint: str | None  # e.g. "API reference" when the page is mostly API entries
    canonical: str | None = None  # <link rel=canonical>, absolute
    too_deep: bool = False  # elements nested deeper than MAX_DEPTH were dropped by the parser
    navigation: bool = False  # mostly links to other pages: a table of contents or a back-of-book index
    mentions: tuple[RawMention, ...] = ()  # (link target, its text, the sentence around it): crawlers.parse.mentions
    # The page's visible text in block-level runs joined with newlines, each run's section index, and every id → the
    # run its element starts at (crawlers.page_text.PageText); none for navigation.
    run_text: str = ""
    run_tags: tuple[int, ...] = ()
    run_ids: Mapping[str, int] = field(default_factory=dict)
    # Text the runs leave out that a browser might search (SVG text, hidden elements…), as (run, offset, text); None
    # when there is too much to keep (crawlers.parse.visible_text.MAX_HIDDEN_CHARS).
    run_hidden: tuple[tuple[int, int, str], ...] | None = ()
    # The ids that start a section where they are if a link points at one (crawlers.parse.anchor_sections.may_start):
    # a link from another page to any other anchor changes nothing of the split (crawlers.crawl.cross_links.moves_split).
    starts: frozenset[str] = frozenset()
    # The style sheets it links for the screen, and whether its own styles lay it out lazily (crawlers.parse.styles)
    styles: tuple[str, ...] = ()
    lazy_here: bool = False


# Bumped whenever a change to extraction changes what a page yields (sections, texts, source types): the next crawl
# of a map written by another version parses every page again instead of trusting "304 Not Modified".
EXTRACTOR_VERSION = 15  # 5: what each link says about its target (crawlers.parse.mentions), each page's visible text; 6: the
# text left out of it that a browser might search (crawlers.parse.visible_text.hidden_text); 7: a section for every anchor
# the page links to (crawlers.parse.anchor_sections); 8: and for every anchor other pages link to (crawlers.crawl.cross_links);
# 9: a table row whose cells hold paragraphs is one line, a footnote is titled by its text, Sphinx's "[source]" links are
# chrome, a page whose headings name releases is release notes (crawlers.sourcetype.markup_hint); 10: a row of bare
# cells under a header row is one line too (crawlers.parse.table_rows), a term's title drops the colon after it, and a
# URL's words count run together ("change_log" is a changelog); 11: an <h1> linked to a
# place in a page is no banner, a definition's opening markers start their section at its terms, a frameset's frames
# are links, a <title>'s leading separator goes, an id on what holds a heading's text is the heading's; 12: an id that
# spells its heading's words (Javadoc 11's "method.summary" on "Method Summary") names no rustdoc method, and a
# heading with no text of its own over API entries ("Method Detail") is not counted against them (markup_hint), and a
# first heading that ends with the <title>'s name names the page ("Class Jsoup" for "Jsoup (jsoup … API)"), a <br>
# in a heading parts its words; 13: an <h1> that says the site's name the <title> gives after the page's is a banner;
# 14: headings that are signatures count as API entries (crawlers.sourcetype.markup_hint: Node.js's API pages); 15: the
# style sheets a page links and whether its styles lay it out lazily (crawlers.parse.styles)

# A page whose text is at least this share link text to other pages is navigation (a table of contents,
# Sphinx's genindex, DocBook's bookindex): its links are followed and its anchors valid, but its text answers
# nothing and is not indexed. Measured: such pages are 0.55-0.95 links; the pages that answer the dev
# set's and our unseen sites' questions at most 0.14.
NAVIGATION_LINK_SHARE = 0.5
NAVIGATION_MIN_CHARS = 200  # below this a page is too short to judge
_EMPTY = Extracted(title="", anchors=frozenset(), sections=(), links=(), source_type_hint=None)


def _anchors(root: etree._Element) -> frozenset[str]:
    anchors = set(_ANCHOR_XPATH(root))
    anchors.discard("")
    return frozenset(anchors)


def extract_anchors(html: bytes | str, encoding: str | None = None) -> frozenset[str]:
    """Every fragment target in the page: any element's ``id`` and ``<a name>``."""
    root = parse_html(html, encoding)
    return _anchors(root) if root is not None else frozenset()


def extract(html: bytes | str, url: str, encoding: str | None = None,
            elsewhere: frozenset[str] = frozenset()) -> Extracted:
    """Parse a page fetched from ``url``. Never raises on broken HTML; returns empty parts instead.

    ``elsewhere``: the page's anchors that other pages link to; they start sections as its own links' anchors do
    (:mod:`crawlers.parse.anchor_sections`)."""
    root = parse_html(html, encoding)
    if root is None:
        return _EMPTY
    anchors = _anchors(root)
    base = _base(root, url)
    resolve = _resolver(base)  # one for the page: its links, mentions and own links resolve the same hrefs
    links = _links(root, resolve)
    styles = linked_sheets(root, resolve)
    canonical_href = _canonical_href(root)
    canonical = urljoin(base, canonical_href.strip()) if canonical_href is not None else None
    main, in_body = main_region(root)
    chrome = body_chrome(main, in_body)
    navigation = _is_navigation(main)
    split = _split(root, main, chrome, base, resolve, url, anchors, elsewhere, navigation, _hiding(html))
    mentions = page_mentions(main, resolve, chrome)
    too_deep = nested_too_deep(root)
    if too_deep:
        log.warning("%s nests elements deeper than %d levels; headings and text below that depth are dropped",
                    url, MAX_DEPTH)
    return Extracted(
        title=split.title, anchors=anchors, sections=split.sections, links=links, source_type_hint=split.hint,
        canonical=canonical, too_deep=too_deep, navigation=navigation, mentions=mentions, run_text=split.run_text,
        run_tags=split.run_tags, run_ids=split.run_ids, run_hidden=split.run_hidden, starts=split.starts,
        styles=styles, lazy_here=lazy_here(html.encode() if isinstance(html, str) else html, root),
    )


@dataclass(frozen=True, slots=True)
class Split:
    """What of a page's extraction depends on the anchors other pages link to: the section walk and the tags it
    gives the visible text (:func:`split_again`)."""

    title: str
    sections: tuple[ExtractedSection, ...]
    hint: str | None
    run_text: str = ""
    run_tags: tuple[int, ...] = ()
    run_ids: Mapping[str, int] = field(default_factory=dict)
    run_hidden: tuple[tuple[int, int, str], ...] | None = ()
    starts: frozenset[str] = frozenset()


def split_again(html: bytes | str, url: str, encoding: str | None, elsewhere: frozenset[str],
                anchors: frozenset[str], navigation: bool) -> Split | None:
    """The :class:`Split` part of ``extract(html, url, encoding, elsewhere)``, for a page whose ``extract`` of the same
    body found ``anchors`` and ``navigation``: its links, mentions and the rest do not depend on ``elsewhere`` (no step
    of the extraction changes the tree, so leaving them out changes nothing). None when the page does not parse."""
    root = parse_html(html, encoding)
    if root is None:
        return None
    main, in_body = main_region(root)
    chrome = body_chrome(main, in_body)
    base = _base(root, url)
    return _split(root, main, chrome, base, _resolver(base), url, anchors, elsewhere, navigation, _hiding(html))


def _split(root: etree._Element, main: etree._Element, chrome: frozenset[etree._Element],
           base: str, resolve: Callable[[str], str | None], url: str, anchors: frozenset[str],
           elsewhere: frozenset[str], navigation: bool, hiding: bool) -> Split:
    """The section walk of the main region at the page's own links' anchors and ``elsewhere``, and the visible text
    tagged with its sections (none for navigation)."""
    html_title, site_name = title_parts(_text(root.find(".//title")))
    html_title = html_title or _text(next(iter(_HEADER_TITLE(root)), None))
    linked = linked_here(root, resolve, (base.partition("#")[0], url.partition("#")[0]), anchors)
    if elsewhere:
        linked = with_elsewhere(linked, elsewhere, anchors)
    opens: dict[etree._Element, int] = {}
    closes: dict[etree._Element, int] = {main: OUTSIDE}
    starts: set[str] = set()
    sections, page_title, api_count = walk_sections(main, anchors, html_title, chrome, opens, closes, linked, starts,
                                                    site_name=site_name)
    # A heading with no text of its own over API entries (Javadoc's "Method Detail") is their container, not a guide's
    # heading: counted, Javadoc's smaller classes had as many headings as entries and were typed as guides.
    holders = {sec.path[:i] for sec in sections if sec.kind == "api" for i in range(1, len(sec.path))}
    hint = markup_hint([sec.title for sec in sections if sec.kind == "heading"
                        and (sec.text.strip() or sec.path not in holders)], api_count)
    if navigation:
        return Split(page_title, sections, hint, starts=frozenset(starts))
    run_text, run_tags, run_ids, run_hidden = visible_runs(root, opens, closes, hiding)
    return Split(page_title, sections, hint, run_text, run_tags, run_ids, run_hidden, frozenset(starts))


def _base(root: etree._Element, url: str) -> str:
    """What the page's relative links are resolved against: its first ``<base href>``, else ``url``."""
    href = next((h for el in in_document(root, "base") if (h := el.get("href")) is not None), None)
    return urljoin(url, href.strip()) if href is not None else url


def _canonical_href(root: etree._Element) -> str | None:
    """The ``href`` of the page's first ``<link rel="canonical">`` (``rel`` is a list of words)."""
    for link in in_document(root, "link"):
        href: str | None = link.get("href")
        if href is not None and "canonical" in rel_words(link):
            return href
    return None


def _resolver(base: str) -> Callable[[str], str | None]:
    """:func:`_absolute` against ``base``, each href resolved once: a page repeats its links (sidebar, breadcrumbs,
    body), and its links, its mentions and its own-link lookup (:func:`linked_here`) each resolve them all."""
    base_page = base.partition("#")[0]
    base_dir = _directory(base_page)
    known: dict[str, str | None] = {}

    def resolve(raw: str) -> str | None:
        if raw not in known:
            known[raw] = _absolute(raw, base_page, base_dir)
        return known[raw]

    return resolve


def _hiding(html: bytes | str) -> bool:
    return not isinstance(html, bytes) or may_hide(html)


def _is_navigation(main: etree._Element) -> bool:
    """Whether the main region is mostly links to other pages (see :data:`NAVIGATION_LINK_SHARE`)."""
    total, linked = link_text(main)
    return total >= NAVIGATION_MIN_CHARS and linked >= NAVIGATION_LINK_SHARE * total


def _absolute(raw: str, base_page: str, base_dir: str) -> str | None:
    """``raw`` (an href) as an absolute URL with its fragment; None for what is no page link."""
    href = raw.strip()
    if not href or href == "#" or href[:11].lower().startswith(SKIPPED_SCHEMES):
        return None
    page, sep, frag = href.partition("#")
    try:
        if not page:
            joined = base_page
        elif page[0] == "?":
            joined = urljoin(base_page, page)
        else:  # resolved against the base's directory alone (RFC 3986 §5.2.2): shared across a site's pages
            joined = _join_in(base_dir, page)
    except ValueError:
        return None
    return joined + sep + frag


def _links(root: etree._Element, resolve: Callable[[str], str | None]) -> tuple[str, ...]:
    seen: set[str] = set()
    out: list[str] = []
    hrefs = (href for el in in_document(root, *_LINKING) if (href := el.get(_LINKING[el.tag])) is not None)
    for raw in dict.fromkeys(hrefs):  # most pages repeat their links (sidebar, breadcrumbs, body)
        absolute = resolve(raw)
        if absolute is not None and absolute not in seen:
            seen.add(absolute)
            out.append(absolute)
    return tuple(out)


def _directory(url: str) -> str:
    """``http://h/a/b.html?q`` → ``http://h/a/``: what a relative path is resolved against."""
    head = url.partition("?")[0]
    scheme_end = head.find("//") + 2 if "//" in head else 0
    cut = head.rfind("/")
    return head[: cut + 1] if cut >= scheme_end else head + "/"


@functools.lru_cache(maxsize=65_536)
def _join_in(directory: str, ref: str) -> str:
    """urljoin for references that are not empty and not query-only (the same links recur on every page)."""
    return urljoin(directory, ref)


def _text(el: etree._Element | None) -> str:
    if el is None:
        return ""
    return _WS.sub(" ", "".join(el.itertext())).strip()


def title_parts(title: str) -> tuple[str, str]:
    """The page's name and the site's (``""`` if none) in a ``<title>``: "Quickstart — Flask Documentation" →
    ("Quickstart", "Flask Documentation"); the separator left before the page's name by an empty site name goes
    (Javadoc's ": Class GettextResource" when no title was set)."""
    title = _EMPTY_HEAD.sub("", _WS.sub(" ", title).strip())
    for sep in TITLE_SEPARATORS:
        head, found, site = title.partition(sep)
        if found and head.strip():
            return head.strip(), site.strip()
    return title, ""
