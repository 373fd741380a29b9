"""Parse one HTML page (once, with lxml) into anchors, links, title and section tree.

Pure function: bytes in, plain data out. The ReferenceValidator's live check
reuses :func:`extract_anchors` so crawl and check never disagree about what
an anchor is. Works on the generators real sites use (Sphinx old and new,
MkDocs, DocBook, Docusaurus, rustdoc/Javadoc/Doxygen, plain HTML) by reading
what they put in the page; slugs are never generated.
"""

from __future__ import annotations

import functools
import logging
import re
import threading
from dataclasses import dataclass
from urllib.parse import unquote, urljoin

from lxml import etree

log = logging.getLogger(__name__)

MAX_SECTIONS = 20_000  # sections kept per page; the rest of a runaway page is ignored
MAX_SECTION_CHARS = 200_000  # clean text kept per section
MAX_API_TITLE = 80
SKIPPED_SCHEMES = ("javascript:", "mailto:", "tel:", "data:", "about:")
HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
# Block elements: their start and end break paragraphs in section text.
BLOCKS = frozenset(
    """p div ul ol dl dd table thead tbody tfoot tr blockquote section article header footer
    figure figcaption hr address details summary form fieldset center main aside caption""".split()
)
API_DL = frozenset({"py", "c", "cpp", "js", "rst", "java", "std", "http", "dj"})
CALLABLE_DL = frozenset({"function", "method", "classmethod", "staticmethod", "decorator", "decoratormethod", "coroutinefunction", "coroutinemethod"})
# rustdoc's item ids ("method.push", "impl-Debug"); Javadoc's "method-summary" and "method-detail" are not items
RUSTDOC_ANCHOR = re.compile(r"^(?:(method|tymethod|structfield|variant|associatedtype|associatedconstant)\.|(impl)-)")
PERMALINK_CHARS = "¶§#🔗 \t\n\u00b6\u200b"
TITLE_SEPARATORS = (" — ", " – ", " | ", " · ", " :: ")
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
_XML_DECL = re.compile(r"^\s*<\?xml[^>]*\?>")
_WS = re.compile(r"\s+")

MAIN_TAGS = ("main", "article", "div", "section")  # tags that can hold the main region
CHROME_TAGS = frozenset({"nav", "footer", "script", "style", "noscript", "template", "button"})
CHROME_ROLES = frozenset({"navigation", "search"})
CHROME_CLASSES = frozenset(
    """headerlink hash-link anchorjs-link permalink sphinxsidebar related md-sidebar md-content__button
    theme-edit-this-page edit-this-page edit-page theme-doc-toc-mobile theme-doc-breadcrumbs
    pagination-nav rst-footer-buttons sourcelink this-page-menu navheader navfooter table-of-contents
    theme-doc-toc-desktop topNav bottomNav subNav rightside srclink hideme
    listing_lines linenos lineno footer navpath nav-panel""".split()  # line-number columns; Doxygen's footer and
)  # path bar; Texinfo 7's node navigation
ANCHOR_LINK_CLASSES = frozenset({"anchor", "anchor-link", "toc-anchor", "header-anchor"})
BODY_CHROME_TAGS = frozenset({"header", "aside"})
_MAIN_PRIORITY = ("role", "main", "main-content", "body", "article", "md-content", "content", "document", "contents")
_ANCHOR_XPATH = etree.XPath("//@id | //a/@name", smart_strings=False)  # plain str: no link back to the tree
_HREF_XPATH = etree.XPath("//a/@href | //area/@href", smart_strings=False)
_BASE_XPATH = etree.XPath("//base/@href", smart_strings=False)
# Doxygen's page title, outside its main region (and the only one when the page has no <title>)
_HEADER_TITLE = etree.XPath("//div[contains(concat(' ', @class, ' '), ' headertitle ')]"
                            "//div[contains(concat(' ', @class, ' '), ' title ')]")
_CANONICAL_XPATH = etree.XPath(
    "//link[@href and contains(concat(' ', translate(@rel, 'CANONICAL', 'canonical'), ' '), ' canonical ')]/@href",
    smart_strings=False,
)


