"""What one crawl keeps of each page, and what the previous crawl left it.

:class:`PreviousCrawl` holds the previous crawl by page URL and says when a page may be asked for with a conditional
request; :class:`KeptPages` holds each page as this crawl leaves it (its entry, section texts, visible text, mentions
and aliases), parsed now or carried from the previous crawl when it did not change or failed for a passing reason.
The loop (:mod:`crawlers.crawl.loop`) decides what to fetch; these only keep what it found.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from crawlers.crawl.pages import build_page, dir_alias, page_text
from crawlers.crawl.types import CrawlConfig
from crawlers.fetch import FetchResult
from crawlers.model import AnchorMap, Mention, Page, PageText, SectionText, SourceType
from crawlers.parse.extract import EXTRACTOR_VERSION, Extracted
from crawlers.parse.mentions import RawMention, resolve_mentions, section_owners
from crawlers.sourcetype import classify, is_navigation


class PreviousCrawl:
    """The previous crawl of the site, by page URL: what a page that did not change keeps."""

    def __init__(self, anchor_map: AnchorMap | None, texts: Sequence[SectionText],
                 mentions: Sequence[Mention] | None, pages: Sequence[PageText]) -> None:
        self.anchor_map = anchor_map
        # A map written by another version of the extractor (or without the mentions its version writes): every
        # page is parsed again (no conditional requests), so a docbot upgrade reaches pages that did not change.
        self.reparse = anchor_map is not None and (anchor_map.extractor != EXTRACTOR_VERSION or mentions is None)
        self.texts: dict[str, list[SectionText]] = {}
        for t in texts:
            self.texts.setdefault(t.url, []).append(t)
        self.mentions: dict[str, list[RawMention]] = {}
        self.sections: dict[tuple[str, str], str | None] = {}  # (target, fragment) → section, as last resolved
        for m in mentions or ():
            self.mentions.setdefault(m.source, []).append(
                (m.target + ("#" + m.fragment if m.fragment is not None else ""), m.text, m.context))
            if m.fragment is not None:
                self.sections[(m.target, m.fragment)] = m.section
        self.pages = {p.url: p for p in pages}

    def page(self, url: str) -> Page | None:
        """The previous crawl's entry of the page ``url`` (any alias) points at."""
        return self.anchor_map.page(url) if self.anchor_map else None

    def conditional(self, prev: Page | None, refetch: bool) -> tuple[str | None, str | None]:
        """(ETag, Last-Modified) to ask for ``prev`` with, or (None, None) where it must be fetched in full."""
        # Without the page's previous texts (or links) a 304 would leave it textless (or a dead end): fetch it.
        # ("Other" pages, navigation among them, may have no texts by design.) The same for its visible text, when
        # the site has any stored.
        textless = prev is not None and bool(prev.sections) and prev.source_type != SourceType.OTHER and (
            prev.url not in self.texts or (bool(self.pages) and prev.url not in self.pages))
        if prev is None or refetch or self.reparse or prev.links is None or textless:
            return None, None
        return prev.etag, prev.last_modified


class KeptPages:
    """Each page as this crawl leaves it, by canonical URL, and the aliases it was reached by."""

    def __init__(self, config: CrawlConfig, previous: PreviousCrawl) -> None:
        self.config = config
        self.previous = previous
        self.pages: dict[str, Page] = {}
        self.texts: dict[str, list[SectionText]] = {}
        self.aliases: dict[str, set[str]] = {}
        self.mentions: dict[str, Sequence[RawMention]] = {}
        self.owners: dict[str, dict[str, str | None]] = {}  # id → section anchor, for the pages parsed now
        self.page_texts: dict[str, PageText] = {}
        self.claimed: set[str] = set()  # pages a fetch has answered for: a second URL of one only adds an alias

    def claim(self, canonical: str, aliases: set[str]) -> bool:
        """Whether ``canonical`` is this fetch's to parse; if another's, ``aliases`` are added to it."""
        if canonical in self.claimed:
            self.aliases.setdefault(canonical, set()).update(aliases)
            return False
        self.claimed.add(canonical)
        return True

    def release(self, canonical: str) -> None:
        """Give up a claim (its page could not be parsed): another URL of it may still be read."""
        self.claimed.discard(canonical)

    def keep_previous(self, prev: Page, aliases: set[str], stale: bool) -> tuple[str, ...]:
        """Keep the previous crawl's entry of ``prev`` (``stale`` after a passing failure); returns the links to
        follow from it (an unchanged page still leads to pages the last crawl did not reach)."""
        if prev.url in self.pages and not self.pages[prev.url].stale:
            self.aliases.setdefault(prev.url, set()).update(aliases)
            return ()
        self.pages[prev.url] = dataclasses.replace(prev, stale=stale)
        self.aliases.setdefault(prev.url, set(prev.aliases)).update(aliases)
        self.texts[prev.url] = self.previous.texts.get(prev.url, [])
        self.mentions[prev.url] = self.previous.mentions.get(prev.url, [])
        if prev.url in self.previous.pages:  # a 304 keeps the page's visible text as it keeps its section texts
            self.page_texts[prev.url] = self.previous.pages[prev.url]
        return prev.links or ()

    def record(self, canonical: str, result: FetchResult, ex: Extracted, aliases: set[str], links: tuple[str, ...],
               elsewhere: frozenset[str]) -> None:
        """Keep a parsed page (split at the anchors ``elsewhere`` links to), with its in-scope ``links``."""
        if not ex.navigation and is_navigation(canonical):
            ex = dataclasses.replace(ex, navigation=True)
        hint = SourceType.OTHER if ex.navigation else result.source_type_hint or ex.source_type_hint
        source_type = classify(canonical, self.config.source_types, hint)
        page, texts = build_page(self.config.site, canonical, result, ex, source_type, aliases, links, elsewhere)
        self.pages[canonical] = page
        self.texts[canonical] = texts
        self.mentions[canonical] = ex.mentions
        self.owners[canonical] = section_owners(ex.sections)
        visible = page_text(canonical, ex)
        if visible is not None:
            self.page_texts[canonical] = visible
        else:
            self.page_texts.pop(canonical, None)
        self.aliases.setdefault(canonical, set()).update(aliases)

    def merged_pages(self) -> dict[str, Page]:
        """The pages so far, by URL in order, each with every alias it was reached by."""
        pages = {}
        for url in sorted(self.pages):
            page = self.pages[url]
            aliases = set(page.aliases) | self.aliases.get(url, set())
            extra = dir_alias(url)
            if extra:
                aliases.add(extra)
            aliases.discard(url)
            pages[url] = dataclasses.replace(page, aliases=tuple(sorted(aliases)))
        return pages

    def resolved_mentions(self, new_map: AnchorMap) -> list[Mention]:
        """Every page's mentions of pages in the new map, each fragment resolved to its section."""
        def known(url: str) -> frozenset[str]:
            page = new_map.pages.get(url)
            return frozenset(s.anchor for s in page.sections if s.anchor) if page else frozenset()

        return [m for url in sorted(self.mentions) if url in new_map.pages
                for m in resolve_mentions(url, self.mentions[url], new_map.canonical, self.owners, known,
                                          self.previous.sections)]
