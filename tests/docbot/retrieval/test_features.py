"""The ranker's features: scale-free, title words matched by stem, prefix and synonym, page aggregates."""

from __future__ import annotations

import pytest

from docbot.retrieval.features import FEATURES, Evidence, Section, content_stems, heading_match, rows

FREQ = {"upload": 2, "limit": 3, "size": 4, "file": 40, "session": 5, "cooki": 6}


def section(url: str, title: str, text: str, kind: str = "heading", stype: str = "Guides") -> Section:
    return Section(url, title, ("Guide", title), text, kind, stype)


def test_heading_match_weighs_rare_words_and_takes_stems_prefixes_and_synonyms() -> None:
    q = {"upload": 3.0, "limit": 2.0, "file": 0.5}
    assert heading_match(q, content_stems("Limiting Uploads")) == pytest.approx(5.0 / 5.5)
    assert heading_match(q, content_stems("Files")) == pytest.approx(0.5 / 5.5)
    assert heading_match({"config": 1.0}, content_stems("Configuration")) == pytest.approx(0.8)  # a prefix
    assert heading_match(q, set()) == 0.0


def test_rows_are_scale_free_and_name_every_feature() -> None:
    evidence = [Evidence("a", 0.032, 0, 0.6, 1, 12.0, 2), Evidence("b", 0.016, 1, 0.5, 3, 24.0, 1, 3.0, 1, 4)]
    sections = [section("p1", "Sessions", "Sessions keep data in a cookie."),
                section("p1", "Uploading Files", "Set the limit of the upload size.", "api", "API reference")]
    a, b = rows("limit the upload size", evidence, sections, FREQ, 100)
    assert len(a) == len(FEATURES)
    f = dict(zip(FEATURES, b))
    assert f["fused"] == 0.5 and f["dense"] == pytest.approx(-0.1) and f["lexical"] == 1.0
    assert f["mention"] == 1.0 and f["api"] == 1.0 and f["type:API reference"] == 1.0
    assert f["title"] > dict(zip(FEATURES, a))["title"] == 0.0
    assert f["coverage"] > 0.9 and f["rarest"] == 1.0 and f["page_first"] == 0.0 and dict(zip(FEATURES, a))["page_first"] == 1.0
    # the same evidence at ten times the scale (a larger site's BM25) gives the same row
    big = [Evidence(e.key, e.fused, e.order, e.dense, e.dense_rank, e.lexical * 10, e.lexical_rank, e.mention * 10,
                    e.mention_rank, e.inlinks) for e in evidence]
    assert rows("limit the upload size", big, sections, FREQ, 100) == [a, b]
