"""Links to a page whose anchors are an app's hash routes (``Page.routes``, docsify): kept when the route and the
place on it exist, a wrong place repaired among that route's own places; a route on any other page is the page."""

from __future__ import annotations

from crawlers.model import AnchorMap, Page, PageText, Section
from docbot.references.validator import ReferenceValidator

BASE = "http://docs.test/"
APP = BASE + "index.html"


def sec(anchor: str, title: str, level: int, *path: str) -> Section:
    return Section(anchor, title, level, (*path, title))


def make_map() -> AnchorMap:
    routes = {"/cli/ls": "npm-ls", "/cli/install": "npm-install"}
    anchors, sections = ["/"], []
    for route, name in routes.items():
        anchors.append(route)
        for slug, title, level in ((name, name, 1), ("description", "Description", 3),
                                   ("configuration", "Configuration", 3), ("see-also", "See Also", 3)):
            anchors.append(f"{route}?id={slug}")
            sections.append(sec(f"{route}?id={slug}", title, level, *(() if level == 1 else (name,))))
    app = Page(url=APP, title="Manual", anchors=tuple(anchors), sections=tuple(sections),
               routes="#/<page>?id=<heading-id>: a route, not an element id")
    plain = Page(url=BASE + "plain.html", title="Plain", anchors=("intro",), sections=(sec("intro", "Intro", 1),))
    return AnchorMap("npm", BASE, pages={APP: app, plain.url: plain})


def check(url: str) -> tuple[str, str | None]:
    outcome = ReferenceValidator({"npm": make_map()}).check_url(url, site="npm")
    return str(outcome.action), outcome.output


def test_a_route_and_a_place_on_it_are_kept() -> None:
    for fragment in ("/cli/ls", "/cli/ls?id=configuration", "/cli/install?id=see-also"):
        assert check(f"{APP}#{fragment}") == ("kept", f"{APP}#{fragment}")


def test_a_wrong_place_is_repaired_on_its_own_route() -> None:
    # "Configuration" is a heading of both routes: the route the link names decides
    assert check(f"{APP}#/cli/install?id=configuraton") == ("rewritten", f"{APP}#/cli/install?id=configuration")
    assert check(f"{APP}#/cli/ls?id=Configuration") == ("rewritten", f"{APP}#/cli/ls?id=configuration")
    assert check(f"{APP}#/cli/ls?id=config") == ("rewritten", f"{APP}#/cli/ls?id=configuration")


def test_a_route_that_is_not_there_is_not_kept() -> None:
    action, output = check(f"{APP}#/cli/nope?id=configuration")
    assert action != "kept" and output != f"{APP}#/cli/nope?id=configuration"


def test_a_route_on_a_page_that_records_none_is_the_page_as_before() -> None:
    assert check(f"{BASE}plain.html#/settings") == ("kept", BASE + "plain.html")
    assert check(f"{BASE}plain.html#intro") == ("kept", BASE + "plain.html#intro")


def test_a_route_gets_no_text_directive_where_an_element_id_would() -> None:
    """The app scrolls to a route once it has rendered, and Chromium's search of a directive (on a DOM that is not
    the recorded one) moves the view off it (measured on docsify and Swagger UI): a route keeps no directive and
    gets none for a quoted passage; a plain page's id still does."""
    texts = {APP: PageText(APP, "npm-ls\nDescription\nlists the installed packages", (0, 1, 1),
                           ((1, ("/cli/ls?id=npm-ls",)), (3, ("/cli/ls?id=description",)))),
             BASE + "plain.html": PageText(BASE + "plain.html", "Intro\nlists the installed packages", (0, 0),
                                           ((1, ("intro",)),))}
    validator = ReferenceValidator({"npm": make_map()}, page_texts=lambda site, url: texts.get(url))
    outcome = validator.check_url(f"{APP}#/cli/ls?id=description:~:text=installed%20packages", site="npm")
    assert (outcome.action, outcome.output) == ("rewritten", f"{APP}#/cli/ls?id=description"), outcome
    assert "route" in outcome.reason
    quoted = validator.quote_link(f"{APP}#/cli/ls?id=description", "lists the installed packages", site="npm")
    assert quoted.output == f"{APP}#/cli/ls?id=description", quoted
    plain = validator.quote_link(f"{BASE}plain.html#intro", "lists the installed packages", site="npm")
    assert str(plain.output).startswith(f"{BASE}plain.html#intro:~:text="), plain
