"""An app that renders its entries collapsed and lands on them by hash routes (Swagger UI with ``deepLinking: true``).

Swagger UI renders an operation as a collapsed row (its summary is a button, not a heading) whose description,
parameters and responses are in the DOM only once it is expanded. A browser lands on an operation by the route
``#/<tag>/<operationId>`` (Swagger UI expands it and scrolls to it once rendered) and on a tag by ``#/<tag>``; its
element ids (``operations-<tag>-<operationId>``, ``operations-tag-<tag>``) are no place a link can land on: loaded as
a fragment, Swagger UI rewrites it to a route of that name and stays at the top (measured with swagger-ui-dist 5).

The browser expands every entry (:attr:`Entries.expand`, clicked in :mod:`crawlers.fetch.browser`) and
:func:`compose_entries` then writes the rendered DOM as one document whose ids are those routes: an intro, then each
group under a heading whose id is its route, each entry under a heading whose id is its route, its title the entry's
summary and its signature (method and path) the first line of its text. Every other id is left out, since no link
lands on it, and the headings inside an entry (Parameters, Responses, its description's own) are put below it. A group
is its heading and the entries after it, so the nested list of a short API and the flat virtualized list of a long
one (its items read while mounted, :mod:`crawlers.fetch.virtual`) compose alike. A route the app cannot follow
(Swagger UI splits a route at every "/": GitHub's operationId "repos/get") is no id: its entry is a section inside its
group's. The extractor then reads that document as any other page: its anchors, sections and links are the routes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import unquote

from lxml import etree, html

from crawlers.fetch.virtual import VirtualList
from crawlers.parse.html import HEADINGS, parse_html, text_of

GROUP_LEVEL = 2  # a group (a tag) is an h2 of the composed document, an entry an h3, a heading inside either an h4


def has_class(name: str) -> str:
    """An XPath test that an element has the class ``name``."""
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {name} ')"


@dataclass(frozen=True, slots=True)
class Entries:
    """Where an app's collapsed entries and their groups are, and how the browser expands them."""

    expand: str  # CSS selector of a control that expands something collapsed: the browser clicks each, once
    intro: str  # XPath of what comes before the groups (the API's title and description)
    heading: str  # XPath of a group's heading: the entries after it, up to the next, are its own
    entry: str  # XPath of an entry
    summary: str  # XPath, inside an entry, of the row that names it (the collapsed part)
    title: str  # XPath (a string), inside an entry, of its title
    signature: str  # XPath (a string), inside an entry, of what it is (its method and path)
    body: str  # XPath, inside an entry, of what expanding it shows
    route: str = ".//a[starts-with(@href, '#/')]"  # XPath, inside a heading or a summary, of its link to its route
    controls: frozenset[str] = frozenset({"button", "select", "input", "textarea", "svg"})  # the app's, not content
    virtual: VirtualList | None = None  # the list it renders only in part when long, read by scrolling (.virtual)
    # the routes the app lands on, of a group and of an entry (matched whole; None: any): a route of another form is
    # no anchor, its entry a section inside its group's
    group_lands: re.Pattern[str] | None = None
    entry_lands: re.Pattern[str] | None = None


def route_link(element: etree._Element, entries: Entries) -> tuple[str, str] | None:
    """(the route ``element`` links to as its own, decoded: ``#/Session%20(experimental)`` → ``/Session
    (experimental)``; the link's text), or None when it has none."""
    found = element.xpath(entries.route)
    if not found:
        return None
    return unquote(str(found[0].get("href"))[1:]), " ".join(text_of(found[0]).split())


def compose_entries(rendered: str, entries: Entries, items: Sequence[str] = ()) -> str:
    """The rendered page as one document whose ids are the routes of its groups and entries (see the module);
    ``items``: every item of its virtualized list, read while mounted, in order (:mod:`crawlers.fetch.virtual`),
    which stand for the few the page holds."""
    tree = parse_html(rendered, "utf-8")
    doc = html.fromstring("<!DOCTYPE html><html><head><meta charset='utf-8'><title></title></head>"
                          "<body><main></main></body></html>")
    if tree is None:
        return _html(doc)
    doc.find("head/title").text = str(tree.xpath("string(//title)")).strip()
    main = doc.find("body/main")
    for intro in tree.xpath(entries.intro)[:1]:
        main.append(_below(_no_ids(intro), GROUP_LEVEL + 1))
    listed = _listed(items) if items else tree
    headings = set(listed.xpath(entries.heading))
    section: etree._Element | None = None
    for found in listed.xpath(f"{entries.heading} | {entries.entry}"):  # in document order
        if found in headings:
            section = _compose_group(main, found, entries)
        elif section is not None:
            _compose_entry(section, found, entries)
    return _html(doc)


