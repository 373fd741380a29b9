"""What a known app's rendered page was made of, so that the next crawl can tell whether it changed without a browser.

A Redoc, Swagger UI or docsify shell stays the same when its content changes: the content is in other files (the
OpenAPI description, the Markdown pages) that the app loads in the browser, so the shell's own validators say nothing.
After rendering, the browser lists every URL the page loaded (:attr:`crawlers.fetch.browser.Rendered.sources`).
:func:`fingerprint` reads each of them as served and hashes them with the shell into a validator of docbot's own
(:data:`TAG`). The page's map entry keeps it as its ETag, and the list as its ``sources``. The next crawl fetches the
shell and the same files (plain GETs of a few kilobytes each, where rendering takes a browser tab a route) and renders
again only when the fingerprint differs (:class:`crawlers.fetch.render.RenderingFetcher`).
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Iterable, Sequence

from crawlers.fetch.protocol import Fetch
from crawlers.fetch.result import FetchError

TAG = 'W/"docbot-render-'  # a weak ETag that names docbot: no server's validator starts so
CONCURRENCY = 8  # files read at once
_ABSENT = b"absent"  # a file the app asked for and the server does not have (docsify asks for a missing sidebar)


def ours(etag: str | None) -> bool:
    """Whether ``etag`` is docbot's own validator of a rendered page (not one to send to the server)."""
    return etag is not None and etag.startswith(TAG)


def loaded(page_url: str, urls: Iterable[str]) -> tuple[str, ...]:
    """The files among ``urls`` (what a page loaded) that its content may come from: http(s) URLs other than the
    page's own document, without fragments, once each, sorted."""
    page = page_url.partition("#")[0]
    found = {u.partition("#")[0] for u in urls if u.startswith(("http://", "https://"))}
    return tuple(sorted(found - {page}))


async def fingerprint(fetch: Fetch, where: str, shell: bytes, sources: Sequence[str], max_bytes: int) -> str | None:
    """docbot's validator of a page served at ``where`` (after redirects) as ``shell`` whose content came from
    ``sources``, each read now (a missing one counts as such); None when one of them cannot be read whole (the page
    is then rendered on every crawl, as before a fingerprint)."""
    limit = asyncio.Semaphore(CONCURRENCY)

    async def digest(url: str) -> bytes | None:
        async with limit:
            got = await fetch.get(url, html_only=False, max_bytes=max_bytes)
        if got.error == FetchError.NOT_FOUND:
            return _ABSENT
        return hashlib.sha256(got.body).digest() if got.ok and not got.truncated else None

    digests = await asyncio.gather(*(digest(url) for url in sources))
    whole = hashlib.sha256(where.encode() + b"\n" + shell)
    for url, one in zip(sources, digests, strict=True):
        if one is None:
            return None
        whole.update(url.encode() + b"\n" + one)
    return f'{TAG}{whole.hexdigest()}"'
