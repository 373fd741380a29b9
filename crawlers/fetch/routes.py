"""The pages of an app that routes in the fragment (docsify: ``index.html#/guide``), gathered into one document.

Such a site is one URL: its pages are hash routes (``#/<page>``) that the app renders in place, and a place on a
page is a route too (``#/<page>?id=<heading-id>``), not an element id. The evidence that a link is a route is in
the rendered DOM: a same-document link whose fragment is a path (``#/…``). :func:`route_links` reads those off a
rendered page; the rendering fetcher renders each route (:mod:`crawlers.fetch.render`) and :func:`compose` gathers
their content into one document whose ids are the fragments a browser follows: each route's content in an element
whose id is the route, and every id inside it in the app's form (:attr:`Routes.anchor`). The extractor then reads
that document as any other page, so its anchors, sections and links are the routes themselves.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import unquote

from lxml import etree, html

from crawlers.parse.html import parse_html

MAX_ROUTES = 2000  # routes rendered for one app: a guard, far above a manual's page count


@dataclass(frozen=True, slots=True)
class Routes:
    """How an app's pages are routes: where a rendered route's content is, and the fragment of an id inside it."""

    content: str  # XPath of the element holding a rendered route's own content (not the app's sidebar or nav)
    anchor: str  # the fragment that lands on the element with id ``{id}`` of route ``{route}``
    missing: str  # XPath, inside the content, true when the app says the route's page does not exist


def route_of(fragment: str) -> str | None:
    """The route a same-document link's fragment names (``/guide?id=x`` → ``/guide``), or None when it is no route."""
    fragment = unquote(fragment)
    if not fragment.startswith("/"):
        return None
    return fragment.partition("?")[0] or "/"


def route_links(rendered: str | bytes) -> list[str]:
    """The routes a rendered page links to, in document order, each once."""
    tree = parse_html(rendered, "utf-8")
    if tree is None:
        return []
    found: dict[str, None] = {}
    for href in tree.xpath("//a/@href"):
        href = str(href).strip()
        if href.startswith("#"):
            route = route_of(href[1:])
            if route is not None:
                found.setdefault(route, None)
    return list(found)


def compose(title: str, pages: Iterable[tuple[str, str]], routes: Routes) -> str:
    """One document of every rendered route (``pages``: route, rendered HTML), each route's content in an element
    whose id is the route, every id inside it rewritten to the fragment a browser follows to it."""
    doc = html.fromstring("<!DOCTYPE html><html><head><meta charset='utf-8'><title></title></head>"
                          "<body><main></main></body></html>")
    doc.find("head/title").text = title
    main = doc.find("body/main")
    for route, rendered in pages:
        tree = parse_html(rendered, "utf-8")
        content = tree.xpath(routes.content) if tree is not None else []
        if not content or content[0].xpath(routes.missing):
            continue  # not rendered, or the app's "not found": a link to it would land on no content
        article = etree.SubElement(main, "article", id=route)
        for child in list(content[0]):
            for element in child.iter():
                own = element.get("id") if isinstance(element.tag, str) else None
                if own:
                    element.set("id", routes.anchor.format(route=route, id=own))
            article.append(child)
    body: str = etree.tostring(doc, encoding="unicode", method="html")
    return "<!DOCTYPE html>\n" + body


def title_of(rendered: str) -> str:
    tree = parse_html(rendered, "utf-8")
    found = tree.xpath("string(//title)") if tree is not None else ""
    return str(found).strip()
