"""The shortest robust text directive for a quoted passage, whose first match in the page lies in its section.

Pure, over a :class:`~docbot.references.textfrag.PageMatcher`. :func:`locate` finds the passage in the cited
section's text (a fact may be clipped, or carry a definition's terms or list items joined to it: the longest stretch
of its words that stands in one block wins). :func:`derive` then picks the fewest words that bring a browser there:
the whole passage when it is short, else its first words and its last ones (``start,end``; a final full stop or
other punctuation left off), with words just
before or after it (``prefix-,`` ``,-suffix``) only when the start or end also stands earlier. A candidate is
accepted only when its text stands nowhere earlier in the page even with block boundaries and word boundaries
ignored (so a browser whose word breaker differs from ours still finds the same place first), when the
browser's own search (:meth:`~docbot.references.textfrag.PageMatcher.first_match`) lands exactly on the passage, and
when the text that picks its place stands nowhere else, the text the model leaves out included
(:meth:`~docbot.references.textfrag.PageMatcher.elsewhere`).
"""

from __future__ import annotations

from typing import NamedTuple

from docbot.references.textfrag import Extent, PageMatcher, TextDirective, fold

SHORT_WORDS = 6  # a passage this short is quoted whole, as the start alone: the browser highlights all of it
MIN_START_WORDS = 3  # a longer passage's start: fewer words stand anywhere
MAX_START_WORDS = 10
MAX_END_WORDS = 6
MAX_WHOLE_WORDS = 16  # a passage whose every start stands elsewhere too may be quoted whole, up to this long
MAX_CONTEXT_WORDS = 3  # words of prefix or suffix
MIN_LOCATED_WORDS = 3  # fewer of a passage's words found together in its section is not the passage (nor under half)
MAX_OCCURRENCES = 64  # places in a section tried for a passage's opening words
MAX_EARLIER = 256  # earlier places of a passage's opening words that are checked one by one
_GAP = " \n"
# Left off the passage's end: a URL ending in one reads as sentence punctuation (and Markdown and Slack drop it).
END_PUNCTUATION = ".,;:!?*_~"


class Span(NamedTuple):
    """The passage as found: offsets in the page's text, and how many of its words."""

    start: int
    end: int
    words: int


def _pieces(passage: str) -> list[str]:
    """The passage, then the parts a fact is made of: the sentence after a definition's terms ("-u, --include-
    untracked: When used…"), items joined with "; ", each sentence of a pair."""
    text = " ".join(passage.split()).removesuffix("…").rstrip()
    pieces = [text]
    _head, sep, rest = text.partition(": ")
    if sep and rest:
        pieces.append(rest)
    pieces += [part for part in text.split("; ") if part]
    pieces += [part for part in text.replace(". ", ".\n").split("\n") if part]
    return list(dict.fromkeys(p for p in pieces if p))


def _longest(m: PageMatcher, extent: Extent, words: list[str], low: int, high: int) -> Span | None:
    """The longest run of ``words``' opening words found together, word-bounded, in the extent's text."""
    folded = fold(" ".join(words))
    ends: list[int] = []
    for word in words:
        ends.append((ends[-1] + 1 if ends else 0) + len(word))
    head = folded[: ends[min(MIN_LOCATED_WORDS, len(words)) - 1]]
    text = m.text
    best: Span | None = None
    at = low
    for _ in range(MAX_OCCURRENCES):
        i = text.find(head, at, high)
        if i < 0:
            break
        at = i + 1
        if (i and text[i - 1] not in _GAP) or not m.inside(extent, i, i + 1):
            continue
        same = 0
        window = text[i: i + len(folded)]
        while same < len(window) and window[same] == folded[same]:
            same += 1
        count = 0
        for k, end in enumerate(ends, start=1):
            if end > same:
                break
            if i + end >= len(text) or text[i + end] in _GAP:
                count = k
        if count and (best is None or count > best.words):
            best = Span(i, i + ends[count - 1], count)
            if count == len(words):
                break
    return best


