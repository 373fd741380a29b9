"""Pure URL functions shared by the crawler and every checker downstream.

``normalize`` is the one notion of "the same page" in docbot: scheme and host
lower-cased, default ports and credentials dropped, percent-encoding made canonical,
dot segments (encoded ones too) resolved, fragment and tracking parameters removed,
and ``dir/`` spelled ``dir/index.html``. It is idempotent.
"""

from __future__ import annotations

import fnmatch
import functools
import posixpath
from collections.abc import Sequence
from urllib.parse import (
    parse_qsl,
    quote,
    unquote,
    urlencode,
    urljoin,
    urlsplit,
    urlunsplit,
)

TRACKING_PARAMS = frozenset({"fbclid", "gclid", "dclid", "msclkid", "mc_cid", "mc_eid", "_ga", "_gl", "ref_src"})
TRACKING_PREFIXES = ("utm_",)
INDEX_FILE = "index.html"
_DEFAULT_PORTS = {"http": 80, "https": 443}
# Characters left unescaped in a canonical path (RFC 3986 pchar minus '%').
_PATH_SAFE = "/:@!$&'()*+,;=-._~"
# What follows it in a fragment is for the browser, not the page: text directives (``#id:~:text=…``, WICG "URL
# Fragment Text Directives"). Browsers strip it before the fragment is looked up, and so does every reader here.
FRAGMENT_DIRECTIVE = ":~:"


def split_fragment(url: str, routes: bool = False) -> tuple[str, str]:
    """Split ``url`` into (url without fragment, decoded fragment); a fragment directive is not part of it.

    Hash routes (``#/path``, ``#!/path``) are client-side routes, not anchors, so they come back as an empty
    fragment, unless ``routes``: a reader that knows which pages record their routes (``Page.routes``) gets them.
    """
    base, sep, frag = url.partition("#")
    if not sep:
        return url, ""
    frag = unquote(frag.partition(FRAGMENT_DIRECTIVE)[0])
    if not routes and is_route(frag):
        return base, ""
    return base, frag


def is_route(fragment: str) -> bool:
    """Whether a (decoded) fragment is a client-side hash route (``/path``, ``!/path``) rather than an anchor."""
    return fragment.startswith(("/", "!"))


def split_directive(url: str) -> tuple[str, str | None]:
    """(``url`` without its fragment directive, the directive as written after ``:~:``, or None when it has none):
    ``p.html#id:~:text=a`` → (``p.html#id``, ``text=a``); ``p.html#:~:text=a`` → (``p.html``, ``text=a``)."""
    base, sep, frag = url.partition("#")
    anchor, found, directive = frag.partition(FRAGMENT_DIRECTIVE)
    if not sep or not found:
        return url, None
    return (f"{base}#{anchor}" if anchor else base), directive


def _is_tracking(name: str) -> bool:
    lowered = name.lower()
    return lowered in TRACKING_PARAMS or lowered.startswith(TRACKING_PREFIXES)


@functools.lru_cache(maxsize=65_536)  # a site's links recur on every page: a crawl normalises each one many times
def normalize(url: str) -> str:
    """Canonical form of a page URL (no fragment). Raises ValueError for non-http(s) URLs."""
    url = url.strip()
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS:
        raise ValueError(f"not an http(s) URL: {url!r}")
    host = (parts.hostname or "").lower()
    if not host:
        raise ValueError(f"URL has no host: {url!r}")
    port = parts.port  # may raise ValueError for a malformed port
    netloc = host if port in (None, _DEFAULT_PORTS[scheme]) else f"{host}:{port}"
    if ":" in host and not host.startswith("["):
        netloc = f"[{host}]" + ("" if port in (None, _DEFAULT_PORTS[scheme]) else f":{port}")
    # Decode first, then resolve dot segments (keeping a trailing slash): "%2e%2e" is ".." to every server, and a
    # form that still held one after this would leave its directory when normalised again.
    path = unquote(parts.path or "/")
    trailing = path.endswith("/")
    path = posixpath.normpath(path)
    if path == ".":
        path = "/"
    if trailing and not path.endswith("/"):
        path += "/"
    path = quote(path, safe=_PATH_SAFE)
    if path.endswith("/"):
        path += INDEX_FILE
    query = ""
    if parts.query:
        pairs = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not _is_tracking(k)]
        query = urlencode(sorted(pairs))
    return urlunsplit((scheme, netloc, path, query, ""))


def join(base: str, href: str) -> str:
    """Resolve ``href`` against ``base`` (fragment kept)."""
    return urljoin(base, href.strip())


def origin(url: str) -> str:
    """``scheme://host[:port]`` of ``url`` in normal form (no default port, no credentials)."""
    return "/".join(normalize(url).split("/", 3)[:3])


def strip_userinfo(url: str) -> str:
    """``url`` without ``user:password@``: httpx would send those as Basic credentials to whatever host it names."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))


def scope_prefix(start_url: str) -> str:
    """The scope of a crawl: the start URL's origin and its directory."""
    canonical = normalize(start_url)
    return canonical.rsplit("/", 1)[0] + "/"


def in_scope(
    url: str,
    prefix: str,
    include: tuple[str, ...] = (),
    exclude: tuple[str, ...] = (),
) -> bool:
    """True when normalised ``url`` lies under ``prefix`` and passes the glob filters.

    Globs match the path relative to the prefix (e.g. ``api/*``, ``*/_modules/*``).
    """
    try:
        canonical = normalize(url)
    except ValueError:
        return False
    if not canonical.startswith(prefix):
        return False
    rel = canonical[len(prefix):]
    if include and not any(fnmatch.fnmatchcase(rel, pat) for pat in include):
        return False
    return not any(fnmatch.fnmatchcase(rel, pat) for pat in exclude)


def site_origins(start_url: str, allowed: Sequence[str]) -> frozenset[str]:
    """Where a crawl may send requests other than for pages: the start URL's origin, the same host over https
    (a site that moves to TLS) and the configured ``allow_origins``."""
    home = origin(start_url)
    upgrade = {"https://" + home[len("http://"):]} if home.startswith("http://") and home.count(":") == 1 else set()
    return frozenset({home, *upgrade, *allowed})


def is_http(url: str) -> bool:
    return url.startswith(("http://", "https://"))
