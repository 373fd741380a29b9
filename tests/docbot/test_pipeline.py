from __future__ import annotations

from dataclasses import dataclass

from ask_fakes import FakeIndex, make_chunks, make_map, make_validator

from docbot.answer import Reference
from docbot.pipeline import MAX_QUESTION_CHARS, Pipeline, clean_question


def pipeline() -> Pipeline:
    return Pipeline(FakeIndex(make_chunks()), {"demo": make_map()}, make_validator())


@dataclass(frozen=True)
class Turn:
    question: str
    answer: str
    references: tuple[Reference, ...] = ()


def test_semantic_answer_has_validated_primary_reference_and_timings() -> None:
    answer = pipeline().ask("How do I limit the upload size? MAX_CONTENT_LENGTH")
    data = answer.to_json()
    assert data["status"] == "answered" and data["generator"] == "extractive"
    assert data["references"][0]["url"] == "http://docs.test/guide.html#uploading-files"
    assert data["references"][0]["primary"] is True
    assert "[1]" in data["answer"] and 0 < data["confidence"] <= 1
    assert {"resolve", "retrieve", "generate", "validate", "total"} <= set(data["timings_ms"])
    assert data["validation"]["kept"] >= 1


def test_explicit_symbol_is_the_primary_reference() -> None:
    answer = pipeline().ask("What does App.set_cookie do?")
    assert answer.resolution == "explicit"
    assert answer.references[0].url == "http://docs.test/api.html#app.App.set_cookie"


def test_unrelated_question_is_not_covered_with_closest_topics() -> None:
    answer = pipeline().ask("kubernetes helm chart ingress zzz")
    assert answer.status == "not_covered" and answer.resolution == "none"
    assert len(answer.references) <= 3


def test_bad_input_never_raises() -> None:
    p = pipeline()
    assert p.ask("   ").status == "error"
    assert p.ask("\x00\x01\x02\x03\x04binary").status == "error"
    assert p.ask("Wie lade ich Dateien hoch?").status in ("answered", "not_covered")
    long = p.ask("upload " * 3000)
    assert long.status in ("answered", "not_covered") and len(long.question) <= MAX_QUESTION_CHARS
    unknown = p.ask("upload size", site="nope")
    assert unknown.status == "error" and "docbot index --site nope" in unknown.answer


def test_no_index_at_all_says_what_to_run() -> None:
    answer = Pipeline(FakeIndex([]), {}, make_validator()).ask("anything")
    assert answer.status == "error" and "docbot index" in answer.answer


def test_follow_up_favours_sections_cited_before() -> None:
    earlier = Turn("How do sessions work?", "…", (Reference(1, "http://docs.test/guide.html#sessions", "Sessions",
                                                           ("Guide", "Sessions"), "Guides", "demo", True),))
    answer = pipeline().ask("and the cookie?", context=[earlier])
    assert answer.references[0].url == "http://docs.test/guide.html#sessions"


def test_clean_question_truncates_and_strips_controls() -> None:
    text, problem = clean_question("a\x07b " + "x" * 5000)
    assert problem is None and text.startswith("a b") and len(text) == MAX_QUESTION_CHARS
