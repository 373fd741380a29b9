"""An app's hash routes gathered into one document (:mod:`crawlers.fetch.routes`), on docsify's rendered markup."""

from __future__ import annotations

from crawlers.fetch.routes import compose, route_links, route_of
from crawlers.fetch.shell import APP_ROOTS
from crawlers.parse.extract import extract

DOCSIFY = next(r.routes for r in APP_ROOTS if r.generator == "docsify")
assert DOCSIFY is not None


def rendered(body: str) -> str:
    """A page as docsify 4 renders it: the sidebar of routes, then the route's content."""
    return f"""<!DOCTYPE html><html><head><title>Manual</title></head><body><main>
<aside class="sidebar"><ul><li><a href="#/">Home</a></li><li><a href="#/guide">Guide</a></li>
<li><a href="#/api/cli?id=flags">Flags</a></li><li><a href="/index.html">Manual</a></li>
<li><a href="#top">Top</a></li></ul></aside>
<section class="content"><article class="markdown-section" id="main">{body}</article></section></main></body></html>"""


HOME = rendered('<h1 id="manual"><a href="#/?id=manual" class="anchor"><span>Manual</span></a></h1><p>Read the guide.</p>')
GUIDE = rendered('<h1 id="guide"><a href="#/guide?id=guide" class="anchor"><span>Guide</span></a></h1><p>Start.</p>'
                 '<h2 id="install"><a href="#/guide?id=install" class="anchor"><span>Install</span></a></h2>'
                 '<p>Run the installer, see <a href="#/api/cli">the CLI</a>.</p>')
MISSING = rendered("<h1>404 - Not found</h1>")


def test_route_of_a_fragment() -> None:
    assert [route_of(f) for f in ("/guide?id=x", "/", "/?id=a", "%2Fapi%2Fcli", "install", "")] == \
        ["/guide", "/", "/", "/api/cli", None, None]


def test_the_routes_a_rendered_page_links_to() -> None:
    assert route_links(GUIDE) == ["/", "/guide", "/api/cli"]


def test_compose_gives_each_route_and_each_place_on_it_the_fragment_a_browser_follows() -> None:
    doc = compose("Manual", [("/", HOME), ("/guide", GUIDE), ("/nowhere", MISSING)], DOCSIFY)
    ex = extract(doc.encode("utf-8"), "http://h/index.html")
    assert ex.anchors == {"/", "/?id=manual", "/guide", "/guide?id=guide", "/guide?id=install"}
    assert [(s.anchor, s.title) for s in ex.sections] == [
        ("/?id=manual", "Manual"), ("/guide?id=guide", "Guide"), ("/guide?id=install", "Install")]
    assert "Home" not in doc and "404" not in doc  # the app's sidebar and its "not found" are not content
