from __future__ import annotations

from dataclasses import dataclass

import pytest

from docbot.answer import Reference, Resolution, Status
from docbot.answering.gate import FEATURES, GateModel
from docbot.answering.question import MAX_QUESTION_CHARS, clean_question
from docbot.learn.linear import LinearModel
from docbot.pipeline import Pipeline
from docbot.references.validator import ReferenceValidator
from tests.docbot.ask_fakes import OTHER_BASE, OTHER_SECTIONS, FakeIndex, make_chunks, make_map, make_validator


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
    assert answer.resolution == Resolution.EXPLICIT
    assert answer.references[0].url == "http://docs.test/api.html#app.App.set_cookie"


def test_unrelated_question_is_not_covered_with_closest_topics() -> None:
    answer = pipeline().ask("kubernetes helm chart ingress zzz")
    assert answer.status == Status.NOT_COVERED and answer.resolution == Resolution.NONE
    assert 1 <= len(answer.references) <= 3
    assert "The closest topics are:" in answer.answer and "[1]" in answer.answer


ALWAYS = GateModel(LinearModel.constant(FEATURES, 10.0), 0.5)  # answers
ODD = [  # a section of only code, a table flattened to cells, and one not in English
    ("odd.html", "synopsis", "Synopsis", ("Odd", "Synopsis"), "heading", "Guides",
     "```\nuploader --max-size <bytes> [--keep] <file>...\n```"),
    ("odd.html", "limits", "Limits", ("Odd", "Limits"), "heading", "Guides",
     "upload | max size | 16 MB\n\nform | max size | 500 KB"),
    ("odd.html", "grenzen", "Upload-Grenzen", ("Odd", "Upload-Grenzen"), "heading", "Guides",
     "Die maximale Upload-Größe legt MAX_SIZE fest; größere Dateien werden abgelehnt."),
]


@pytest.mark.parametrize("question", ["uploader max size synopsis", "upload max size limits form",
                                      "Upload-Grenzen MAX_SIZE Dateien"])
def test_odd_sections_are_answered_from_their_lead_never_an_error(question: str) -> None:
    odd_map = make_map(sections=ODD)
    site = Pipeline(FakeIndex(make_chunks(sections=ODD)), {"demo": odd_map}, ReferenceValidator({"demo": odd_map}),
                    gate=ALWAYS)
    answer = site.ask(question)
    assert answer.status == Status.ANSWERED and answer.error is None
    assert "[1]" in answer.answer and not answer.answer.startswith("See")  # the first source says something


def test_bad_input_never_raises() -> None:
    p = pipeline()
    assert p.ask("   ").status == Status.ERROR
    assert p.ask("\x00\x01\x02\x03\x04binary").status == Status.ERROR
    assert p.ask("Wie lade ich Dateien hoch?").status in (Status.ANSWERED, Status.NOT_COVERED)
    long = p.ask("upload " * 3000)
    assert long.status in (Status.ANSWERED, Status.NOT_COVERED) and len(long.question) <= MAX_QUESTION_CHARS
    unknown = p.ask("upload size", site="nope")
    assert unknown.status == Status.ERROR and "docbot index --site nope" in unknown.answer


def test_no_index_at_all_says_what_to_run() -> None:
    answer = Pipeline(FakeIndex([]), {}, make_validator()).ask("anything")
    assert answer.status == Status.ERROR and "docbot index" in answer.answer


def test_follow_up_favours_sections_cited_before() -> None:
    earlier = Turn("How do sessions work?", "…", (Reference(1, "http://docs.test/guide.html#sessions", "Sessions",
                                                           ("Guide", "Sessions"), "Guides", "demo", True),))
    answer = pipeline().ask("and the cookie?", context=[earlier])
    assert answer.references[0].url == "http://docs.test/guide.html#sessions"


def test_clean_question_truncates_and_strips_controls() -> None:
    text, problem = clean_question("a\x07b " + "x" * 5000)
    assert problem is None and text.startswith("a b") and len(text) == MAX_QUESTION_CHARS


def two_sites() -> Pipeline:
    maps = {"demo": make_map(), "other": make_map("other", OTHER_BASE, OTHER_SECTIONS)}
    index = FakeIndex([*make_chunks(), *make_chunks("other", OTHER_BASE, OTHER_SECTIONS)])
    return Pipeline(index, maps, ReferenceValidator(maps))


def test_across_sites_an_answer_comes_from_the_site_with_the_best_section() -> None:
    p = two_sites()
    throttling = p.ask("How many requests may each client IP address make per minute?")
    assert throttling.status == Status.ANSWERED
    assert throttling.references[0].url == OTHER_BASE + "throttling.html#rate-limits"
    assert {r.site for r in throttling.references} == {"other"}
    uploads = p.ask("How do I limit the upload size? MAX_CONTENT_LENGTH")
    assert uploads.references[0].url == "http://docs.test/guide.html#uploading-files"
    assert {r.site for r in uploads.references} == {"demo"}


