"""The report's second opinion on a text directive: the served HTML read again, by other code, matched another way.

docbot checks directives against the visible text its crawler recorded (:mod:`crawlers.parse.visible_text`) with its own
search (:mod:`docbot.references.textfrag`); a bug in either would pass its own check. Here the page is parsed with
BeautifulSoup and Python's ``html.parser`` (not lxml), its visible text cut into blocks by a walk of its own, the
directive turned into one regular expression (leftmost match: the first prefix that the start follows, the first end
after the start that the suffix follows), and the cited section read from the HTML itself: the element with that id,
and what it covers (a ``<section>`` or ``<div>``: its content; a heading: up to the next heading as high; a ``dt``: its
``dd``; an empty marker: what follows it).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from urllib.parse import unquote

from bs4 import BeautifulSoup, Tag
from bs4.element import Comment, Doctype, NavigableString, ProcessingInstruction

BLOCKS = frozenset("""address article aside blockquote body caption center dd details dialog div dl dt fieldset
figcaption figure footer form h1 h2 h3 h4 h5 h6 header hgroup hr html legend li main menu nav ol p pre section
summary table tbody td tfoot th thead tr ul""".split())
UNSEEN = frozenset("""head script style template noscript title iframe object embed video audio canvas svg img
input textarea select option datalist""".split())
HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_HIDING = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
_CURLY = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\xa0": " ", "\xad": ""})
MAX_DEPTH = 900


@dataclass(frozen=True, slots=True)
class _Span:
    first: int  # index of the first block inside
    end: int  # index after the last block inside


class IndependentPage:
    """One served page's blocks of visible text and where each element with an id starts and ends among them."""

    def __init__(self, html: bytes | str) -> None:
        soup = BeautifulSoup(html, "html.parser")
        self.blocks: list[str] = []
        self._buffer: list[str] = []
        self.spans: dict[int, _Span] = {}  # id(tag) → its blocks
        self.order: list[Tag] = []  # headings, in the order they end
        body = soup.body or soup
        self._walk(body, 0)
        self._close()
        self.text = "\n".join(self.blocks)
        self.starts = [0]
        for block in self.blocks[:-1]:
            self.starts.append(self.starts[-1] + len(block) + 1)
        self.soup = soup

    def _close(self) -> None:
        text = " ".join("".join(self._buffer).split())
        self._buffer.clear()
        if text:
            self.blocks.append(text)

    def _walk(self, tag: Tag, depth: int) -> None:
        block = tag.name in BLOCKS
        if block:
            self._close()
        first = len(self.blocks)
        for child in tag.children:
            if isinstance(child, (Comment, Doctype, ProcessingInstruction)):
                continue
            if isinstance(child, NavigableString):
                self._buffer.append(str(child).translate(_CURLY))
            elif isinstance(child, Tag) and depth < MAX_DEPTH and not self._unseen(child):
                if child.name == "br":  # an exact match stops at a line break (Chromium, measured)
                    self._close()
                self._walk(child, depth + 1)
        if block:
            self._close()
        end = len(self.blocks) + (1 if "".join(self._buffer).strip() else 0)
        self.spans[id(tag)] = _Span(first, end)
        if tag.name in HEADINGS:
            self.order.append(tag)

    @staticmethod
    def _unseen(tag: Tag) -> bool:
        if tag.name in UNSEEN or tag.has_attr("hidden"):
            return True
        if _HIDING.search(str(tag.get("style") or "")):
            return True
        return tag.name == "a" and "headerlink" in (tag.get("class") or [])

    # -- the cited section -------------------------------------------------
    def section(self, fragment: str) -> _Span | None:
        """The blocks ``#fragment`` covers, read from the HTML (the whole page for no fragment)."""
        if not fragment or fragment == "top":
            return _Span(0, len(self.blocks))
        tag = self.soup.find(id=fragment) or self.soup.find("a", attrs={"name": fragment})
        if not isinstance(tag, Tag) or id(tag) not in self.spans:
            return None
        heading = tag.find_parent([*HEADINGS, "dt"])  # DocBook's <h2><a name="x"></a>Title</h2>: the heading's
        if isinstance(heading, Tag):
            return self._covered(heading)
        if not tag.get_text(strip=True):  # an empty marker (a label span before a heading): what follows it
            following = tag.find_next(lambda t: isinstance(t, Tag) and t.get_text(strip=True) != "")
            return self._covered(following) if isinstance(following, Tag) and id(following) in self.spans else None
        return self._covered(tag)

    def _covered(self, tag: Tag) -> _Span:
        own = self.spans[id(tag)]
        if tag.name in HEADINGS:  # up to the next heading as high (or the end of the page)
            level = int(tag.name[1])
            later = [self.spans[id(t)].first for t in self.order
                     if int(t.name[1]) <= level and self.spans[id(t)].first > own.first]
            return _Span(own.first, min(later, default=len(self.blocks)))
        if tag.name == "dt":  # the term, any further terms of the same entry, and their descriptions
            end, described = own.end, False
            for sibling in tag.find_next_siblings():
                if sibling.name not in ("dt", "dd") or (sibling.name == "dt" and described):
                    break
                described = described or sibling.name == "dd"
                end = max(end, self._blocks_of(sibling).end)
            return _Span(own.first, end)
        return own

    def _blocks_of(self, tag: Tag) -> _Span:
        return self.spans.get(id(tag)) or _Span(0, 0)

    # -- the directive -------------------------------------------------------
    def first_match(self, directive: str) -> tuple[int, int] | None:
        """Block indices of the start and end of a ``text=`` directive's first match, or None."""
        pattern = _pattern(directive)
        if pattern is None:
            return None
        found = pattern.search(self.text)
        if found is None:
            return None
        return (bisect.bisect_right(self.starts, found.start("start")) - 1,
                bisect.bisect_right(self.starts, max(found.start("start"), found.end("match") - 1)) - 1)

    def check(self, fragment: str, directive: str) -> str:
        """"ok", or why a directive (``text=…``, several joined with '&') does not land in ``#fragment``'s section."""
        span = self.section(fragment)
        if span is None:
            return f"no element #{fragment} with a section"
        for item in directive.split("&"):
            found = self.first_match(item)
            if found is None:
                return "not found"
            start, end = found
            if not (span.first <= start and end < span.end):
                return "outside its section"
        return "ok"


