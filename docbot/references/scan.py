"""Where links, citation markers and code are in answer text, including URLs not written as plain URLs.

Pure functions. :data:`LINKS` finds Markdown links, angle-bracket links, reference definitions and bare
http(s) URLs; :func:`sub_links` and :func:`sub_markers` rewrite them fast. A renderer can also turn text into a
link although no plain URL is in it: Markdown decodes backslash escapes and entities (``http\\://`` and
``http&#58;//`` become ``http://``), some clients read percent-encoded or look-alike colons and slashes
(``http：／／``), Slack links a bare ``www.`` host, and ``javascript:`` or ``data:`` links run code.
:data:`DISGUISED` finds them and :func:`undisguise` says which URL each one spells, so the validator checks it
like any other. :func:`outside_code` keeps code exactly as written.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Callable
from urllib.parse import unquote

URL_CHARS = r"[^\s<>()\[\]{}|\"'`\\]"
TRAILING = ".,;:!?*_~"
URL_BODY = rf"(?:{URL_CHARS}|\({URL_CHARS}*\))+"  # balanced parentheses belong to the URL: #isBlank(int)
BARE = re.compile(rf"(?i:https?)://{URL_BODY}")
LINKS = re.compile(
    r"(?P<md>!?\[(?P<text>[^\[\]\n]*)\]\(\s*(?P<mdurl><[^<>\n]*>|[^\s()<>]+)(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\))"
    r"|(?P<angle><(?P<aurl>[A-Za-z][A-Za-z0-9+.\-]*:[^\s<>|]*)(?:\|(?P<atext>[^<>\n]*))?>)"
    r"|(?P<refdef>^[ \t]{0,3}\[[^\]\n]+\]:[ \t]*(?P<rurl>\S+)[^\n]*$)"
    rf"|(?P<bare>(?i:https?)://{URL_BODY})",
    re.M,
)
# Where a LINKS match can begin (each alternative checks a prefix of a LINKS branch): Markdown links,
# angle-bracket links, line starts (reference definitions) and bare http(s) URLs.
LINK_START = re.compile(
    r"!(?=\[[^\[\]\n]*\]\()|\[(?=[^\[\]\n]*\]\()|<(?=[A-Za-z][A-Za-z0-9+.\-]*:)|\n"
    r"|h(?=(?i:ttps?://))|H(?=(?i:ttps?://))"
)
MARKER = re.compile(r"\[(?P<nums>\d{1,6}(?:\s*,\s*\d{1,6})*)\](?!\(|:[ \t]*(?:<|[A-Za-z][A-Za-z0-9+.-]*://|/|www\.))")  # a citation marker; see sub_markers
# not a Markdown link "[3](url)" nor a link definition "[3]: url"; "The [3]: this…" is a citation (a small model writes it)
_COLONS = "\uff1a\ua789\u2236\ufe55\u02f8"  # fullwidth, modifier letter, ratio, small and triangular colons
_SLASHES = "\uff0f\u2044\u2215\u29f8\u2571"  # fullwidth, fraction, division, big solidus, box drawing
_COLON = rf"(?:\\?:|&#0*58;?|&#[xX]0*3[aA];?|&colon;|%3[aA]|[{_COLONS}])"
_SLASH = rf"(?:\\?/|\\\\|&#0*47;?|&#[xX]0*2[fF];?|&sol;|%2[fF]|[{_SLASHES}])"
DISGUISED = re.compile(
    rf"(?i:(?<![\w.])(?:https?|ftp){_COLON}{_SLASH}{{2}}|(?<![\w.@/])www\.(?=[a-z0-9-]+\.[a-z])"
    rf"|(?<![\w.])(?:javascript|vbscript|data){_COLON}(?=[^\s)]))[^\s<>()\[\]{{}}|\"'`]*"
)
_HINT = re.compile(rf"(?i:www\.|script:|data:|\\[:/\\]|&#|&colon;|&sol;|%3a|%2f)|[{_COLONS}{_SLASHES}]")
_LOOKALIKES = str.maketrans({**dict.fromkeys(_COLONS, ":"), **dict.fromkeys(_SLASHES, "/")})
_MD_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")  # a Markdown backslash escape: the renderer shows the character
_CODE = re.compile(r"^[ \t]{0,3}(?P<fence>`{3,}|~{3,})[^\n]*\n(?s:.*?)(?:^[ \t]{0,3}(?P=fence)[ \t]*$|\Z)"
                   r"|(?P<tick>`+)(?:(?!\n\n)(?s:.))+?(?P=tick)", re.M)  # fenced blocks, then inline code spans


def may_hide_urls(text: str) -> bool:
    """A cheap pre-check for :data:`DISGUISED` (most text has nothing it could match)."""
    return _HINT.search(text) is not None


def undisguise(text: str) -> str:
    """The URL a disguised spelling stands for: entities and escapes decoded, look-alikes made plain."""
    url = unicodedata.normalize("NFKC", html.unescape(text)).translate(_LOOKALIKES)
    url = _MD_ESCAPE.sub(r"\1", url).replace("\\", "/")  # browsers read a backslash in an http URL as '/'
    url = unquote(url) if "%" in url[:12] else url
    return "https://" + url if url.lower().startswith("www.") else url


def outside_code(text: str, fix: Callable[[str], str]) -> str:
    """``fix`` applied to the text between fenced code blocks and code spans, which are left exactly as they are."""
    if "`" not in text and "~~~" not in text:
        return fix(text)
    out: list[str] = []
    last = 0
    for m in _CODE.finditer(text):
        out += (fix(text[last : m.start()]), m.group(0))
        last = m.end()
    out.append(fix(text[last:]))
    return "".join(out)


def sub_links(text: str, replace: Callable[[re.Match[str]], str]) -> str:
    """``LINKS.sub(replace, text)``, faster (up to 4x on prose with few links).

    ``LINKS`` starts with no fixed character, so ``sub`` tries all four alternatives at every position.
    ``LINK_START`` finds the only places a link can start (``!``, ``[``, ``<``, ``http(s)://``, a line
    start) with a fast character scan, and ``LINKS`` is matched there: the same matches, left to right.
    """
    out: list[str] = []
    last = pos = start = 0
    match, search = LINKS.match, LINK_START.search
    while True:
        m = match(text, start)
        if m is not None:
            out += (text[last:start], replace(m))
            last = pos = m.end()
        found = search(text, pos)
        if found is None:
            break
        start = found.start()
        if text[start] == "\n":  # a reference definition may start the next line
            start = pos = start + 1
        else:
            pos = start + 1
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


def sub_markers(text: str, replace: Callable[[str, str], str]) -> str:
    """Each citation marker, with the one space or tab before it if any, replaced by ``replace(blank, nums)``.

    The same as substituting ``[ \\t]?`` + ``MARKER``, but the regex only has to find a literal '['
    (fast). The blank before a marker is never part of an earlier marker, which ends with ']'.
    """
    parts = MARKER.split(text)  # [text, nums, text, nums, ..., text]
    if len(parts) == 1:
        return text
    out: list[str] = []
    for k in range(1, len(parts), 2):
        before = parts[k - 1]
        blank = before[-1:] if before[-1:] in (" ", "\t") else ""
        out += (before[: len(before) - len(blank)], replace(blank, parts[k]))
    out.append(parts[-1])
    return "".join(out)