@dataclass(frozen=True, slots=True)
class ExtractedSection:
    """A heading or API/definition entry, in document order.

    ``anchor``: an id present in the page, or None; ``path``: titles from the
    page title down to this section (inclusive); ``text``: clean text of the
    section's own content up to the next section (code blocks fenced with ```).
    ``aliases``: other ids that land on the same place (label spans, wrappers);
    ``inner_ids``: ids of elements inside the section's own content.
    """

    anchor: str | None
    title: str
    level: int
    path: tuple[str, ...]
    kind: str  # "heading" | "api"
    text: str
    aliases: tuple[str, ...] = ()
    inner_ids: tuple[str, ...] = ()


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


# Bumped whenever a change to extraction changes what a page yields (sections, texts, source types): the next crawl
# of a map written by another version parses every page again instead of trusting "304 Not Modified".
EXTRACTOR_VERSION = 4

# A page whose text is at least this share link text to other pages is navigation (a table of contents,
# Sphinx's genindex, DocBook's bookindex): its links are followed and its anchors valid, but its text answers
# nothing and is not indexed. Measured: such pages are 0.55-0.95 links; the pages that answer the dev
# set's and our unseen sites' questions at most 0.14.
NAVIGATION_LINK_SHARE = 0.5
NAVIGATION_MIN_CHARS = 200  # below this a page is too short to judge
# An element at least this long (characters, whitespace not counted) whose text is at least this share link text,
# within the page or not, is a list of links: as the main region, a table of contents and not the page (Texinfo's
# div.contents); as a section, a page's table of contents in its header or a list of sub-pages, which keeps only
# its prose (crawlers.extract_sections).
LINK_LIST_MIN_CHARS = 200
LINK_LIST_SHARE = 0.85
MAX_DEPTH = 256  # libxml2's nesting limit without huge_tree (kept off: it also caps memory on hostile pages)
_EMPTY = Extracted(title="", anchors=frozenset(), sections=(), links=(), source_type_hint=None)
_local = threading.local()


def _parser(utf8: bool = False) -> etree.HTMLParser:
    """One parser per thread (lxml parsers are not thread-safe); huge_tree off caps depth and size.

    ``utf8``: the parser for bytes already checked to be UTF-8 (libxml2 then reads them as they are,
    instead of converting a Python string back to UTF-8 first).
    """
    name = "utf8_parser" if utf8 else "parser"
    parser = getattr(_local, name, None)
    if parser is None:
        parser = etree.HTMLParser(
            remove_comments=True, remove_pis=True, no_network=True, huge_tree=False, encoding="utf-8" if utf8 else None
        )
        setattr(_local, name, parser)
    return parser


def _encoding(html: bytes, encoding: str | None) -> str:
    """The given encoding, else the BOM's, else ``<meta charset>``, else UTF-8."""
    if encoding:
        return encoding
    if html.startswith(b"\xef\xbb\xbf"):
        return "utf-8-sig"
    if html.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    m = _META_CHARSET.search(html[:4096])
    return m.group(1).decode("ascii", "replace") if m else "utf-8"


def _decode(html: bytes | str, encoding: str | None) -> str:
    """Bytes → text (see :func:`_encoding`); bad bytes replaced."""
    if isinstance(html, str):
        text = html
    else:
        enc = _encoding(html, encoding)
        try:
            text = html.decode(enc)
        except LookupError:
            text = html.decode("utf-8", "replace")
        except UnicodeDecodeError:
            text = html.decode(enc, "replace")
    if text.lstrip().startswith("<?xml"):
        text = _XML_DECL.sub("", text, count=1)  # lxml refuses str input with an encoding declaration
    return text.replace("\x00", "")


def _parse(html: bytes | str, encoding: str | None) -> etree._Element | None:
    text = None
    if isinstance(html, bytes):
        encoding = _encoding(html, encoding)  # looked for once; _decode takes it as given
        if _utf8_as_is(html, encoding):
            try:
                text = html.decode("utf-8")
            except UnicodeDecodeError:
                pass
    as_is = text is not None  # libxml2 reads the bytes themselves, without a round trip through str
    if text is None:
        text = _decode(html, encoding)
    if not text.strip():
        return None
    parser = _parser(utf8=as_is)
    try:
        root = etree.fromstring(html if as_is else text, parser)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError):
        return None
    if any(e.type_name == "ERR_RESOURCE_LIMIT" for e in parser.error_log):
        root.set(_TOO_DEEP, "1")  # read back by extract(); the parser's error log is gone by then
    return root