def _listed(items: Sequence[str]) -> etree._Element:
    """The items of a virtualized list, in order, as the children of one element."""
    holder = html.fromstring("<div></div>")
    for item in items:
        holder.append(html.fragment_fromstring(item))
    return holder


def _compose_group(main: etree._Element, heading: etree._Element, entries: Entries) -> etree._Element | None:
    """A group's section (its heading's id its route, when the app lands there), or None when it has no route."""
    link = route_link(heading, entries)
    if link is None:
        return None
    section = etree.SubElement(main, "section")
    head = etree.SubElement(section, f"h{GROUP_LEVEL}")
    if _lands(link[0], entries.group_lands):
        head.set("id", link[0])
    head.text = link[1] or link[0]
    for part in heading:  # its description (a tag's own words), not its link or its buttons
        if part.tag != "a" and part.tag not in entries.controls and text_of(part).strip():
            section.append(_below(_no_ids(part), GROUP_LEVEL + 2))
    return section


def _lands(route: str, lands: re.Pattern[str] | None) -> bool:
    return lands is None or lands.fullmatch(route) is not None


def _compose_entry(section: etree._Element, entry: etree._Element, entries: Entries) -> None:
    summary = entry.xpath(entries.summary)
    link = route_link(summary[0], entries) if summary else None
    if link is None:
        return
    signature = " ".join(str(entry.xpath(entries.signature)).split())
    title = " ".join(str(entry.xpath(entries.title)).split()) or signature
    head = etree.SubElement(section, f"h{GROUP_LEVEL + 1}")
    if _lands(link[0], entries.entry_lands):
        head.set("id", link[0])
    head.text = title
    if signature:
        line = etree.SubElement(etree.SubElement(section, "p"), "code")
        line.text = signature
    for body in entry.xpath(entries.body):
        section.append(_below(_no_ids(_no_controls(body, entries.controls)), GROUP_LEVEL + 2))


def landing_ids_only(page: str, lands: re.Pattern[str]) -> str:
    """The rendered ``page`` with only the ids its app scrolls to (``lands``): any other id would be an anchor that
    a link lands on nowhere (Redoc's headings inside a description)."""
    root = parse_html(page, "utf-8")
    if root is None:
        return page
    _drop_ids(root, lands)
    return str(html.tostring(root, encoding="unicode", doctype="<!DOCTYPE html>"))


def _no_ids(element: etree._Element) -> etree._Element:
    """``element`` with no id left inside it: none is a place a browser lands on in such an app."""
    _drop_ids(element, None)
    return element


def _drop_ids(element: etree._Element, lands: re.Pattern[str] | None) -> None:
    """Every id inside ``element`` removed, but those ``lands`` matches (None: all of them)."""
    for el in element.iter():
        if isinstance(el.tag, str) and "id" in el.attrib and not (lands and lands.match(str(el.attrib["id"]))):
            del el.attrib["id"]


def _no_controls(element: etree._Element, controls: frozenset[str]) -> etree._Element:
    """``element`` without the app's controls ("Try it out", a parameter's select): they say nothing of the API."""
    for el in [e for e in element.iter(*controls) if e is not element]:
        parent, previous = el.getparent(), el.getprevious()
        if parent is None:
            continue  # inside a control removed already
        if el.tail:  # the text after it stays
            if previous is not None:
                previous.tail = (previous.tail or "") + el.tail
            else:
                parent.text = (parent.text or "") + el.tail
        parent.remove(el)
    return element


def _below(element: etree._Element, level: int) -> etree._Element:
    """``element`` with every heading inside it at ``level`` or deeper (h6 at most), so it nests under its owner."""
    for el in element.iter(*HEADINGS):
        el.tag = f"h{min(6, max(level, int(el.tag[1])))}"
    return element


def _html(doc: etree._Element) -> str:
    body: str = etree.tostring(doc, encoding="unicode", method="html")
    return "<!DOCTYPE html>\n" + body
