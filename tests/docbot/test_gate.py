from __future__ import annotations

from docbot.gate import RELEVANCE_THRESHOLD, closest_topics, confidence, coverage, decide
from docbot.retrieve import Hit


def hit(url: str, text: str) -> Hit:
    return Hit("demo", url.split("#")[0], "a", url, "T", ("P", "T"), "Guides", text)


def test_coverage_weighs_rare_terms() -> None:
    freq = {"upload": 2, "file": 40}
    assert coverage("upload file", ["upload"], freq, 50) > coverage("upload file", ["file"], freq, 50)
    assert coverage("", ["x"], freq, 50) == 0.0


def test_relevant_evidence_passes_and_weak_evidence_is_refused() -> None:
    hits = [hit("http://d/a#x", "limit the upload size with max content length")]
    yes = decide("limit upload size", hits, 0.6, {"upload": 1}, 100)
    no = decide("schedule celery beat tasks", hits, 0.3, {}, 100)
    assert yes.answer and yes.confidence > 0.5
    assert not no.answer and no.confidence < 0.5
    assert not decide("anything", [], 0.9, {}, 1).answer


def test_confidence_is_bounded() -> None:
    assert confidence(RELEVANCE_THRESHOLD) == 0.5
    assert confidence(10) == 1.0 and confidence(-10) == 0.0


def test_closest_topics_are_on_distinct_pages() -> None:
    hits = [hit("http://d/a#1", ""), hit("http://d/a#2", ""), hit("http://d/b#1", ""), hit("http://d/c#1", ""),
            hit("http://d/e#1", "")]
    assert [h.url for h in closest_topics(hits)] == ["http://d/a", "http://d/b", "http://d/c"]
