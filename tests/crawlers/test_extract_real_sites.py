"""extract() on the real Debian documentation sites: every gold/accept fragment is an anchor of a section."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crawlers.parse.extract import Extracted, extract
from crawlers.parse.section_text import ExtractedSection

EVAL_DIR = Path("/work/shared/eval")
ROOTS = {
    "flask": Path("/usr/share/doc/python-flask-doc/html"),
    "requests": Path("/usr/share/doc/python-requests-doc/html"),
    "drf": Path("/usr/share/doc/python3-djangorestframework/html"),
    "sqlalchemy": Path("/usr/share/doc/python-sqlalchemy-doc/html"),
    "git": Path("/usr/share/doc/git-doc"),
}
PYTHON_DOCS = Path("/usr/share/doc/python3.11-doc/html")

pytestmark = pytest.mark.slow


def _eval_links() -> list[tuple[str, str, str]]:
    links = []
    with (EVAL_DIR / "dev_questions.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                q = json.loads(line)
                for link in q["gold"] + q["accept"]:
                    page, _, fragment = link.partition("#")
                    links.append((q["site"], page, fragment))
    return sorted(set(links))


def _extract(root: Path, page: str) -> Extracted:
    path = root / page
    if not path.is_file():
        pytest.skip(f"{path} is missing — install the Debian docs package (scripts/install.sh)")
    return extract(path.read_bytes(), f"http://127.0.0.1:8000/{page}")


def _section_for(ex: Extracted, fragment: str) -> ExtractedSection | None:
    return next((s for s in ex.sections if s.anchor == fragment or fragment in s.aliases), None)


def test_every_gold_and_accept_fragment_is_a_section_with_page_title_path() -> None:
    links = _eval_links()
    assert len(links) > 80
    missing_anchor, not_section, inside_only, bad_path = [], [], [], []
    cache: dict[tuple[str, str], Extracted] = {}
    for site, page, fragment in links:
        ex = cache.get((site, page)) or cache.setdefault((site, page), _extract(ROOTS[site], page))
        if fragment not in ex.anchors:
            missing_anchor.append(f"{site}:{page}#{fragment}")
            continue
        section = _section_for(ex, fragment)
        if section is None:
            holder = next((s for s in ex.sections if fragment in s.inner_ids), None)
            (inside_only if holder else not_section).append(f"{site}:{page}#{fragment}")
            continue
        if not section.path or section.path[0] != ex.title or section.path[-1] != section.title:
            bad_path.append(f"{site}:{page}#{fragment} {section.path} (page title {ex.title!r})")
    print(f"{len(links)} links; inside a section only: {inside_only}; not in any section: {not_section}")
    assert missing_anchor == []
    assert not_section == []
    assert bad_path == []
    assert len(inside_only) <= len(links) // 20


def test_section_titles_have_no_permalink_chrome() -> None:
    ex = _extract(ROOTS["flask"], "security.html")
    section = _section_for(ex, "security-cookie")
    assert section is not None and section.anchor == "set-cookie-options"
    assert section.title == "Set-Cookie options"
    assert section.path == ("Security Considerations", "Security Headers", "Set-Cookie options")
    assert "¶" not in section.text and "Secure" in section.text
    assert all("¶" not in s.title for s in ex.sections)


def test_flask_api_entries_are_nested_under_their_class() -> None:
    ex = _extract(ROOTS["flask"], "api.html")
    route = _section_for(ex, "flask.Flask.route")
    assert route is not None and route.kind == "api"
    assert route.title == "Flask.route()"
    assert route.path[:3] == ("API", "Application Object", "flask.Flask")
    assert "```" in route.text and '@app.route("/")' in route.text
    assert ex.source_type_hint == "API reference"


def test_drf_mkdocs_page_drops_sidebar_and_keeps_headings() -> None:
    ex = _extract(ROOTS["drf"], "api-guide/serializers/index.html")
    assert ex.title == "Serializers"
    section = _section_for(ex, "passing-additional-attributes-to-save")
    assert section is not None and section.path[:2] == ("Serializers", "Saving instances")
    assert "myModalLabel" not in {s.anchor for s in ex.sections}
    assert ex.links and all(link.startswith("http") for link in ex.links)


def test_python_asyncio_gather_is_an_api_section() -> None:
    ex = _extract(PYTHON_DOCS, "library/asyncio-task.html")
    gather = _section_for(ex, "asyncio.gather")
    assert gather is not None and gather.kind == "api"
    assert gather.title == "asyncio.gather()"
    assert gather.path[0] == "Coroutines and Tasks" and "return_exceptions" in gather.text
    assert ex.title == "Coroutines and Tasks"


def test_requests_changelog_is_release_notes_by_its_headings() -> None:
    from crawlers.sourcetype import classify

    page = "community/updates.html"  # "Release History" and its "2.4.0 (2014-08-29)" headings; no URL rule knows it
    assert classify("http://127.0.0.1:8000/" + page, hint=_extract(ROOTS["requests"], page).source_type_hint) \
        == "Release notes"
    assert _extract(ROOTS["requests"], "user/advanced.html").source_type_hint is None
    assert _extract(PYTHON_DOCS, "distutils/builtdist.html").source_type_hint is None  # "2.1. Creating…" is no release


def test_python_docs_table_rows_are_lines() -> None:
    # a row's cells are paragraphs in Sphinx's HTML: an answer must be able to quote the row, not half of it
    ex = _extract(PYTHON_DOCS, "library/stdtypes.html")
    ops = _section_for(ex, "boolean-operations-and-or-not")
    assert ops is not None
    assert "- x or y — if x is false, then y, else x — (1)" in ops.text.split("\n")


def test_python_docs_every_section_anchor_is_a_page_anchor() -> None:
    if not PYTHON_DOCS.is_dir():
        pytest.skip(f"{PYTHON_DOCS} is missing — install python3.11-doc")
    pages = sorted(PYTHON_DOCS.glob("library/*.html"))[:120]
    assert pages
    for path in pages:
        ex = extract(path.read_bytes(), f"http://127.0.0.1/{path.name}")
        for s in ex.sections:
            assert s.anchor is None or s.anchor in ex.anchors, (path, s.anchor)
            assert set(s.aliases) <= ex.anchors, (path, s.aliases)
            assert s.path[0] == ex.title, (path, s.path)