def test_across_sites_a_pasted_link_chooses_its_site() -> None:
    answer = two_sites().ask("Is http://docs.test/guide.html#sessions about how many requests a client may make?")
    assert answer.references[0].url == "http://docs.test/guide.html#sessions"
    assert {r.site for r in answer.references} == {"demo"}


def test_across_sites_an_api_name_written_in_full_chooses_its_site() -> None:
    question = "Does app.App.set_cookie limit how many requests each client IP address may make per minute?"
    answer = two_sites().ask(question)
    assert answer.references[0].url == "http://docs.test/api.html#app.App.set_cookie"
    assert {r.site for r in answer.references} == {"demo"}
    partial = two_sites().ask("Does App.set_cookie limit how many requests each client IP address may make per minute?")
    assert partial.references[0].url == OTHER_BASE + "throttling.html#rate-limits"


def test_across_sites_a_question_naming_a_site_is_answered_from_it() -> None:
    question = "How many requests may each client IP address make per minute?"  # the other site's section
    assert {r.site for r in two_sites().ask(question).references} == {"other"}
    named = two_sites().ask(question.replace("?", " with demo?"))
    assert named.references and {r.site for r in named.references} == {"demo"}


def test_across_sites_a_question_no_site_covers_is_not_covered() -> None:
    assert two_sites().ask("kubernetes helm chart ingress zzz").status == Status.NOT_COVERED


def test_a_title_that_many_pages_share_is_named_with_its_page() -> None:
    from docbot.retrieval.hybrid import Hit
    from tests.docbot.ask_fakes import SECTIONS

    rows = (
        ("create-index.html", "ci-examples", "Examples", ("CREATE INDEX", "Examples"), "heading", "Reference", "x"),
        ("rollback.html", "rb-examples", "Examples", ("ROLLBACK", "Examples"), "heading", "Reference", "y"),
    )
    p = Pipeline(FakeIndex(make_chunks()), {"demo": make_map(sections=(*rows, *SECTIONS))}, make_validator())
    examples = Hit("demo", "http://docs.test/create-index.html", "ci-examples", "http://docs.test/create-index.html#ci-examples",
                   "Examples", ("CREATE INDEX", "Examples"), "Reference", "x")
    sessions = Hit("demo", "http://docs.test/guide.html", "sessions", "http://docs.test/guide.html#sessions",
                   "Sessions", ("Guide", "Sessions"), "Guides", "z")
    assert p.stats.display_title(examples) == "CREATE INDEX › Examples"  # "See also Examples [3]" said nothing
    assert p.stats.display_title(sessions) == "Sessions"  # one page has it: its own title is clear


def test_an_answer_the_gate_flags_opens_with_the_line_and_has_low_confidence() -> None:
    from dataclasses import replace

    from docbot.answering.gate import FLAG_LINE, FLAGGED_CONFIDENCE

    plain = pipeline().ask("How do I limit the upload size? MAX_CONTENT_LENGTH")
    assert not plain.flagged and "flagged" not in plain.to_json()
    shipped = GateModel.load()
    wary = Pipeline(FakeIndex(make_chunks()), {"demo": make_map()}, make_validator(),
                    gate=replace(shipped, flag_threshold=shipped.threshold + 100.0))
    answer = wary.ask("How do I limit the upload size? MAX_CONTENT_LENGTH")
    data = answer.to_json()
    assert answer.status == "answered" and data["flagged"] is True
    assert data["answer"].startswith(FLAG_LINE + "\n\n") and answer.confidence <= FLAGGED_CONFIDENCE
    assert data["references"] == plain.to_json()["references"]


def test_a_short_question_meets_the_probes_cut_to_its_length() -> None:
    from itertools import combinations
    from statistics import fmean

    from docbot.answering.gate import PROBES
    from docbot.answering.site_stats import terms

    p = pipeline()
    stats, retriever = p.stats, p.retriever
    whole = stats.baseline("demo").lexical
    longest = max(terms(probe) for probe in PROBES)
    assert stats.lexical_floor("demo", longest) == whole  # a question as long as every probe: as before
    assert stats.baseline("demo", "How do I upload a file to the server with a size limit?").lexical == whole
    two = stats.lexical_floor("demo", 2)
    assert two <= whole  # a BM25 score over fewer words is never higher
    by_hand = fmean(
        seen if terms(probe) <= 2 else fmean(retriever.top_lexical(" ".join(pair), "demo")
                                             for pair in combinations([w for w in probe.split() if terms(w)], 2))
        for probe, seen in ((probe, retriever.top_lexical(probe, "demo")) for probe in PROBES))
    assert abs(two - by_hand) < 1e-9
    assert stats.baseline("demo", "How do I retry?").lexical == stats.lexical_floor("demo", 1)
