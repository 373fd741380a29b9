"""Chunking: every chunk is a valid deep link with its parent path; code blocks stay whole."""

from __future__ import annotations

from crawlers.model import AnchorMap, Page, SectionText
from docbot.indexing.chunk import (
    DEFAULT_BUDGET,
    chunk_id,
    chunk_sections,
    estimate_tokens,
    split_blocks,
    split_text,
)

BASE = "http://127.0.0.1:8000/"
CONFIG = BASE + "config.html"
API = BASE + "api.html"

CODE = "```python\napp = Flask(__name__)\n\n\n@app.route('/')\ndef index():\n    return 'hi'\n```"
LONG_PROSE = "\n\n".join(f"Paragraph {i} " + "word " * 60 for i in range(12))


def _sec(url: str, anchor: str | None, title: str, level: int, path: tuple[str, ...], text: str, kind: str = "heading") -> SectionText:
    return SectionText("demo", url, anchor, title, level, path, "Guides", text, kind)


def fixture() -> tuple[list[SectionText], AnchorMap]:
    pages = {
        CONFIG: Page(CONFIG, "Configuration", "Guides", anchors=("configuration", "builtin-values", "SESSION_COOKIE_SECURE", "code-sample")),
        API: Page(API, "API", "API reference", anchors=("flask.Flask.route",)),
    }
    amap = AnchorMap("demo", BASE, pages=pages)
    sections = [
        _sec(CONFIG, "configuration", "Configuration", 1, ("Configuration",), ""),
        _sec(CONFIG, "builtin-values", "Builtin Values", 2, ("Configuration", "Builtin Values"), "These values are used by Flask."),
        _sec(CONFIG, "SESSION_COOKIE_SECURE", "SESSION_COOKIE_SECURE", 3,
             ("Configuration", "Builtin Values", "SESSION_COOKIE_SECURE"), "Only send cookies over HTTPS.", "api"),
        _sec(CONFIG, None, "Unanchored", 3, ("Configuration", "Builtin Values", "Unanchored"), "Inherits the parent anchor."),
        _sec(CONFIG, "gone-from-map", "Stale anchor", 2, ("Configuration", "Stale anchor"), "Anchor not in the map."),
        _sec(CONFIG, "code-sample", "Code sample", 2, ("Configuration", "Code sample"), LONG_PROSE + "\n\n" + CODE + "\n\nAfter the code."),
        _sec(API, None, "API", 1, ("API",), "Intro without an anchor."),
        _sec(API, "flask.Flask.route", "route", 2, ("API", "route"), "", "api"),
        _sec(BASE + "not-crawled.html", "x", "Ghost", 1, ("Ghost",), "A page missing from the map."),
    ]
    return sections, amap


def test_every_chunk_anchor_exists_in_the_anchor_map() -> None:
    sections, amap = fixture()
    chunks = chunk_sections(sections, amap)
    assert chunks
    for chunk in chunks:
        assert amap.page(chunk.url) is not None
        if chunk.anchor is None:
            assert chunk.deep_url == chunk.url
        else:
            assert amap.has_anchor(chunk.url, chunk.anchor)
            assert chunk.deep_url == f"{chunk.url}#{chunk.anchor}"
    assert all("not-crawled" not in c.url for c in chunks)


def test_missing_anchors_fall_back_to_ancestor_then_page() -> None:
    sections, amap = fixture()
    by_title = {c.title: c for c in chunk_sections(sections, amap)}
    assert by_title["SESSION_COOKIE_SECURE"].anchor == "SESSION_COOKIE_SECURE"
    assert by_title["Unanchored"].anchor == "builtin-values"
    assert by_title["Stale anchor"].anchor == "configuration"
    assert by_title["API"].anchor is None and by_title["API"].deep_url == API


def test_parent_paths_and_header_make_either_title_findable() -> None:
    sections, amap = fixture()
    chunk = next(c for c in chunk_sections(sections, amap) if c.title == "SESSION_COOKIE_SECURE")
    assert chunk.path == ("Configuration", "Builtin Values", "SESSION_COOKIE_SECURE")
    assert chunk.path_label == "Configuration › Builtin Values › SESSION_COOKIE_SECURE"
    assert chunk.embed_text.startswith("Configuration › Builtin Values › SESSION_COOKIE_SECURE\n\nOnly send")


def test_empty_parent_is_skipped_but_empty_leaf_keeps_its_title() -> None:
    sections, amap = fixture()
    titles = [c.title for c in chunk_sections(sections, amap)]
    assert "Configuration" not in titles  # empty, its children carry the title
    route = next(c for c in chunk_sections(sections, amap) if c.title == "route")
    assert route.embed_text == "API › route"


def test_long_section_split_to_budget_with_code_block_whole() -> None:
    sections, amap = fixture()
    parts = [c for c in chunk_sections(sections, amap) if c.title == "Code sample"]
    assert len(parts) > 1
    assert [p.part for p in parts] == list(range(len(parts)))
    assert len({p.id for p in parts}) == len(parts)
    assert sum(CODE in p.text for p in parts) == 1
    for p in parts:
        assert p.text.count("```") % 2 == 0
        assert estimate_tokens(p.text) <= DEFAULT_BUDGET + 60


def test_ids_are_stable_and_unique() -> None:
    sections, amap = fixture()
    first, second = chunk_sections(sections, amap), chunk_sections(sections, amap)
    assert [c.id for c in first] == [c.id for c in second]
    assert len({c.id for c in first}) == len(first)
    assert first[0].id == chunk_id("demo", CONFIG, "builtin-values", 0)


def test_code_block_with_blank_lines_is_one_block() -> None:
    assert split_blocks("Intro.\n\n" + CODE + "\n\nOutro.") == ["Intro.", CODE, "Outro."]


def test_huge_code_block_split_only_at_blank_lines() -> None:
    body = "\n\n".join("\n".join(f"x{i}_{j} = {j}" for j in range(30)) for i in range(40))
    block = f"```python\n{body}\n```"
    parts = split_text(block, budget=100)
    assert len(parts) > 1
    for part in parts:
        assert part.startswith("```python\n") and part.endswith("\n```")
    rejoined = [ln for p in parts for ln in p.splitlines()[1:-1] if ln.strip()]
    assert rejoined == [ln for ln in body.splitlines() if ln.strip()]
    moderate = "```\n" + "\n\n".join(f"y = {i}" for i in range(100)) + "\n```"
    assert split_text(moderate, budget=100) == [moderate]  # < 4× budget: stays whole


def test_overlap_repeats_a_short_paragraph() -> None:
    text = "\n\n".join(["alpha " * 200, "short bridge sentence.", "gamma " * 200])
    parts = split_text(text, budget=300, overlap=50)
    assert len(parts) >= 2
    assert any(p.startswith("short bridge") for p in parts[1:])


def test_an_over_long_list_is_split_between_its_lines_each_kept_on_its_own() -> None:
    # Javadoc's method summary: a table of rows, a line each, longer than a chunk. Split as one paragraph its rows
    # ran into one line ("… data parameters - Connection.Request — data(…) — …") and answers quoted them so.
    rows = [f"    - Connection.Request — method{i}(int millis) — Update the request setting number {i}." for i in range(40)]
    parts = split_text("Modifier and Type Method Description\n\n" + "\n".join(rows), budget=100)
    assert len(parts) > 2
    lines = [line for part in parts for line in part.split("\n") if line.strip()]
    assert lines == ["Modifier and Type Method Description", *rows]
    assert all(estimate_tokens(part) <= 100 + 60 for part in parts)
