"""Text directives (``page#id:~:text=[prefix-,]start[,end][,-suffix]``, WICG "URL Fragment Text Directives"):
their syntax, and where a browser's first match of one lands.

Pure. :func:`parse` reads what follows ``:~:`` (each part percent-decoded, as browsers do) and
:meth:`TextDirective.encode` writes a directive (``-``, ``,``, ``&``, spaces and everything but a few safe characters
percent-encoded). :class:`PageMatcher` holds a page's visible text (:class:`crawlers.page_text.PageText`, recorded at
crawl time) folded the way find-in-page compares text (case, accents and curly quotes ignored) and runs the
spec's search over it: the first match of the start (after its prefix), then of the end, then the suffix, each
word-bounded where the spec says, never across a block boundary; :meth:`PageMatcher.lands` says whether that first
match lies in the cited section (a section's anchor or alias: the section and its subsections; another id: from
its element to the end of its section; no fragment: the page).

A browser's text is not quite the model's: Chromium also searches an SVG's text and a ``hidden`` element a style
sheet shows, and skips what a class hides. So a directive is also held to a stricter rule that needs no model of
CSS (:meth:`PageMatcher.elsewhere`): the text that picks its place (prefix and start; with no end, the suffix too)
stands exactly once in everything a browser might search, the text left out included, and holds no character
browsers never match (zero-width, bidi and other format or control characters). Then a browser either lands where
docbot says or finds nothing and falls back to the ``#fragment``: never somewhere else. The one piece of CSS that
counts is ``content-visibility: auto`` (:attr:`PageMatcher.unsteady`): on a page laid out lazily Chromium's scroll to
the right match still ends far from it, so such a page gets no directive.
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from dataclasses import dataclass
from typing import NamedTuple
from urllib.parse import quote, unquote

from crawlers.page_text import OUTSIDE, PageText

__all__ = ["Extent", "PageMatcher", "TextDirective", "fold", "parse"]

# What a directive's text may hold unencoded: letters, digits and these (the spec's explicit characters less the ones
# that end a Markdown link or a Slack <url|text> (' ( ) ~) and ':' and '/', so that a quoted "http://…" is no URL
# inside the URL). '-', ',' and '&' are syntax and always encoded.
SAFE = "!$*+.;=?@_"
# Curly quotes compare as straight ones (find-in-page folds them; Sphinx writes ’ for ').
_QUOTES = {"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
           "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"'}
_COMMON_QUOTES = (("\u2019", "'"), ("\u2018", "'"), ("\u201c", '"'), ("\u201d", '"'))
_ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}
# Word-break rules (Unicode UAX #29, as the browsers' word breakers apply them): letters or digits either side of
# one of these are one word ("os.path", "don't", "3.14", "1,000").
_MID_LETTER = frozenset(".':")
_MID_NUM = frozenset(",;")
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
_GAP = " \n"  # what may separate words in a folded page: a space within a run, a newline between runs
# Unicode categories browsers never match in a directive's text (U+200B, U+202E, U+FEFF…): a directive holding one
# finds nothing (measured in Chromium); unassigned and private-use code points are no safer.
_UNMATCHABLE = frozenset({"Cc", "Cf", "Co", "Cs", "Cn"})
LAZY = ("the page's styles lay it out lazily (content-visibility: auto): Chromium scrolls to a quote before the layout "
        "settles and the view ends far from it")


def unmatchable(text: str) -> bool:
    """Whether ``text`` holds a character that browsers never match in a directive (see :data:`_UNMATCHABLE`)."""
    return (not text.isascii() and any(unicodedata.category(c) in _UNMATCHABLE for c in text)) or any(
        c < " " for c in text)


@functools.lru_cache(maxsize=8192)
def _fold_char(c: str) -> str:
    """One character as find-in-page compares it: lower case, without accents, quotes straight (always one char)."""
    quote_mark = _QUOTES.get(c)
    if quote_mark:
        return quote_mark
    low = c.lower()
    base = unicodedata.normalize("NFD", low if len(low) == 1 else c)[0]
    return base if len(base) == 1 else c


def fold(text: str) -> str:
    """``text`` as find-in-page compares it, character for character (so offsets stay the same)."""
    low = text.lower()
    if low.isascii():
        return low
    if len(low) == len(text):
        for curly, straight in _COMMON_QUOTES:  # Sphinx's smart quotes, by the thousand on a large page
            if curly in low:
                low = low.replace(curly, straight)
        if low.isascii():
            return low
        return _NON_ASCII.sub(lambda m: "".join(map(_fold_char, m.group())), low)  # the rest, one run at a time
    table: dict[int, int | str] = dict(_ASCII_LOWER)  # a character whose lower case is longer ("İ"): one at a time
    table.update((ord(c), _fold_char(c)) for c in set(text) if not c.isascii())
    return text.translate(table)


def _word(c: str) -> bool:
    return c.isalnum() or c == "_"


def is_boundary(text: str, i: int) -> bool:
    """Whether a word starts or ends at ``text[i]`` (see :data:`_MID_LETTER`)."""
    if i <= 0 or i >= len(text):
        return True
    a, b = text[i - 1], text[i]
    if _word(a):
        if _word(b):
            return False
        if i + 1 < len(text) and _word(text[i + 1]):
            return not (b in _MID_LETTER or (b in _MID_NUM and a.isdigit() and text[i + 1].isdigit()))
        return True
    if _word(b) and i >= 2 and _word(text[i - 2]):
        return not (a in _MID_LETTER or (a in _MID_NUM and b.isdigit() and text[i - 2].isdigit()))
    return True


def encode_text(text: str) -> str:
    """``text`` percent-encoded for a directive: every character but letters, digits and :data:`SAFE` (quote() would
    leave '-' and '~' as they are; a browser reads a bare '-' as syntax and drops the directive)."""
    return quote(text, safe=SAFE).replace("-", "%2D").replace("~", "%7E")


@dataclass(frozen=True, slots=True)
class TextDirective:
    """One ``text=`` directive; ``end``, ``prefix`` and ``suffix`` are "" when absent."""

    start: str
    end: str = ""
    prefix: str = ""
    suffix: str = ""

    def encode(self) -> str:
        parts = [encode_text(self.start)]
        if self.prefix:
            parts.insert(0, encode_text(self.prefix) + "-")
        if self.end:
            parts.append(encode_text(self.end))
        if self.suffix:
            parts.append("-" + encode_text(self.suffix))
        return "text=" + ",".join(parts)

    @property
    def words(self) -> int:
        return sum(len(p.split()) for p in (self.prefix, self.start, self.end, self.suffix))


def _decode(part: str) -> str | None:
    try:
        text = unquote(part, errors="strict")
    except UnicodeDecodeError:
        return None
    return " ".join(text.split()) or None


def parse_one(value: str) -> TextDirective | None:
    """A ``text=`` directive's value (``[prefix-,]start[,end][,-suffix]``), or None when it is malformed."""
    parts = value.split(",")
    if not 1 <= len(parts) <= 4:
        return None
    prefix = suffix = ""
    if len(parts) > 1 and parts[0].endswith("-") and "-" not in parts[0][:-1]:
        decoded = _decode(parts.pop(0)[:-1])
        if decoded is None:
            return None
        prefix = decoded
    if len(parts) > 1 and parts[-1].startswith("-") and "-" not in parts[-1][1:]:
        decoded = _decode(parts.pop()[1:])
        if decoded is None:
            return None
        suffix = decoded
    if not 1 <= len(parts) <= 2 or any("-" in p for p in parts):  # a bare '-' is syntax: browsers drop the directive
        return None
    texts = [_decode(p) for p in parts]
    if any(t is None for t in texts):
        return None
    return TextDirective(texts[0] or "", texts[1] or "" if len(texts) > 1 else "", prefix, suffix)


