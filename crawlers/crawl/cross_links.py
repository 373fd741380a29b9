"""The anchors of each page that other pages link to, for the second split of :mod:`crawlers.parse.anchor_sections`.

A page is parsed alone, yet the docs link to its anchors from everywhere: another page's text, the site's index.
Once every page is read, :func:`linked_elsewhere` gathers from every page's links (its mentions, chrome and
permalinks left out: :mod:`crawlers.parse.mentions`) each page's anchors that another page points at, and
:func:`split_at` keeps those that may start a section of their own: not a heading's or an API entry's anchor, which
starts its section whoever links to it. That set is stored with the page (:attr:`crawlers.model.Page.linked`) as
what its sections were split at; the crawl loop splits a page again (its section walk, from the body it kept) when the set it finds differs,
so a page kept under ``304 Not Modified`` has the sections it would have if it were parsed again. A page whose set
changes only by anchors that start no section where they are (:func:`moves_split`: inside an API entry or a sentence)
keeps its first split: the walk would take every step as it did.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from urllib.parse import unquote

from crawlers.model import Page, Section
from crawlers.parse.anchor_sections import ANCHOR
from crawlers.parse.extract import Extracted
from crawlers.parse.mentions import RawMention
from crawlers.parse.section_text import ExtractedSection
from crawlers.urls import normalize


def linked_elsewhere(mentions: Mapping[str, Sequence[RawMention]], canonical: Callable[[str], str | None],
                     anchors: Callable[[str], frozenset[str]]) -> dict[str, frozenset[str]]:
    """Canonical page URL → its anchors that a link of another page points at (``mentions`` by source page)."""
    found: dict[str, set[str]] = {}
    for source, links in mentions.items():
        for link, _, _ in links:
            page, _, frag = link.partition("#")
            if not frag:
                continue
            target = canonical(page)
            if target is None or target == source:
                continue  # a page's own links are read with the page
            have = anchors(target)
            ident = frag if frag in have else unquote(frag)
            if ident in have:
                found.setdefault(target, set()).add(ident)
    return {url: frozenset(ids) for url, ids in found.items()}


class LinkedSoFar:
    """The fragments of each page that the pages read so far link to: a page read after them is split at them at
    once (its first split), so it is split a second time only if a page read later links elsewhere into it."""

    def __init__(self) -> None:
        self.fragments: dict[str, set[str]] = {}  # page URL as linked → its fragments, as written and decoded

    def add(self, page: str, aliases: Iterable[str], mentions: Sequence[RawMention]) -> None:
        """The links of ``page`` (known also as ``aliases``), its own left out."""
        own = {page, *aliases}
        for link, _, _ in mentions:
            target, _, fragment = link.partition("#")
            if fragment and target not in own:
                fragments = self.fragments.setdefault(target, set())
                fragments.add(fragment)
                if "%" in fragment:  # else unquote gives it back as it is
                    fragments.add(unquote(fragment))

    def to(self, page: str, aliases: Iterable[str]) -> frozenset[str]:
        """What the pages read so far link to on ``page`` (by any of its URLs)."""
        return frozenset().union(*(self.fragments.get(u, ()) for u in (page, *aliases)))


def split_at(linked: Iterable[str], sections: Sequence[Section | ExtractedSection]) -> tuple[str, ...]:
    """Of the anchors linked from elsewhere, those a split may start a section at (sorted): every one but the
    anchors of the page's headings and API entries, which do not depend on who links to them."""
    fixed = {s.anchor for s in sections if s.kind != ANCHOR and s.anchor}
    return tuple(sorted(set(linked) - fixed))


def moves_split(linked: Iterable[str], wanted: Iterable[str], starts: frozenset[str]) -> bool:
    """Whether splitting a page at ``wanted`` instead of ``linked`` (what it was split at) may change it: only if an
    anchor added or dropped is one that starts a section where it is when linked (``starts``, which its first walk
    learned: :attr:`crawlers.parse.extract.Extracted.starts`). Elsewhere the walk asks nothing of who links to an
    anchor, so it would take every step as it did (most are inside API entries or paragraphs)."""
    return not starts.isdisjoint(set(linked) ^ set(wanted))


def to_split(pages: Mapping[str, Page], mentions: Mapping[str, Sequence[RawMention]]) -> dict[str, tuple[str, ...]]:
    """Every page (``pages`` with all their aliases) whose anchors linked from other pages are not those it was
    split at → the ones they are now; a page kept stale after a failed fetch is left as it is."""
    index: dict[str, str] = {}
    for url, page in pages.items():
        for alias in (url, *page.aliases):
            index.setdefault(alias, url)
    anchors: dict[str, frozenset[str]] = {}

    def anchors_of(url: str) -> frozenset[str]:
        if url not in anchors:
            anchors[url] = frozenset(pages[url].anchors)
        return anchors[url]

    found = linked_elsewhere(mentions, _canonical(index), anchors_of)
    out = {}
    for url, page in pages.items():
        wanted = split_at(found.get(url, frozenset()), page.sections)
        if wanted != page.linked and not page.stale:
            out[url] = wanted
    return out


def split_site(parsed: Mapping[str, Extracted],
               parse: Callable[[str, frozenset[str]], Extracted]) -> dict[str, Extracted]:
    """Pages parsed alone (by URL) → as a crawl leaves them: each page that other pages link into at an anchor a
    split may use parsed again with those anchors (``parse(url, anchors)``). For reading a site from its files."""
    index: dict[str, str] = {}
    for url in parsed:
        try:
            index.setdefault(normalize(url), url)
        except ValueError:
            continue
    found = linked_elsewhere({url: ex.mentions for url, ex in parsed.items()}, _canonical(index),
                             lambda url: parsed[url].anchors)
    out = dict(parsed)
    for url, ids in sorted(found.items()):
        wanted = frozenset(split_at(ids, parsed[url].sections))
        if wanted:
            out[url] = parse(url, wanted)
    return out


def _canonical(index: Mapping[str, str]) -> Callable[[str], str | None]:
    """Link target (a page URL) → the page it is, by ``index`` (every spelling → its page), normalised if need be."""
    def canonical(link: str) -> str | None:
        found = index.get(link)
        if found is None:
            try:
                found = index.get(normalize(link))
            except ValueError:
                return None
        return found

    return canonical
