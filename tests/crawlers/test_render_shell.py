"""Which static pages are application shells (:func:`crawlers.fetch.shell.shell_evidence`): the shells of real
generators are, the pages of every saved fixture and of the Debian documentation sites are not."""

from __future__ import annotations

from pathlib import Path

import pytest

from crawlers.fetch.shell import SHELL_TEXT, shell_evidence
from tests.conftest import EVAL_ROOTS

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
REDOC = Path(__file__).resolve().parents[2] / "build" / "sites" / "redoc" / "index.html"
# The pages each generator's documentation tells its users to write.
SWAGGER_UI = b"""<!DOCTYPE html><html><head><title>Swagger UI</title>
<link rel="stylesheet" href="swagger-ui.css"></head><body><div id="swagger-ui"></div>
<script src="swagger-ui-bundle.js"></script>
<script>window.onload = () => { window.ui = SwaggerUIBundle({url: "openapi.json", dom_id: "#swagger-ui",
deepLinking: true}); };</script></body></html>"""
DOCSIFY = b"""<!DOCTYPE html><html><head><meta charset="UTF-8"><title>Manual</title></head><body>
<div id="app">Loading...</div>
<script>window.$docsify = { name: 'Manual', loadSidebar: true }</script>
<script src="docsify.min.js"></script></body></html>"""
REACT = b"""<!doctype html><html><head><title>App</title><script defer src="/static/js/main.js"></script></head>
<body><noscript>You need to enable JavaScript to run this app. It renders the documentation in the browser, so
without JavaScript there is nothing to read here at all, not a single section.</noscript><div id="root"></div></body></html>"""


def test_the_redoc_shell_built_from_its_package() -> None:
    if not REDOC.is_file():
        pytest.fail(f"{REDOC} is missing: run scripts/install.sh (scripts/build_rendered_sites.sh builds it)")
    shell = shell_evidence(REDOC.read_bytes())
    assert shell is not None and shell.generator == "Redoc" and shell.ready == "[data-section-id]"


@pytest.mark.parametrize(("html", "generator"), [(SWAGGER_UI, "Swagger UI"), (DOCSIFY, "docsify"), (REACT, None)])
def test_app_roots_and_script_only_bodies_are_shells(html: bytes, generator: str | None) -> None:
    shell = shell_evidence(html)
    assert shell is not None and shell.generator == generator
    assert ("script-only body" in shell.reason) == (generator is None)


def test_an_app_root_with_real_content_is_read_as_served() -> None:
    prose = b"<p>" + b"Every operation of the API is described below, with its parameters. " * 4 + b"</p>"
    assert len(prose) > SHELL_TEXT
    assert shell_evidence(SWAGGER_UI.replace(b"<div id=\"swagger-ui\"></div>", b"<div id=\"swagger-ui\">" + prose + b"</div>")) is None


def test_a_short_page_without_scripts_is_no_shell() -> None:
    assert shell_evidence(b"<html><body><h1 id='moved'>Moved</h1><p>See <a href='new.html'>here</a>.</p></body></html>") is None


def test_no_saved_fixture_page_is_a_shell() -> None:
    pages = sorted(FIXTURES.rglob("*.html"))
    assert len(pages) > 15
    assert [p.name for p in pages if shell_evidence(p.read_bytes()) is not None] == []


@pytest.mark.slow
@pytest.mark.parametrize("site", sorted(EVAL_ROOTS))
def test_no_page_of_a_static_docs_site_is_a_shell(site: str) -> None:
    """Sphinx (search pages included), MkDocs, AsciiDoc: every page is read as served, without a browser."""
    pages = sorted(EVAL_ROOTS[site].rglob("*.html"))
    assert pages, f"{EVAL_ROOTS[site]} is missing: run scripts/install.sh"
    assert [str(p) for p in pages if shell_evidence(p.read_bytes()) is not None] == []