def parse(directive: str) -> tuple[list[TextDirective | None], int]:
    """The ``text=`` directives after ``:~:`` (None for a malformed one), and how many other directives it holds."""
    found: list[TextDirective | None] = []
    others = 0
    for item in directive.split("&"):
        if item.startswith("text="):
            found.append(parse_one(item[5:]))
        elif item:
            others += 1
    return found, others


class Extent(NamedTuple):
    """The runs a cited fragment covers: index ≥ ``first`` and section index in [``lo``, ``hi``)."""

    first: int
    lo: int
    hi: int


WHOLE_PAGE = Extent(0, OUTSIDE, 1 << 30)


class PageMatcher:
    """One page's visible text, folded once, searched as browsers search it."""

    def __init__(self, page: PageText) -> None:
        self.page = page
        self.text = fold(page.text)  # runs end in "\n": no match crosses a block
        self.tags = page.tags
        self.starts: list[int] = []
        at = 0
        for run in page.text.split("\n") if page.tags else ():
            self.starts.append(at)
            at += len(run) + 1
        self.named: dict[str, int] = {}
        for index, (_, ids) in enumerate(page.sections):
            for ident in ids:
                self.named.setdefault(ident, index)
        self._extents: dict[str, Extent | None] = {}

    @property
    def raw(self) -> str:
        """The page's text as written (offsets as in :attr:`text`): what a derived directive quotes."""
        return self.page.text

    @functools.cached_property
    def everything(self) -> str:
        """The page's text and the text its model leaves out (:meth:`crawlers.page_text.PageText.with_text`), folded:
        every place a browser may find a directive's text (:attr:`loose` itself when nothing was left out)."""
        return fold(self.page.with_text()) if self.page.hidden else self.loose

    @property
    def hidden_known(self) -> bool:
        """Whether the text left out of the model was recorded (not by an older crawl, not too much of it)."""
        return self.page.hidden is not None

    def once(self, needle: str) -> bool:
        """Whether folded ``needle`` (words separated by single spaces) stands exactly once in :attr:`everything`."""
        if not needle or unmatchable(needle) or not self.hidden_known:
            return False
        text = self.everything
        first = text.find(needle)
        return first >= 0 and text.find(needle, first + 1) < 0

    @property
    def unsteady(self) -> str:
        """Why no directive keeps a browser's view on its quote on this page ("" when one may): its styles lay it out
        lazily (:mod:`crawlers.parse.styles`), or whether they do is not known."""
        if self.page.lazy is None:
            return "whether the page's styles lay it out lazily is not known (recrawl the site)"
        return LAZY if self.page.lazy else ""

    def elsewhere(self, directive: TextDirective) -> str:
        """Why a browser might land ``directive`` somewhere else than docbot's model says ("" when it cannot):
        see the module's docstring."""
        if self.unsteady:
            return self.unsteady
        if not self.hidden_known:
            return "the page's text was recorded by an older crawl (recrawl the site)"
        if any(unmatchable(part) for part in (directive.prefix, directive.start, directive.end, directive.suffix)):
            return "its text holds a character browsers never match"
        picks = (directive.prefix, directive.start) if directive.end else (
            directive.prefix, directive.start, directive.suffix)
        if not self.once(fold(" ".join(" ".join(picks).split()))):
            return "its text also stands elsewhere in the page (hidden text included)"
        return ""

    @functools.cached_property
    def loose(self) -> str:
        """:attr:`text` with blocks joined by spaces: where a directive could match if blocks did not stop it."""
        return self.text.replace("\n", " ")

    # -- where a fragment points ------------------------------------------
    def extent(self, fragment: str) -> Extent | None:
        """The runs the fragment's section covers (the whole page for no fragment); None for an unknown id."""
        if not fragment or fragment == "top":
            return WHOLE_PAGE
        if fragment not in self._extents:
            self._extents[fragment] = self._extent(fragment)
        return self._extents[fragment]

    def _extent(self, fragment: str) -> Extent | None:
        index = self.named.get(fragment)
        if index is not None:
            return Extent(0, index, self._subtree_end(index))
        first = self.page.ids.get(fragment)
        if first is None or first >= len(self.tags):
            return None
        section = self.tags[first]
        if section == OUTSIDE:
            return Extent(first, OUTSIDE, OUTSIDE + 1)
        return Extent(first, section, self._subtree_end(section))

    def _subtree_end(self, index: int) -> int:
        sections = self.page.sections
        level = sections[index][0]
        for j in range(index + 1, len(sections)):
            if sections[j][0] <= level:
                return j
        return len(sections)

    def run_end(self, run: int) -> int:
        """The offset just after run ``run``'s text."""
        return self.starts[run + 1] - 1 if run + 1 < len(self.starts) else len(self.text)

    def run_of(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset) - 1

    def inside(self, extent: Extent, start: int, end: int) -> bool:
        """Whether the text from ``start`` to ``end`` (offsets in :attr:`text`) lies in ``extent``."""
        for run in {self.run_of(start), self.run_of(max(start, end - 1))}:
            if run < extent.first or not extent.lo <= self.tags[run] < extent.hi:
                return False
        return True

    def section_at(self, offset: int) -> str:
        """The anchor of the section the text at ``offset`` belongs to ("" outside every section or for none)."""
        section = self.tags[self.run_of(offset)]
        ids = self.page.sections[section][1] if 0 <= section < len(self.page.sections) else ()
        return ids[0] if ids else ""

    # -- the browsers' search ---------------------------------------------
    def find(self, query: str, start: int, word_start: bool, word_end: bool) -> int:
        """The first offset ≥ ``start`` where folded ``query`` stands in one run, bounded as asked; -1 if none."""
        text = self.text
        i = text.find(query, start)
        while i != -1:
            if (not word_start or is_boundary(text, i)) and (not word_end or is_boundary(text, i + len(query))):
                return i
            i = text.find(query, i + 1)
        return -1

    def _skip_gap(self, at: int) -> int:
        text = self.text
        while at < len(text) and text[at] in _GAP:
            at += 1
        return at

    def first_match(self, directive: TextDirective) -> tuple[int, int] | None:
        """(start, end) offsets of the range a browser highlights for ``directive``, or None when it finds none."""
        start, end = fold(directive.start), fold(directive.end)
        prefix, suffix = fold(directive.prefix), fold(directive.suffix)
        size = len(self.text)
        must_end = bool(end) or not suffix
        at = 0
        while at < size:
            if prefix:
                found = self.find(prefix, at, True, False)
                if found < 0:
                    return None
                at = found + 1
                after = self._skip_gap(found + len(prefix))
                if after >= size:
                    return None
                match = self.find(start, after, False, must_end)
                if match < 0:
                    return None
                if match != after:
                    continue
            else:
                match = self.find(start, at, True, must_end)
                if match < 0:
                    return None
                at = match + 1
            match_end = match + len(start)
            search = match_end
            while True:  # the end (each next one) and the suffix; ends only by returning or, without an end, breaking
                if end:
                    found = self.find(end, search, True, not suffix)
                    if found < 0:
                        return None
                    match_end = found + len(end)
                if not suffix:
                    return match, match_end
                after = self._skip_gap(match_end)
                found = self.find(suffix, after, False, True)
                if found < 0:
                    return None
                if found == after:
                    return match, match_end
                if not end:
                    break
                search = match_end
        return None

    def lands(self, directive: TextDirective, fragment: str) -> str:
        """Why ``directive`` may not go with ``#fragment``: "" when its first match lies in the fragment's section."""
        extent = self.extent(fragment)
        if extent is None:
            return f"#{fragment} is in no section of the page's text"
        found = self.first_match(directive)
        if found is None:
            return "its text is not on the page"
        if not self.inside(extent, *found):
            where = self.section_at(found[0])
            return f"its first match is outside #{fragment}" + (f" (in #{where})" if where else "")
        return self.elsewhere(directive)
