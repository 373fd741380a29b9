"""Source type of a page (API reference, Guides, Tutorials, …) from its URL and markup.

Order: the site's own glob rules, then the default URL rules, then the
extractor's markup hint, then "Guides" for content pages.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Sequence
from urllib.parse import unquote, urlsplit

from crawlers.model import SOURCE_TYPES, SourceType

DEFAULT_TYPE = SourceType.GUIDES
# Pages that are not documentation content (indexes, search, error pages); matched on the file stem.
INDEX_PAGES = frozenset({"genindex", "search", "py-modindex", "modindex"})  # Sphinx's: Other, and navigation
OTHER_PAGES = INDEX_PAGES | {"404", "403", "500", "searchindex", "copyright", "license", "glossary-index"}
OTHER_PREFIXES = ("genindex-",)
OTHER_DIRS = frozenset({"_modules", "_sources", "_static", "_images", "_downloads"})  # generated source listings
# (path tokens, source type), checked in order: the first type with a matching token wins,
# so "faq/library.html" is an FAQ and "tutorial/modules.html" a tutorial.
URL_RULES: tuple[tuple[frozenset[str], SourceType], ...] = (
    (frozenset({"changelog", "changes", "release", "releases", "release-notes", "releasenotes", "history", "whatsnew", "news", "upgrading"}), SourceType.RELEASE_NOTES),
    (frozenset({"faq", "faqs"}), SourceType.FAQ),
    (frozenset({"tutorial", "tutorials", "quickstart", "getting-started", "gettingstarted", "get-started"}), SourceType.TUTORIALS),
    (frozenset({"example", "examples", "patterns", "cookbook", "howto", "how-to", "recipes"}), SourceType.EXAMPLES),
    (frozenset({"api", "reference", "library", "modules", "api-reference"}), SourceType.API_REFERENCE),
)
# Generated lists of a site's own pages: their anchors are link targets, their text answers nothing and is
# not indexed (crawlers.crawl.pages.build_page). Besides these names, any page that is mostly links is one
# (crawlers.parse.extract.NAVIGATION_LINK_SHARE). Javadoc's and Sphinx's index pages, Doxygen's member lists.
NAVIGATION_STEMS = INDEX_PAGES | {
    "index-all", "allclasses-index", "allpackages-index", "allclasses", "allclasses-frame", "allclasses-noframe",
    "overview-frame", "package-frame", "overview-tree", "package-tree", "help-doc",
}
NAVIGATION_PREFIXES = OTHER_PREFIXES
NAVIGATION_SUFFIXES = ("-members",)  # Doxygen: class_foo-members.html, all members of a class in a table
NAVIGATION_DIRS = frozenset({"class-use", "index-files"})  # Javadoc: who uses each class; the split index
_TOKEN_SPLIT = re.compile(r"[/_.\-\s]+")
_EXTENSIONS = (".html", ".htm", ".xhtml", ".php", ".aspx")


def _path_tokens(path: str) -> set[str]:
    """Path segments, their hyphen/underscore parts and those parts run together ("change_log" → "changelog",
    as "release_notes" → "releasenotes": a word a rule names however the site separates it), lower-cased, without
    file extensions."""
    tokens: set[str] = set()
    for segment in path.lower().split("/"):
        for ext in _EXTENSIONS:
            if segment.endswith(ext):
                segment = segment[: -len(ext)]
                break
        if not segment:
            continue
        parts = [t for t in _TOKEN_SPLIT.split(segment) if t]
        tokens.add(segment)
        tokens.update(parts)
        tokens.add("".join(parts))
    return tokens


def _stem(path: str) -> str:
    last = path.rstrip("/").rsplit("/", 1)[-1].lower()
    for ext in _EXTENSIONS:
        if last.endswith(ext):
            return last[: -len(ext)]
    return last


def is_navigation(url: str) -> bool:
    """Whether the page at ``url`` is a generated list of the site's pages (see :data:`NAVIGATION_STEMS`)."""
    path = unquote(urlsplit(url).path) or "/"
    stem = _stem(path)
    parts = path.lower().split("/")
    return (stem in NAVIGATION_STEMS or stem.startswith(NAVIGATION_PREFIXES) or stem.endswith(NAVIGATION_SUFFIXES)
            or any(p in NAVIGATION_DIRS for p in parts[:-1]))


