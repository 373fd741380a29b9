"""Reading pages (crawlers.parse.html), seen through extract(): encodings, bytes read as they are, hostile
input, nesting deeper than the parser takes."""

from __future__ import annotations

import pytest

from crawlers.parse.extract import Extracted, extract, extract_anchors
from tests.crawlers.fixture_pages import FIXTURES, URL


@pytest.mark.parametrize(
    "html",
    [b"", b"   ", b"\x00\xff\xfe\x81garbage<<<>>>", b"<html", "<p>only text</p>", b"\x89PNG\r\n\x1a\n\x00\x00"],
)
def test_garbage_never_raises(html: bytes | str) -> None:
    ex = extract(html, URL)
    assert isinstance(ex, Extracted)
    assert extract_anchors(html) == ex.anchors


def test_encodings_meta_charset_given_and_undecodable() -> None:
    latin = '<html><head><meta charset="iso-8859-1"></head><body><h1 id="caf\xe9">Caf\xe9</h1></body></html>'
    assert extract(latin.encode("latin-1"), URL).title == "Café"
    assert extract_anchors(latin.encode("latin-1")) == frozenset({"café"})
    assert extract("<h1>Ünïcode</h1>".encode("cp1252"), URL, encoding="cp1252").title == "Ünïcode"
    bad = b'<meta charset="utf-8"><h1 id="ok">Good \xff\xfe bytes</h1>'
    ex = extract(bad, URL)
    assert ex.anchors == frozenset({"ok"}) and ex.title.startswith("Good")
    assert extract(b'<meta charset="no-such-codec"><h1>Fine</h1>', URL).title == "Fine"


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.glob("*.html")))
def test_utf8_bytes_read_as_is_give_what_the_decoded_text_gives(name: str) -> None:
    raw = (FIXTURES / name).read_bytes()
    charset = "iso-8859-1" if b"charset=ISO-8859-1" in raw else "utf-8"  # the one page that says so
    assert extract(raw, URL) == extract(raw.decode(charset), URL)


@pytest.mark.parametrize(
    "raw",
    [
        "\ufeff<h1 id='bom'>Café</h1><p>text</p>".encode("utf-8"),
        b"<?xml version='1.0' encoding='utf-8'?><html><body><h1 id='x'>Caf\xc3\xa9</h1></body></html>",
        b"<h1 id='nul'>Ca\x00f\xc3\xa9</h1><p>a\x00b</p>",
        b"<h1 id='bad'>Caf\xc3\xa9 \xff</h1>",
    ],
)
def test_bytes_that_are_not_plain_utf8_keep_the_decoding_rules(raw: bytes) -> None:
    ex = extract(raw, URL)
    assert ex.title.startswith("Caf") and "é" in ex.title and "\x00" not in ex.title
    assert len(ex.anchors) == 1


def test_very_deep_nesting_is_capped_without_recursion_errors() -> None:
    depth = 50_000
    html = "<html><body><h1 id='top'>Deep</h1>" + "<div>" * depth + "<p id='bottom'>x</p>" + "</div>" * depth
    ex = extract(html, URL)
    assert ex.title == "Deep" and "top" in ex.anchors
