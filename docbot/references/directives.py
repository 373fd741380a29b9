"""Text directives as the ReferenceValidator uses them: judged against the cited section, derived for a quote.

:class:`Directives` reads a page's visible text through an injected reader (``PageTexts``: the crawl's stored
page texts, of the generation being read: :mod:`docbot.reading`; no fetching), keeps a :class:`~docbot.references.textfrag.PageMatcher` for the pages it was asked
about, and answers two questions: may this directive go with this fragment (:meth:`Directives.judge`), and which
directive brings a reader to this quoted passage (:meth:`Directives.derive`). Without a reader (text directives
turned off) it keeps none and derives none. A fragment that is an app's hash route (``Page.routes``: Swagger UI,
docsify) gets none: the app renders its text after the load and scrolls to the route itself, and Chromium searches
a DOM that is not the recorded one (Swagger UI's other operations collapsed) and centres what it finds, so the
directive lands worse than the route alone (measured: ``#/Container/ContainerList:~:text=List%20containers`` left
the operation 316 px down instead of at the top; one whose text stood elsewhere went 3,000 px away).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from crawlers.page_text import PageText
from crawlers.urls import is_route
from docbot.references.fragments import remember
from docbot.references.scan import BARE, DISGUISED, may_hide_urls
from docbot.references.textderive import derive
from docbot.references.textfrag import PageMatcher, TextDirective, parse

PageTexts = Callable[[str, str], "PageText | None"]  # (site, canonical page URL) → the page's visible text, or None
# (site, page, its stored text) → the page's text as served now (the stored one when unchanged), or None when that is
# not known: then no directive (docbot.freshness asks the docs server).
Freshen = Callable[[str, str, PageText], "PageText | None"]

log = logging.getLogger(__name__)

MAX_PAGES = 512  # pages whose folded text is kept: a large site's pages, about one copy of their text
MAX_DERIVED = 4096  # quoted passages remembered with their directive
ROUTE = "the fragment is an app's route: the app scrolls to it once rendered, a text directive would move the view off it"


class Directives:
    """Judge and derive text directives over the pages' stored visible texts."""

    def __init__(self, page_texts: PageTexts | None, freshen: Freshen | None = None) -> None:
        self.page_texts = page_texts
        self.freshen = freshen
        self._pages: dict[tuple[str, str], PageMatcher] = {}
        self._derived: dict[tuple[str, str, str, str], tuple[PageMatcher, TextDirective | None]] = {}

    def matcher(self, site: str, page: str) -> PageMatcher | None:
        """The page's matcher, or None when no visible text of it is stored (or, when freshness is asked, when the
        page's text as served now is not known)."""
        text = self.page_texts(site, page) if self.page_texts is not None else None
        if text is not None and self.freshen is not None:
            text = self.freshen(site, page, text)
        if text is None or not text.tags:
            return None
        key = (site, page)
        known = self._pages.get(key)
        if known is None or not (known.page is text or known.page == text):
            known = PageMatcher(text)
            remember(self._pages, key, known, MAX_PAGES)
        return known

    def judge(self, site: str, page: str, fragment: str, directive: str) -> tuple[str, str]:
        """(the directives to keep, encoded and joined with '&', or ""; why any were dropped, or "")."""
        if self.page_texts is None:
            return "", "text directives are turned off"
        if is_route(fragment):
            return "", ROUTE
        matcher = self.matcher(site, page)
        if matcher is None:
            return "", ("the page's visible text was not recorded (recrawl the site)" if self.freshen is None else
                        "the page's visible text is not known (not recorded, or the docs server did not confirm it)")
        found, others = parse(directive)
        kept: list[str] = []
        why: list[str] = []
        for text in found:
            if text is None:
                why.append("malformed")
                continue
            problem = matcher.lands(text, fragment)
            if problem:
                why.append(problem)
            else:
                kept.append(text.encode())
        if others:
            why.append(f"{others} directive(s) other than text= dropped")
        if not found:
            why.append("no text= directive")
        return "&".join(kept), "; ".join(why)

    def derive(self, site: str, page: str, fragment: str, passage: str) -> TextDirective | None:
        """The shortest directive that lands on ``passage`` inside ``#fragment`` (None when there is none)."""
        if self.page_texts is None or not passage.strip() or is_route(fragment):
            return None
        matcher = self.matcher(site, page)
        if matcher is None or matcher.unsteady:
            return None
        key = (site, page, fragment, passage)
        known = self._derived.get(key)
        if known is None or known[0] is not matcher:  # derived again when the page's text changed
            found = derive(matcher, fragment, passage)
            known = (matcher, None if found is None or _urlish(found) else found)
            remember(self._derived, key, known, MAX_DERIVED)
        return known[1]


def _urlish(directive: TextDirective) -> bool:
    """Whether the directive would quote something that spells a URL: docs text never puts one into a link of ours,
    even percent-encoded inside another (the passage's sentence itself is checked like any answer text)."""
    text = " ".join((directive.prefix, directive.start, directive.end, directive.suffix))
    return BARE.search(text) is not None or (may_hide_urls(text) and DISGUISED.search(text) is not None)
