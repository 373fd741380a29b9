"""The hand-written fixture pages of tests/fixtures/, one per generator style, as the extractor tests read them."""

from __future__ import annotations

from pathlib import Path

from crawlers.parse.extract import Extracted, extract
from crawlers.parse.section_text import ExtractedSection

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
URL = "https://docs.example.org/en/guide/page.html"


def parse_fixture(name: str) -> Extracted:
    return extract((FIXTURES / name).read_bytes(), URL)


def by_anchor(ex: Extracted, fragment: str) -> ExtractedSection:
    found = [s for s in ex.sections if s.anchor == fragment or fragment in s.aliases]
    assert found, f"no section for #{fragment}: {[(s.anchor, s.title) for s in ex.sections]}"
    return found[0]

