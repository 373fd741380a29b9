"""URL-like text that is not written as a plain http(s) URL, and where code is in Markdown.

Pure functions. A renderer can turn text into a link although the validator never saw a URL
in it: Markdown decodes backslash escapes and entities (``http\\://`` and ``http&#58;//``
become ``http://``), some clients read percent-encoded or look-alike colons and slashes
(``http：／／``), Slack links a bare ``www.`` host, and ``javascript:`` or ``data:`` links run
code. :data:`DISGUISED` finds them and :func:`undisguise` says which URL each one spells, so
the validator checks it like any other. :func:`outside_code` keeps code exactly as written.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Callable
from urllib.parse import unquote

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
