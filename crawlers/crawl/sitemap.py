"""Sitemaps: ``sitemap.xml``, gzipped sitemaps and sitemap indexes, parsed safely with lxml."""

from __future__ import annotations

import gzip
import logging
import zlib
from collections.abc import Callable
from dataclasses import dataclass

from lxml import etree

from crawlers.fetch import Fetch
from crawlers.urls import strip_userinfo

log = logging.getLogger(__name__)

MAX_SITEMAPS = 50  # sitemap files fetched per crawl
MAX_SITEMAP_BYTES = 50_000_000  # the sitemaps.org limit for an uncompressed file
_GZIP_MAGIC = b"\x1f\x8b"


@dataclass(frozen=True, slots=True)
class Sitemap:
    """Page URLs and child sitemaps listed in one sitemap file."""

    urls: tuple[str, ...] = ()
    sitemaps: tuple[str, ...] = ()


def _parser() -> etree.XMLParser:
    # No entities, no network, no huge trees: a sitemap is outside input.
    return etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False, recover=True, load_dtd=False)


def _gunzip(data: bytes) -> bytes:
    decomp = zlib.decompressobj(16 + zlib.MAX_WBITS)
    out = decomp.decompress(data, MAX_SITEMAP_BYTES)
    if decomp.unconsumed_tail:
        log.warning("gzipped sitemap inflates beyond %d bytes; keeping the first part", MAX_SITEMAP_BYTES)
    return out


def parse_sitemap(data: bytes) -> Sitemap:
    """Parse a sitemap or sitemap index (plain or gzipped); broken input gives an empty Sitemap."""
    if data[:2] == _GZIP_MAGIC:
        try:
            data = _gunzip(data)
        except (OSError, zlib.error, gzip.BadGzipFile):
            log.warning("undecodable gzipped sitemap skipped")
            return Sitemap()
    data = data.lstrip()
    if not data:
        return Sitemap()
    try:
        root = etree.fromstring(data, _parser())
    except etree.XMLSyntaxError:
        return Sitemap()
    if root is None:
        return Sitemap()
    urls: list[str] = []
    children: list[str] = []
    for loc in root.iter("{*}loc", "loc"):
        parent = loc.getparent()
        text = (loc.text or "").strip()
        if not text or parent is None:
            continue
        tag = etree.QName(parent).localname if isinstance(parent.tag, str) else ""
        (children if tag == "sitemap" else urls).append(text)
    return Sitemap(tuple(urls), tuple(children))


async def discover(fetcher: Fetch, candidates: list[str], allowed: Callable[[str], bool] = lambda url: True,
                   refused: Callable[[str], None] = lambda url: None) -> list[str]:
    """Page URLs from the sitemaps at ``candidates`` and the indexes they name (bounded).

    A sitemap is fetched (and followed through redirects) only where ``allowed`` says; the others go to ``refused``:
    robots.txt and sitemap indexes may name any host.
    """
    queue = list(dict.fromkeys(candidates))
    seen: set[str] = set()
    found: list[str] = []
    while queue and len(seen) < MAX_SITEMAPS:
        url = strip_userinfo(queue.pop(0))
        if url in seen:
            continue
        seen.add(url)
        if not allowed(url):
            log.info("sitemap %s is outside the crawl's origins; not fetched", url)
            refused(url)
            continue
        result = await fetcher.get(url, html_only=False, follow=allowed)
        if not result.ok:
            continue
        sm = parse_sitemap(result.body)
        found.extend(sm.urls)
        queue.extend(u for u in sm.sitemaps if u not in seen)
    return found
