"""A place on a page whose anchors are an app's hash routes (``Page.routes``: docsify's ``#/<page>?id=<heading>``).

A route fragment names a page of the app and a place on it. A wrong place (``#/guide?id=instal``) is repaired among
that route's own places only, by the same evidence as any other fragment (:func:`repair_on_page`,
:func:`rank_on_page`): the page is seen as one small page whose anchors are the route's ids, and what is found there
is written back in the route's form. Without this the words of the route itself would weigh as much as the heading's.
"""

from __future__ import annotations

import dataclasses

from crawlers.model import AnchorMap, Page
from docbot.references.fragments import Match
from docbot.references.repair import SiteIndex, rank_on_page, repair_on_page


def route_view(page: Page, route: str) -> tuple[Page, str] | None:
    """``page`` as the route ``route`` alone: its places with their common prefix (``/guide?id=``) cut off, and that
    prefix; None when the route has no places or they do not share one."""
    places = [a for a in page.anchors if a.startswith(route + "?")]
    prefixes = {a[: a.index("=") + 1] if "=" in a else route + "?" for a in places}
    if len(prefixes) != 1:
        return None
    prefix = prefixes.pop()
    sections = tuple(dataclasses.replace(s, anchor=s.anchor.removeprefix(prefix)) for s in page.sections
                     if s.anchor and s.anchor.startswith(prefix))
    anchors = tuple(a.removeprefix(prefix) for a in places if a.startswith(prefix))
    return dataclasses.replace(page, anchors=anchors, sections=sections, routes=None), prefix


def repair_route(page: Page, fragment: str) -> Match | None:
    """What a route fragment that is not on ``page`` most likely meant: a place on the same route, or None."""
    route, sep, _ = fragment.partition("?")
    view = route_view(page, route) if sep else None
    if view is None:
        return None
    one, prefix = view
    if not fragment.startswith(prefix):
        return None
    site = SiteIndex(AnchorMap("route", page.url, pages={page.url: one}))
    own = fragment.removeprefix(prefix)
    match = repair_on_page(site, page.url, own) or rank_on_page(site, page.url, own)
    if match is None or not match.fragment:
        return None
    return Match(page.url, prefix + match.fragment, f"{match.reason} on the route {route}")