_TOO_DEEP = "data-docbot-too-deep"


def _utf8_as_is(html: bytes, encoding: str) -> bool:
    """Bytes in ``encoding`` (see :func:`_encoding`) that :func:`_decode` would change no more than
    decoding them as UTF-8 does."""
    if encoding.lower().replace("_", "-") not in ("utf-8", "utf8"):
        return False
    return b"\x00" not in html and html.lstrip()[:5] != b"<?xml"


def _anchors(root: etree._Element) -> frozenset[str]:
    anchors = set(_ANCHOR_XPATH(root))
    anchors.discard("")
    return frozenset(anchors)


def extract_anchors(html: bytes | str, encoding: str | None = None) -> frozenset[str]:
    """Every fragment target in the page: any element's ``id`` and ``<a name>``."""
    root = _parse(html, encoding)
    return _anchors(root) if root is not None else frozenset()


def extract(html: bytes | str, url: str, encoding: str | None = None) -> Extracted:
    """Parse a page fetched from ``url``. Never raises on broken HTML; returns empty parts instead."""
    root = _parse(html, encoding)
    if root is None:
        return _EMPTY
    anchors = _anchors(root)
    base = url
    for href in _BASE_XPATH(root)[:1]:
        base = urljoin(url, str(href).strip())
    links = _links(root, base)
    canonical = None
    for href in _CANONICAL_XPATH(root)[:1]:
        canonical = urljoin(base, str(href).strip())
    main, in_body = _main_region(root)
    html_title = clean_title(_text(root.find(".//title"))) or _text(next(iter(_HEADER_TITLE(root)), None))
    from crawlers.extract_sections import walk_sections  # it imports this module's constants

    sections, page_title, api_count, heading_count = walk_sections(main, anchors, html_title, _body_chrome(main, in_body))
    hint = "API reference" if api_count >= 3 and api_count > heading_count else None
    navigation = _is_navigation(main)
    too_deep = root.get(_TOO_DEEP) is not None
    if too_deep:
        log.warning("%s nests elements deeper than %d levels; headings and text below that depth are dropped",
                    url, MAX_DEPTH)
    return Extracted(
        title=page_title, anchors=anchors, sections=sections, links=links, source_type_hint=hint, canonical=canonical,
        too_deep=too_deep, navigation=navigation,
    )


def link_text(el: etree._Element, within_page: bool = False) -> tuple[int, int]:
    """(characters of text in ``el``, of them inside links to other pages, or to any place with ``within_page``),
    whitespace not counted."""
    total = len("".join("".join(el.itertext()).split()))
    linked = sum(len("".join("".join(a.itertext()).split())) for a in el.iter("a")
                 if a.get("href") and (within_page or not a.get("href", "").startswith("#")))
    return total, linked


def _is_navigation(main: etree._Element) -> bool:
    """Whether the main region is mostly links to other pages (see :data:`NAVIGATION_LINK_SHARE`)."""
    total, linked = link_text(main)
    return total >= NAVIGATION_MIN_CHARS and linked >= NAVIGATION_LINK_SHARE * total


def _links(root: etree._Element, base: str) -> tuple[str, ...]:
    seen: set[str] = set()
    out: list[str] = []
    base_page = base.partition("#")[0]
    base_dir = _directory(base_page)
    for raw in dict.fromkeys(_HREF_XPATH(root)):  # most pages repeat their links (sidebar, breadcrumbs, body)
        href = raw.strip()
        if not href or href == "#":
            continue
        if href[:11].lower().startswith(SKIPPED_SCHEMES):
            continue
        page, sep, frag = href.partition("#")
        try:
            if not page:
                joined = base_page
            elif page[0] == "?":
                joined = urljoin(base_page, page)
            else:  # resolved against the base's directory alone (RFC 3986 §5.2.2): shared across a site's pages
                joined = _join_in(base_dir, page)
        except ValueError:
            continue
        absolute = joined + sep + frag
        if absolute not in seen:
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


def _table_of_contents(el: etree._Element) -> bool:
    """A list of links (see :data:`LINK_LIST_SHARE`): Texinfo's ``div.contents`` is its table of contents, where
    Doxygen's holds the page."""
    total, linked = link_text(el, within_page=True)
    return total >= LINK_LIST_MIN_CHARS and linked >= LINK_LIST_SHARE * total


