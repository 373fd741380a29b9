"""Is a page's static HTML an application shell, whose content only a browser renders? Decided by evidence.

A pure function over the bytes the static fetcher got (:func:`shell_evidence`): a known app root of a docs generator
that renders in the browser (:data:`APP_ROOTS`: Redoc, Swagger UI, docsify) with little text, or a body of scripts
and almost no text. Static documentation (Sphinx, MkDocs, Javadoc…) has neither, and is read as served: the check
costs a scan of the first few hundred characters of text on most pages (an lxml parse only when the page has
almost none), and it never starts a browser.

Adding a generator that renders in the browser: one :class:`AppRoot` here (how its shell is recognised, and which
element shows it has rendered; its ``routes`` or ``entries`` when its deep links are routes, not element ids), and a
test over its real package like ``tests/crawlers/test_render_redoc.py``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lxml import etree

from crawlers.fetch.entries import Entries, has_class
from crawlers.fetch.routes import Routes
from crawlers.fetch.virtual import VirtualList
from crawlers.model import SourceType
from crawlers.parse.html import parse_html

SHELL_TEXT = 120  # visible characters (scripts, styles, noscript and templates left out) below which a page is a shell
SMALL_PAGE = 64 * 1024  # bytes: a page without an app root and larger than this is content, not parsed a second time
SCAN_BYTES = 256 * 1024  # how far into the page an app root is looked for
_TEXT = etree.XPath("//body//text()[not(ancestor::script or ancestor::style or ancestor::noscript or ancestor::template)]",
                    smart_strings=False)
_SCRIPTS = etree.XPath("count(//script)")
_BODY = re.compile(rb"<body[\s>]", re.I)
# a run of text between tags, or a whole element whose text is not shown (skipped)
_RUN = re.compile(rb"<(script|style|noscript|template)\b.*?</\1\s*>|>([^<]+)", re.I | re.S)


@dataclass(frozen=True, slots=True)
class Spec:
    """Where a shell names the API description its app loads: in its own HTML, or in a script it loads (a config)."""

    url: re.Pattern[bytes]  # group 1 is the description's URL, relative to the page
    config: re.Pattern[bytes] | None = None  # group 1 is the src of a script of the shell to look in as well


@dataclass(frozen=True, slots=True)
class AppRoot:
    """How the static shell of a generator that renders in the browser is recognised, and when it has rendered."""

    generator: str
    marker: re.Pattern[bytes]  # found in its static HTML
    ready: str  # a CSS selector matched once the app has rendered its content
    links: str  # the form of its deep links, as a browser follows them
    source_type: SourceType | None = None  # what its pages are; None: as their markup says
    routes: Routes | None = None  # its pages are hash routes of the one URL (crawlers.fetch.routes)
    entries: Entries | None = None  # it renders its entries collapsed, and lands on them by routes (.entries)
    lands: re.Pattern[str] | None = None  # the element ids it scrolls to (matched from the start); None: every id
    spec: Spec | None = None  # where its shell names the API description it renders (its size scales the limits)


APP_ROOTS: tuple[AppRoot, ...] = (
    # Redoc 2 gives every section an element whose id is its deep link: section/<name>, tag/<tag>,
    # tag/<tag>/operation/<operationId>, and inside that an element operation/<operationId> for Redoc 1's links.
    # Only those: a heading inside a description (<h2 id="stream-format">) has an id Redoc never scrolls to (the
    # page stays at its top, measured in Chromium), so it is no anchor and its text stays in the operation's section.
    AppRoot("Redoc", re.compile(rb"<redoc[\s>]", re.I), "[data-section-id]",
            "#tag/<tag>/operation/<operationId> and #operation/<operationId>: element ids of the rendered DOM",
            SourceType.API_REFERENCE, lands=re.compile(r"(?:section|tag|operation|schema)/"),
            spec=Spec(re.compile(rb"""<redoc\b[^>]*?\sspec-url\s*=\s*["']([^"']+)["']""", re.I))),
    # Swagger UI (deepLinking: true) lands on an operation by the route #/<tag>/<operationId>, expanding it and
    # scrolling to it once rendered, and on a tag by #/<tag>; its element ids (operations-<tag>-<operationId>,
    # operations-tag-<tag>) land nowhere (it rewrites #<id> to the route #/<id>). It renders an operation collapsed,
    # its summary a button, its description only once expanded: the browser expands every one, and the page is
    # composed with the routes as its ids, an operation's summary as its heading (crawlers.fetch.entries).
    AppRoot("Swagger UI", re.compile(rb"""id\s*=\s*["']swagger-ui["']""", re.I), "#swagger-ui .opblock",
            "#/<tag>/<operationId> and #/<tag> (deepLinking: true): routes, not element ids",
            SourceType.API_REFERENCE,
            # SwaggerUIBundle({url: "…"}) inline, or in swagger-initializer.js (swagger-ui-dist 4.9 and later)
            spec=Spec(re.compile(rb"""SwaggerUIBundle\(\s*\{[^}]*?\burl\s*:\s*["']([^"']+)["']"""),
                      re.compile(rb"""<script\b[^>]*?\ssrc\s*=\s*["']([^"']*initializer[^"']*\.js)["']""", re.I)),
            entries=Entries(
                # a collapsed tag (docExpansion "none"; in a virtualized list a tag is its h3 alone, data-is-open
                # saying whether it is open) and a collapsed operation (the default, "list"). A deprecated
                # operation never has the class is-open (it is "opblock opblock-deprecated" open or not): its control's
                # aria-expanded says it is open, or it would be clicked shut again on every round
                ".opblock-tag-section:not(.is-open) > .opblock-tag, .opblock-tag[data-is-open='false'], "
                ".opblock:not(.is-open) > .opblock-summary > .opblock-summary-control:not([aria-expanded='true'])",
                intro=f"//*[{has_class('information-container')}]",
                heading=f"//*[{has_class('opblock-tag')}]",
                entry=f"//*[{has_class('opblock')}][not(ancestor::*[{has_class('opblock')}])]",  # not a callback's
                summary=f"*[{has_class('opblock-summary')}]",
                title=f"string(.//*[{has_class('opblock-summary-description')}])",
                signature=f"concat(string(.//*[{has_class('opblock-summary-method')}]), ' ',"
                          f" string(.//*[{has_class('opblock-summary-path')} or"
                          f" {has_class('opblock-summary-path__deprecated')}]/@data-path))",
                body=f".//*[{has_class('opblock-body')}]",
                # swagger-ui-dist 5.35 renders a list of 150 tags and operations or more virtualized: only those in
                # view (and three around) are in the DOM, numbered by data-index (of GitHub's 1,223 operations, 4)
                # an operation opened renders its body empty (.execute-wrapper alone) until Swagger UI has resolved
                # its part of the description, some 0.1-0.4 s later: then it has its responses
                virtual=VirtualList(".operations-virtual", ".operations-virtual__item",
                                    pending=".opblock-body:not(:has(.responses-wrapper))"),
                # it splits a route at every "/" and reads a tag and an operationId: a tag or operationId with a "/"
                # (GitHub's "repos/get") lands nowhere, the hash cut to two parts and the page left at its top
                group_lands=re.compile(r"/[^/]+"), entry_lands=re.compile(r"/[^/]+/[^/]+"))),
    # docsify renders each page (#/<page>, its Markdown fetched) into article.markdown-section and gives a heading
    # the id of its slug, but a browser lands on it by the route #/<page>?id=<slug>, which docsify scrolls to once
    # the page has rendered: the map records that route form (the heading's own link in the DOM says the same).
    # Its routes are found in the rendered pages' links, each rendered in a tab (crawlers.fetch.routes).
    AppRoot("docsify", re.compile(rb"window\.\$docsify", re.I), ".markdown-section > *",
            "#/<page>?id=<heading-id>: a route, not an element id",
            routes=Routes("//*[contains(concat(' ', normalize-space(@class), ' '), ' markdown-section ')]",
                          "{route}?id={id}",
                          # a page whose Markdown is not there: docsify renders <h1>404 - Not found</h1>
                          "boolean(*[1][self::h1][not(@id)][normalize-space() = '404 - Not found'])")),
)


