"""Property: the validator's fast text scans find exactly what the plain regex substitutions find."""

from __future__ import annotations

import re
from urllib.parse import quote

from hypothesis import given, settings
from hypothesis import strategies as st

from docbot.references.links import _FRAGMENT_PLAIN, _FRAGMENT_SAFE
from docbot.references.scan import LINKS, sub_links, sub_markers

# The citation-marker pattern as one regex: an optional blank, then the marker.
MARKER_WITH_BLANK = re.compile(r"(?P<sp>[ \t]?)\[(?P<nums>\d{1,6}(?:\s*,\s*\d{1,6})*)\](?!\(|:[ \t]*(?:<|[A-Za-z][A-Za-z0-9+.-]*://|/|www\.))")
PIECES = st.sampled_from(
    [
        "[", "]", "(", ")", "!", "<", ">", "|", "\n", "\n\n", " ", "\t", "  ", ",", ":", "a", "h", "H", "ttp", "s://",
        "http://", "HTTPS://", "https:/", "http://d.test/a.html#x", "http://d.test/p.", "[t](http://d.test/a)",
        "![i](<http://d.test/b> \"t\")", "<http://d.test/c|label>", "<mailto:x@y.test>", "[r]: http://d.test/r",
        "   [r]: <http://d.test/s>", "\n  [q]: http://d.test/q",
        "[1]", " [2]", "\t[3, 4]", "[5](", "[6]:", "[7]: x", "[8]: /p", "[9]: <",  "[12,13]", "[99999999]",
    ]
)
TEXTS = st.lists(st.one_of(PIECES, st.text(max_size=4)), max_size=16).map("".join)


def _show(m: re.Match[str]) -> str:
    return f"{{{m.lastgroup}:{m.group(0)}}}"


def _renumber(blank: str, nums: str) -> str:
    return f"<{blank}|{nums}>" if int(nums.split(",")[0]) % 3 else ""


@settings(max_examples=400, deadline=None)
@given(TEXTS)
def test_sub_links_finds_the_same_links_as_the_regex(text: str) -> None:
    assert sub_links(text, _show) == LINKS.sub(_show, text)


@settings(max_examples=400, deadline=None)
@given(TEXTS)
def test_sub_markers_replaces_the_same_markers_and_blanks_as_the_regex(text: str) -> None:
    expected = MARKER_WITH_BLANK.sub(lambda m: _renumber(m.group("sp"), m.group("nums")), text)
    assert sub_markers(text, _renumber) == expected


@given(st.text(max_size=12))
def test_plain_fragments_are_exactly_those_quote_leaves_alone(fragment: str) -> None:
    assert bool(_FRAGMENT_PLAIN.fullmatch(fragment)) == (quote(fragment, safe=_FRAGMENT_SAFE) == fragment)
