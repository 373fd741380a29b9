"""Where a page's own content is, and what in and around it is chrome.

:func:`main_region` picks the element holding the page's content (``role="main"``, ``<main>``, the generators'
content wrappers, else ``<body>``); :func:`is_chrome` tells navigation, sidebars, permalink glyphs and "edit this
page" links from content, and :func:`chrome_free_text` reads an element's text without them. The page parse and the
section walk both skip what this module calls chrome.
"""

from __future__ import annotations

from lxml import etree

from crawlers.parse.html import LINK_LIST_MIN_CHARS, LINK_LIST_SHARE, PERMALINK_CHARS, has_text, link_text

MAIN_TAGS = ("main", "article", "div", "section")  # tags that can hold the main region
CHROME_TAGS = frozenset({"nav", "footer", "script", "style", "noscript", "template", "button"})
CHROME_ROLES = frozenset({"navigation", "search"})
CHROME_CLASSES = frozenset(
    """headerlink hash-link anchorjs-link permalink sphinxsidebar related md-sidebar md-content__button
    theme-edit-this-page edit-this-page edit-page theme-doc-toc-mobile theme-doc-breadcrumbs
    pagination-nav rst-footer-buttons sourcelink this-page-menu navheader navfooter table-of-contents
    theme-doc-toc-desktop topNav bottomNav subNav rightside srclink hideme
    listing_lines linenos lineno footer navpath nav-panel viewcode-link viewcode-back""".split()  # line-number
)  # columns; Doxygen's footer and path bar; Texinfo 7's node navigation; Sphinx's "[source]" and "[docs]" links
ANCHOR_LINK_CLASSES = frozenset({"anchor", "anchor-link", "toc-anchor", "header-anchor"})
BODY_CHROME_TAGS = frozenset({"header", "aside"})
_MAIN_PRIORITY = ("role", "main", "main-content", "body", "article", "md-content", "content", "document", "contents")


def _table_of_contents(el: etree._Element) -> bool:
    """A list of links (see :data:`LINK_LIST_SHARE`): Texinfo's ``div.contents`` is its table of contents, where
    Doxygen's holds the page."""
    total, linked = link_text(el, within_page=True)
    return total >= LINK_LIST_MIN_CHARS and linked >= LINK_LIST_SHARE * total


def main_region(root: etree._Element) -> tuple[etree._Element, bool]:
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
    tag: object = el.tag  # a str, or lxml's Comment/ProcessingInstruction factory for those nodes
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


def body_chrome(main: etree._Element, in_body: bool) -> frozenset[etree._Element]:
    """Page-level header and asides, dropped only when the main region is all of ``<body>``."""
    if not in_body:
        return frozenset()
    return frozenset(el for el in main if el.tag in BODY_CHROME_TAGS or el.get("role") in ("banner", "complementary"))


def _chrome_free_parts(el: etree._Element) -> str:
    """Text inside ``el`` (its tail excluded) without the chrome in it: permalinks, line numbers."""
    parts: list[str] = []
    walker = etree.iterwalk(el, events=("start", "end"))
    for event, node in walker:
        if event == "start":
            if node is not el and is_chrome(node):
                walker.skip_subtree()
            elif node.tag == "br":  # a line break parts words: "Uses of Package<br>org.jsoup", never "Packageorg.jsoup"
                parts.append("\n")
            elif node.text:
                parts.append(node.text)
        elif node is not el and node.tail:
            parts.append(node.tail)
    return "".join(parts)


def chrome_free_text_raw(el: etree._Element) -> str:
    """Text of ``el`` without chrome, spacing kept: a line of code."""
    return _chrome_free_parts(el).replace("\xa0", " ").rstrip()


def chrome_free_text(el: etree._Element) -> str:
    """Text of ``el`` without permalink chrome; whitespace collapsed."""
    return " ".join(_chrome_free_parts(el).split()).strip(PERMALINK_CHARS).strip()