def _words(text: str) -> str:
    """A piece of directive text as a pattern: its words in one block, any run of spaces between them."""
    return " +".join(re.escape(w) for w in text.translate(_CURLY).split())


def _pattern(directive: str) -> re.Pattern[str] | None:
    if not directive.startswith("text="):
        return None
    parts = directive[len("text="):].split(",")
    prefix = unquote(parts.pop(0)[:-1]) if len(parts) > 1 and parts[0].endswith("-") else ""
    suffix = unquote(parts.pop()[1:]) if len(parts) > 1 and parts[-1].startswith("-") else ""
    if not 1 <= len(parts) <= 2 or any("-" in p for p in parts):
        return None
    start, end = unquote(parts[0]), unquote(parts[1]) if len(parts) > 1 else ""
    if not start.strip():
        return None
    lead = rf"(?<!\w){_words(prefix)}\s*" if prefix else r"(?<!\w)"
    bounded = r"(?!\w)" if end or not suffix else ""
    body = rf"(?P<start>{_words(start)}){bounded}"
    if end:
        body += rf"[\s\S]*?(?<!\w){_words(end)}" + ("" if suffix else r"(?!\w)")
    tail = rf"\s+{_words(suffix)}(?!\w)" if suffix else ""
    return re.compile(rf"{lead}(?P<match>{body}){tail}", re.IGNORECASE)