def locate(m: PageMatcher, extent: Extent, passage: str) -> Span | None:
    """Where the passage (the most of it that stands together) is in the extent's text; None if not there."""
    runs = [r for r in range(extent.first, len(m.tags)) if extent.lo <= m.tags[r] < extent.hi]
    if not runs:
        return None
    low, high = m.starts[runs[0]], m.run_end(runs[-1])
    best: Span | None = None
    for piece in _pieces(passage):
        words = piece.split()
        found = _longest(m, extent, words, low, high) if words else None
        if found and found.words >= min(max(MIN_LOCATED_WORDS, (len(words) + 1) // 2), len(words)) \
                and (best is None or found.words > best.words):
            best = found
    return best


def _word_spans(m: PageMatcher, start: int, end: int) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    at = start
    for word in m.raw[start:end].split(" "):
        spans.append((at, at + len(word)))
        at += len(word) + 1
    return spans


def _context(m: PageMatcher, start: int, end: int, count: int, before: bool) -> tuple[int, int] | None:
    """Offsets of ``count`` whole words just before ``start`` (or after ``end``) in the same run, or None."""
    run = m.run_of(start)
    low, high = m.starts[run], m.run_end(run)
    if before:
        words = m.raw[low:start].split()
        return (start - 1 - len(" ".join(words[-count:])), start - 1) if len(words) >= count else None
    words = m.raw[end:high].split()
    return (end + 1, end + 1 + len(" ".join(words[:count]))) if len(words) >= count else None


def _first_from(m: PageMatcher, start: int, end: int, at: int) -> int:
    """Where the (folded) text between ``start`` and ``end`` first stands at or after ``at``, blocks ignored."""
    return m.loose.find(m.loose[start:end], at)


class _Earlier:
    """Where the passage's opening words stand earlier in the page (blocks and word boundaries ignored): each
    candidate start, with or without a prefix, is then checked against these few places, not the whole page."""

    def __init__(self, m: PageMatcher, span: Span, words: list[tuple[int, int]]) -> None:
        self.m, self.span = m, span
        self.words = min(MIN_START_WORDS, len(words))
        while True:
            head = m.loose[span.start: words[self.words - 1][1]]
            self.places: list[int] = []
            at = m.loose.find(head, 0, span.start + len(head) - 1)
            while at >= 0 and len(self.places) <= MAX_EARLIER:
                self.places.append(at)
                at = m.loose.find(head, at + 1, span.start + len(head) - 1)
            if len(self.places) <= MAX_EARLIER or self.words >= min(len(words), MAX_START_WORDS):
                break
            self.words += 1  # a common opening: only a longer one can be first

    def first(self, lead: int, last: int) -> bool:
        """Whether the text from ``lead`` (the span's start, or its prefix's) to ``last`` stands nowhere earlier."""
        loose, start = self.m.loose, self.span.start
        before, needle = start - lead, loose[lead:last]
        return not any(q >= before and loose[q - before: q - before + len(needle)] == needle for q in self.places)


def _candidate(m: PageMatcher, span: Span, words: list[tuple[int, int]], earlier: _Earlier,
               before: int, after: int) -> TextDirective | None:
    """The fewest-word directive for the span with ``before`` prefix and ``after`` suffix words, or None."""
    prefix = _context(m, span.start, span.end, before, True) if before else None
    suffix = _context(m, span.start, span.end, after, False) if after else None
    if (before and prefix is None) or (after and suffix is None):
        return None
    lead = prefix[0] if prefix else span.start
    last = suffix[1] if suffix else span.end
    n = len(words)
    def whole() -> TextDirective | None:  # the whole passage as the start: the browser highlights all of it
        found = earlier.first(lead, last) and m.once(m.loose[lead:last])
        return _directive(m, (span.start, span.end), None, prefix, suffix) if found else None

    if n <= SHORT_WORDS:
        return whole()
    for k in range(earlier.words, min(MAX_START_WORDS, n - 1) + 1):
        if earlier.first(lead, words[k - 1][1]) and m.once(m.loose[lead:words[k - 1][1]]):
            break
    else:  # every start also stands elsewhere ("Set the timeout… early." beside "Set the timeout… for a server.")
        return whole() if n <= MAX_WHOLE_WORDS else None
    start_end = words[k - 1][1]
    for e in range(1, min(MAX_END_WORDS, n - k) + 1):
        end_start = words[n - e][0]
        if _first_from(m, end_start, last, start_end) == end_start:
            return _directive(m, (span.start, start_end), (end_start, span.end), prefix, suffix)
    return None


def _directive(m: PageMatcher, start: tuple[int, int], end: tuple[int, int] | None,
               prefix: tuple[int, int] | None, suffix: tuple[int, int] | None) -> TextDirective:
    text = m.raw
    return TextDirective(text[start[0]:start[1]], text[end[0]:end[1]] if end else "",
                         text[prefix[0]:prefix[1]] if prefix else "", text[suffix[0]:suffix[1]] if suffix else "")


def derive(m: PageMatcher, fragment: str, passage: str) -> TextDirective | None:
    """The shortest directive whose first match in the page is the passage, inside ``#fragment``'s section."""
    extent = m.extent(fragment)
    if extent is None:
        return None
    span = locate(m, extent, passage)
    if span is None:
        return None
    end = len(m.raw[span.start:span.end].rstrip(END_PUNCTUATION))  # "…separately." ends at "separately"
    if end:
        span = span._replace(end=span.start + end)
    words = _word_spans(m, span.start, span.end)
    core = len(words) if len(words) <= SHORT_WORDS else MIN_START_WORDS + 1  # the fewest words any candidate has
    earlier = _Earlier(m, span, words)
    best: TextDirective | None = None
    for context in range(2 * MAX_CONTEXT_WORDS + 1):
        if best is not None and core + context >= best.words:
            break
        for before in range(min(context, MAX_CONTEXT_WORDS), -1, -1):
            after = context - before
            if after > MAX_CONTEXT_WORDS:
                continue
            found = _candidate(m, span, words, earlier, before, after)
            if found is not None and (best is None or found.words < best.words) \
                    and m.first_match(found) == (span.start, span.end) and not m.elsewhere(found):
                best = found
    return best