def check_rules(rules: Sequence[tuple[str, str]]) -> None:
    """Raise ValueError naming the bad rule when a per-site rule's type is not a known source type."""
    for glob, kind in rules:
        if kind not in SOURCE_TYPES:
            raise ValueError(
                f"source-type rule {glob!r} → {kind!r}: type must be one of {', '.join(SOURCE_TYPES)}; fix docbot.toml"
            )


# A heading that names a release ("2.4.0 (2014-08-29)", "v18.0.0", "Version 3.1", "1.2 – 2020-01-01"): the version
# alone or before a date or a bracket; a numbered section ("2.1. Creating a built distribution") is none. A page
# whose headings are mostly these is a changelog, whatever its URL says (Requests' community/updates.html).
_RELEASE_HEADING = re.compile(r"^(?:v|version\s+|release\s+)?\d+(?:\.\d+)+(?:\s*$|\s*[(\[–—-]|\s+\d{4})",
                              re.IGNORECASE)
MIN_RELEASE_HEADINGS = 3
MIN_API_ENTRIES = 3
# A heading that is an API entry's signature: a call ("request.setTimeout(timeout[, callback])", "new Agent([options])"),
# a dotted name ("server.requestTimeout"), or either after the kind of entry it is ("Class: http.Agent", "Event:
# 'timeout'"). Node.js writes its API reference as headings like these, with no markup that says "entry".
_NAME = r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*"
_SIGNATURE_HEADING = re.compile(
    rf"^(?:(?:class|event|interface|method|static method|property|function|module|enum|type):\s+(?:{_NAME}|'[^']+'|\"[^\"]+\")$"
    rf"|(?:new\s+)?{_NAME}\(.*\)$|[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$)", re.IGNORECASE)


def markup_hint(headings: Sequence[str], api_entries: int) -> str | None:
    """What a page's own markup says it is: release notes when most of its ``headings`` name releases, an API
    reference when it holds more API entries (headings that are signatures among them) than other headings (and at
    least :data:`MIN_API_ENTRIES`), else nothing."""
    releases = sum(1 for title in headings if _RELEASE_HEADING.match(title))
    if releases >= MIN_RELEASE_HEADINGS and 2 * releases > len(headings):
        return SourceType.RELEASE_NOTES
    signatures = sum(1 for title in headings if _SIGNATURE_HEADING.match(title.strip()))
    entries = api_entries + signatures
    if entries >= MIN_API_ENTRIES and entries > len(headings) - signatures:
        return SourceType.API_REFERENCE
    return None


def classify(url: str, rules: Sequence[tuple[str, str]] = (), hint: str | None = None) -> str:
    """One of :data:`crawlers.model.SOURCE_TYPES` for the page at ``url``.

    ``rules`` are (glob, type) pairs matched against the URL path (with or
    without its leading slash); the first match wins. ``hint`` is the
    extractor's markup hint (e.g. "API reference" for a page of API entries; "Other" for a
    navigation page, which no URL rule overrides).
    """
    path = unquote(urlsplit(url).path) or "/"
    for glob, kind in rules:
        if fnmatch.fnmatchcase(path, glob) or fnmatch.fnmatchcase(path.lstrip("/"), glob.lstrip("/")):
            if kind not in SOURCE_TYPES:
                check_rules([(glob, kind)])
            return kind
    stem = _stem(path)
    first_dir = path.lstrip("/").split("/", 1)[0]
    if hint == SourceType.OTHER or stem in OTHER_PAGES or stem.startswith(OTHER_PREFIXES) or first_dir in OTHER_DIRS:
        return SourceType.OTHER
    tokens = _path_tokens(path)
    for words, kind in URL_RULES:
        if tokens & words:
            return kind
    if hint is not None and hint in SOURCE_TYPES:
        return hint
    return DEFAULT_TYPE
