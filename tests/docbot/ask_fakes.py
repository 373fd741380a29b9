"""Fakes for the answer-pipeline tests: a tiny in-memory index over a two-page site and its anchor map.

``OTHER_SECTIONS`` (at ``OTHER_BASE``) is a second, one-page site for asking across sites.
"""

from __future__ import annotations

from collections.abc import Sequence

from crawlers.model import AnchorMap, Page, Section
from docbot.indexing.bm25 import Lexical
from docbot.indexing.chunk import Chunk, content_hash
from docbot.indexing.embed import HashEmbedder
from docbot.references.validator import ReferenceValidator

BASE = "http://docs.test/"

SECTIONS = [
    # (page, anchor, title, path, kind, source_type, text)
    ("api.html", "app.App.route", "App.route", ("API", "App", "App.route"), "api", "API reference",
     "A decorator that registers a view function for a URL rule. Pass methods to allow POST."),
    ("api.html", "app.App.set_cookie", "App.set_cookie", ("API", "App", "App.set_cookie"), "api", "API reference",
     "Set a cookie on the response. The secure and httponly flags protect the session cookie."),
    ("guide.html", "uploading-files", "Uploading Files", ("Guide", "Uploading Files"), "heading", "Guides",
     "Uploaded files are stored in memory or a temporary location. Set MAX_CONTENT_LENGTH to limit upload size. "
     "Requests over the limit get a 413 error.\n\n```\napp.config['MAX_CONTENT_LENGTH'] = 16 * 1024 * 1024\n```"),
    ("guide.html", "sessions", "Sessions", ("Guide", "Sessions"), "heading", "Guides",
     "Sessions keep user data between requests in a signed cookie. You need a secret key to use sessions."),
    ("guide.html", "logging-requests", "Logging Requests", ("Guide", "Logging Requests"), "heading", "Guides",
     "Log every request with a before request hook and the app logger."),
    ("guide.html", "tiny", "Tiny", ("Guide", "Logging Requests", "Tiny"), "heading", "Guides", "Short."),
]


OTHER_BASE = "http://other.test/"
OTHER_SECTIONS = [
    ("throttling.html", "rate-limits", "Rate limits", ("Throttling", "Rate limits"), "heading", "Guides",
     "Throttles limit how many requests a client may make, for example 10 per minute for each client IP address."),
    ("throttling.html", "anonymous-clients", "Anonymous clients", ("Throttling", "Anonymous clients"), "heading",
     "Guides", "Clients that are not logged in are throttled by the IP address they connect from."),
]


def make_map(site: str = "demo", base: str = BASE, sections: Sequence[tuple] = tuple(SECTIONS)) -> AnchorMap:
    pages: dict[str, Page] = {}
    for page in dict.fromkeys(s[0] for s in sections):
        rows = [s for s in sections if s[0] == page]
        url = base + page
        title = rows[0][3][0]
        pages[url] = Page(
            url=url, title=title, source_type=rows[0][5],
            anchors=(*tuple(r[1] for r in rows), "top"),
            sections=tuple(Section(r[1], r[2], len(r[3]), r[3], r[4]) for r in rows),
        )
    return AnchorMap(site=site, base_url=base, pages=pages)


def make_chunks(site: str = "demo", base: str = BASE, sections: Sequence[tuple] = tuple(SECTIONS)) -> list[Chunk]:
    out = []
    for i, (page, anchor, title, path, kind, stype, text) in enumerate(sections):
        url = base + page
        chunk_id = f"c{i}" if site == "demo" else f"{site}-c{i}"
        out.append(Chunk(chunk_id, site, url, anchor, f"{url}#{anchor}", title, path, len(path), stype, text,
                         content_hash(text), 0, kind))
    return out


class FakeIndex:
    """The Index query API over a list of chunks: HashEmbedder cosine and real BM25."""

    def __init__(self, chunks: Sequence[Chunk]) -> None:
        self.embedder = HashEmbedder()
        self._chunks = list(chunks)
        self._vectors = self.embedder.embed_documents([c.embed_text for c in chunks])
        self._lex = Lexical.build([c.id for c in chunks], [c.embed_text for c in chunks], "x")
        self._by_id = {c.id: c for c in chunks}

    def sites(self) -> list[str]:
        return sorted({c.site for c in self._chunks})

    def chunks(self, site: str) -> list[Chunk]:
        return [c for c in self._chunks if c.site == site]

    def dense(self, query: str, k: int = 20, sites: Sequence[str] | None = None) -> list[tuple[Chunk, float]]:
        q = self.embedder.embed_query(query)
        scored = [(c, sum(a * b for a, b in zip(q, v))) for c, v in zip(self._chunks, self._vectors)
                  if sites is None or c.site in sites]
        return sorted(scored, key=lambda h: -h[1])[:k]

    def lexical(self, query: str, k: int = 20, sites: Sequence[str] | None = None) -> list[tuple[Chunk, float]]:
        hits = [(self._by_id[i], s) for i, s in self._lex.search(query, k)]
        return [h for h in hits if sites is None or h[0].site in sites]


def make_validator(site: str = "demo") -> ReferenceValidator:
    return ReferenceValidator({site: make_map(site)})


TIE_BASE = "http://orm.test/"
TIE_SECTIONS = [
    # a third site whose session section answers "how do sessions keep data between requests?" as well as demo's
    ("session.html", "using-sessions", "Using sessions", ("Session", "Using sessions"), "heading", "Guides",
     "Sessions keep data about your objects between requests and write their changes in one unit of work."),
    ("engine.html", "pooling", "Connection pooling", ("Engine", "Connection pooling"), "heading", "Guides",
     "The engine holds a pool of database connections and hands one to each unit of work."),
]