@dataclass(frozen=True, slots=True)
class Shell:
    """Evidence that a page is an application shell: what was found, and what shows the app has rendered."""

    reason: str
    ready: str | None  # a CSS selector, None for an unknown app (the DOM settling is the only sign)
    generator: str | None = None
    source_type: SourceType | None = None
    root: AppRoot | None = None


def shell_evidence(body: bytes, encoding: str | None = None) -> Shell | None:
    """The evidence that ``body`` is an application shell, or None when it is a page to read as served."""
    if _has_text(body, SHELL_TEXT):
        return None  # most pages stop here, a few hundred bytes into their body, without a parse
    root = next((r for r in APP_ROOTS if r.marker.search(body, 0, SCAN_BYTES)), None)
    if root is None and len(body) > SMALL_PAGE:
        return None
    tree = parse_html(body, encoding)
    if tree is None:
        return None
    chars = sum(len(t.strip()) for t in _TEXT(tree))
    if chars >= SHELL_TEXT:
        return None
    if root is not None:
        return Shell(f"{root.generator} app root, {chars} characters of text", root.ready, root.generator,
                     root.source_type, root)
    scripts = int(_SCRIPTS(tree))
    if scripts == 0:
        return None  # a short page, not an application
    return Shell(f"script-only body ({scripts} scripts, {chars} characters of text)", None)


def _has_text(body: bytes, chars: int) -> bool:
    """Whether the body's text between tags (scripts and styles left out) reaches ``chars`` non-blank characters: a
    scan that stops there, so a page of content is told apart without parsing it."""
    found = _BODY.search(body)
    count = 0
    for match in _RUN.finditer(body, found.end() if found else 0):
        run = match.group(2)
        if run is not None:
            count += len(run.strip())
            if count >= chars:
                return True
    return False
