"""Reading a page: bytes into an lxml tree, and the words and text helpers every extractor here shares.

:func:`parse_html` decodes a page (the given encoding, else its BOM's, else its ``<meta charset>``, else UTF-8;
bad bytes replaced) and parses it with one lxml parser per thread, nesting capped at :data:`MAX_DEPTH`. The rest is
the vocabulary that the page parse (:mod:`crawlers.parse.extract`) and the section walk (:mod:`crawlers.parse.sections`)
read a tree with: heading and block tags, permalink glyphs, an element's text and how much of it is link text.
"""

from __future__ import annotations

import re
import string
import threading
from collections.abc import Iterator

from lxml import etree

_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)

MAX_DEPTH = 256  # libxml2's nesting limit without huge_tree (kept off: it also caps memory on hostile pages)
HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
# Block elements: their start and end break paragraphs in section text.
BLOCKS = frozenset(
    """p div ul ol dl dd table thead tbody tfoot tr blockquote section article header footer
    figure figcaption hr address details summary form fieldset center main aside caption""".split()
)
# Elements that start a line of code laid out in elements rather than newlines, and those that indent theirs a level.
CODE_LINES = BLOCKS | {"li", "dt", "br", "pre"}
CODE_INDENTS = frozenset({"ul", "ol", "dl", "blockquote"})
CODE_INDENT = "  "
PERMALINK_CHARS = "¶§#🔗 \t\n\u00b6\u200b"
# An element at least this long (characters, whitespace not counted) whose text is at least this share link text,
# within the page or not, is a list of links: as the main region, a table of contents and not the page (Texinfo's
# div.contents); as a section, a page's table of contents in its header or a list of sub-pages, which keeps only
# its prose (crawlers.parse.section_text).
LINK_LIST_MIN_CHARS = 200
LINK_LIST_SHARE = 0.85
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
_XML_DECL = re.compile(r"^\s*<\?xml[^>]*\?>")
_TOO_DEEP = "data-docbot-too-deep"
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


def parse_html(html: bytes | str, encoding: str | None) -> etree._Element | None:
    """The page's tree, or None when there is nothing to parse; never raises on broken HTML."""
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
        root.set(_TOO_DEEP, "1")  # read back by nested_too_deep(); the parser's error log is gone by then
    return root


def rel_words(el: etree._Element) -> frozenset[str]:
    """The keywords of an element's ``rel`` (a set of words, ASCII case-insensitive: ``rel="StyleSheet"`` counts)."""
    return frozenset((el.get("rel") or "").translate(_ASCII_LOWER).split())


def in_document(root: etree._Element, *tags: str) -> Iterator[etree._Element]:
    """The elements named ``tags`` anywhere in ``root``'s document, as an XPath ``//a`` finds them: libxml2 puts what a
    page has after its ``</html>`` (a link a template appended) in a second ``<html>`` beside the root, where a browser
    shows it at the end of the body."""
    for top in (root, *root.itersiblings()):
        yield from top.iter(*tags)


def nested_too_deep(root: etree._Element) -> bool:
    """Whether the parser dropped elements nested deeper than :data:`MAX_DEPTH` (see :func:`parse_html`)."""
    return root.get(_TOO_DEEP) is not None


def _utf8_as_is(html: bytes, encoding: str) -> bool:
    """Bytes in ``encoding`` (see :func:`_encoding`) that :func:`_decode` would change no more than
    decoding them as UTF-8 does."""
    if encoding.lower().replace("_", "-") not in ("utf-8", "utf8"):
        return False
    return b"\x00" not in html and html.lstrip()[:5] != b"<?xml"


# The links link_text counts (``el`` itself included, as el.iter("a") has it), found by libxml2
_LINKS_OUT = etree.XPath("descendant-or-self::a[@href != '' and not(starts-with(@href, '#'))]")
_LINKS_ANY = etree.XPath("descendant-or-self::a[@href != '']")


def link_text(el: etree._Element, within_page: bool = False) -> tuple[int, int]:
    """(characters of text in ``el``, of them inside links to other pages, or to any place with ``within_page``),
    whitespace not counted. A link nested in a link counts twice."""
    total = len("".join(text_of(el).split()))
    links = _LINKS_ANY(el) if within_page else _LINKS_OUT(el)
    linked = sum(len("".join(text_of(a).split())) for a in links)
    return total, linked


def has_text(el: etree._Element) -> bool:
    """Whether ``el`` holds any text besides permalink glyphs and spaces (stops at the first that counts)."""
    return any(piece.strip(PERMALINK_CHARS) for piece in el.itertext())


def text_of(el: etree._Element) -> str:
    """All text inside ``el`` (its tail excluded), gathered by libxml2: ``"".join(el.itertext())``, faster."""
    text: str = etree.tostring(el, method="text", encoding=str, with_tail=False)
    return text


def holds_lines(el: etree._Element) -> bool:
    """Whether ``el`` holds elements that break lines (a ``<code>`` that is a block of code, not a word of a sentence)."""
    # Scanned here, not with el.iterdescendants(*CODE_LINES): lxml sets up its matcher for the 36 names on every call,
    # which costs five times this scan of the few spans a <code> holds (measured over python3.11-doc's 87k <code>s)
    return any(node.tag in CODE_LINES for node in el.iterdescendants())


def lines_of(el: etree._Element) -> str:
    """The text of ``el`` a line for each element in :data:`CODE_LINES`, indented a level for each list it sits in:
    code laid out in elements instead of newlines (Redoc's JSON samples: ``<code>`` holding one ``<li>`` a key)."""
    lines: list[str] = []
    line: list[str] = []
    depth = at = 0

    def end_line() -> None:
        text = " ".join("".join(line).split())
        if text:
            lines.append(CODE_INDENT * at + text)
        line.clear()

    def put(text: str | None) -> None:
        nonlocal at
        if text and text.strip():
            if not "".join(line).strip():
                at = depth  # the line's indent: the depth where its first word sits
            line.append(text)

    for event, node in etree.iterwalk(el, events=("start", "end")):
        tag = node.tag if isinstance(node.tag, str) else ""
        if event == "start":
            if tag in CODE_LINES:
                end_line()
            depth += tag in CODE_INDENTS
            if tag:
                put(node.text)
            continue
        depth -= tag in CODE_INDENTS
        if tag in CODE_LINES:
            end_line()
        if node is not el:
            put(node.tail)
    end_line()
    return "\n".join(lines).replace("\xa0", " ")