def _main_region(root: etree._Element) -> tuple[etree._Element, bool]:
    """The element holding the page's own content, and whether that is just ``<body>``."""
    best: tuple[int, etree._Element] | None = None
    for el in root.iter(*MAIN_TAGS):
        cls = el.get("class")
        ident = el.get("id")
        if el.get("role") == "main":
            key = "role"
        elif el.tag == "main":
            key = "main"
        elif ident == "main-content":
            key = "main-content"
        elif el.tag == "article":
            key = "article"
        elif ident == "content":
            key = "content"
        elif cls and el.tag == "div":
            classes = cls.split()
            if "body" in classes:
                key = "body"
            elif "md-content" in classes:
                key = "md-content"
            elif "document" in classes:
                key = "document"
            elif classes == ["contents"]:  # Doxygen's; Sphinx's local table of contents is "contents topic"
                key = "contents"
            else:
                continue
        else:
            continue
        rank = _MAIN_PRIORITY.index(key)
        if (best is None or rank < best[0]) and not (key == "contents" and _table_of_contents(el)):
            best = (rank, el)
            if rank == 0:
                break
    if best is not None:
        return best[1], False
    body = root.find("body")
    return (body if body is not None else root), True


def _class_verdict(cls: str) -> int:
    """0: content; 1: chrome; 2: chrome if it is a permalink glyph link; 3: chrome if it is an aside."""
    classes = set(cls.split())
    if classes & CHROME_CLASSES:
        return 1
    if classes & ANCHOR_LINK_CLASSES:
        return 2
    return 3 if ("toc" in cls or "sidebar-container" in cls) else 0


_VERDICTS: dict[str, int] = {}  # class attribute → verdict; class strings repeat across a site
MAX_VERDICTS = 50_000


_NODE_LINKS = etree.XPath("boolean(.//a[@rel='next' or @rel='prev' or @rel='up'])")


def is_chrome(el: etree._Element) -> bool:
    """Navigation, sidebars, permalink glyphs and "edit this page" links."""
    tag = el.tag
    if tag in CHROME_TAGS:
        return True
    role = el.get("role")
    if role and role in CHROME_ROLES:
        return True
    cls = el.get("class")
    if not cls:
        return False
    if cls == "header" and _NODE_LINKS(el):  # Texinfo's "Next: …, Up: …" over every node (Doxygen's header is its title)
        return True
    verdict = _VERDICTS.get(cls)
    if verdict is None:
        verdict = _class_verdict(cls)
        if len(_VERDICTS) < MAX_VERDICTS:
            _VERDICTS[cls] = verdict
    if verdict == 0:
        return False
    if verdict == 1:
        return True
    if verdict == 2:
        return tag == "a" and not has_text(el)
    return tag == "aside"


def has_text(el: etree._Element) -> bool:
    """Whether ``el`` holds any text besides permalink glyphs and spaces (stops at the first that counts)."""
    return any(piece.strip(PERMALINK_CHARS) for piece in el.itertext())


def text_of(el: etree._Element) -> str:
    """All text inside ``el`` (its tail excluded), gathered by libxml2: ``"".join(el.itertext())``, faster."""
    return etree.tostring(el, method="text", encoding=str, with_tail=False)


def _body_chrome(main: etree._Element, in_body: bool) -> frozenset[etree._Element]:
    """Page-level header and asides, dropped only when the main region is all of ``<body>``."""
    if not in_body:
        return frozenset()
    return frozenset(el for el in main if el.tag in BODY_CHROME_TAGS or el.get("role") in ("banner", "complementary"))


def _text(el: etree._Element | None) -> str:
    if el is None:
        return ""
    return _WS.sub(" ", "".join(el.itertext())).strip()


def clean_title(title: str) -> str:
    """``<title>`` without an obvious site suffix ("Quickstart — Flask Documentation" → "Quickstart")."""
    title = _WS.sub(" ", title).strip()
    for sep in TITLE_SEPARATORS:
        head, found, _ = title.partition(sep)
        if found and head.strip():
            return head.strip()
    return title


def unquote_fragment(href: str) -> str:
    """The fragment of a same-page ``href="#x"``, percent-decoded."""
    return unquote(href[1:]) if href.startswith("#") else ""
