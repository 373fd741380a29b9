from __future__ import annotations

import math

import pytest

from docbot.answering.gate import (
    FEATURES,
    NO_HITS,
    RATIO_FLOOR,
    UNKNOWN_TERMS,
    WEAK_EVIDENCE,
    Evidence,
    GateModel,
    closest_topics,
    coverage,
    decide,
    unknown_share,
)
from docbot.indexing.chunk import Chunk, content_hash
from docbot.retrieval.hybrid import Hit, Retrieval, Retriever, agreement_rank
from tests.docbot.ask_fakes import FakeIndex, make_chunks

# A small site's document frequencies: every word of its upload section, plus common words.
FREQ = {"limit": 3, "upload": 2, "size": 4, "max": 2, "content": 9, "length": 3, "file": 40, "files": 30,
        "order": 3, "total": 5, "request": 60, "app": 80}
DOCS = 100


def hit(url: str, text: str) -> Hit:
    return Hit("demo", url.split("#")[0], "a", url, "T", ("P", "T"), "Guides", text)


UPLOADS = [hit("http://d/a#x", "limit the upload size with max content length")]


def test_coverage_weighs_rare_terms() -> None:
    freq = {"upload": 2, "file": 40}
    assert coverage("upload file", ["upload"], freq, 50) > coverage("upload file", ["file"], freq, 50)
    assert coverage("", ["x"], freq, 50) == 0.0


def test_unknown_share_counts_words_the_docs_never_use() -> None:
    assert unknown_share("limit upload size", FREQ, DOCS) == 0.0
    assert unknown_share("upload files to celery beat", FREQ, DOCS) > 0.5
    # A user's own identifier is not a topic when its words are known.
    assert unknown_share("upload order.total", FREQ, DOCS) == 0.0
    # Nor are a user's sizes and counts.
    assert unknown_share("upload a 2gb file 300", FREQ, DOCS) == 0.0
    assert unknown_share("how do I", FREQ, DOCS) == 0.0


def test_agreement_rank_is_how_deep_both_rankings_first_share_a_section() -> None:
    assert agreement_rank(["a", "b"], ["a", "c"], none=41) == 1
    assert agreement_rank(["a", "b", "c"], ["c", "b"], none=41) == 2
    assert agreement_rank(["a", "b"], ["c", "d"], none=41) == 41
    assert agreement_rank([], ["a"], none=41) == 41


# A site's off-topic noise floor: what its everyday probes score.
FLOOR = Evidence(dense=0.2, coverage=0.2, agreement=math.log(15), unknown=0.7, lexical=2.0)


def shipped() -> GateModel:
    return GateModel.load()


def test_shipped_model_loads_with_the_features_the_gate_measures() -> None:
    model = shipped()
    assert len(model.model.weights) == len(FEATURES) and model.model.meta and model.model.meta["out_of_scope"] > 0


def test_well_supported_question_is_answered() -> None:
    yes = decide("limit upload size", Retrieval(tuple(UPLOADS), 0.6, 9.0, agreement=1), FREQ, DOCS, FLOOR, shipped())
    assert yes.answer and yes.confidence > 0.5 and yes.reason == "answer" and yes.relevance > 0


def test_evidence_no_better_than_the_sites_off_topic_probes_is_refused() -> None:
    no = decide("schedule celery beat tasks", Retrieval(tuple(UPLOADS), 0.2, 2.0, agreement=15), FREQ, DOCS, FLOOR,
                shipped())
    assert not no.answer and no.reason in (WEAK_EVIDENCE, UNKNOWN_TERMS) and no.confidence < 0.5


def test_the_same_evidence_answers_on_a_quiet_site_and_not_on_a_noisy_one() -> None:
    # Scaled by the site itself: a cosine of 0.45 is strong where off-topic questions score 0.15, and
    # nothing special where they score 0.45 (a large site, whose best chunk is close to anything); so are
    # BM25 and agreement. Coverage and unknown words are shares of the question's words, the same anywhere.
    retrieval = Retrieval(tuple(UPLOADS), 0.45, 6.0, agreement=2)
    quiet = Evidence(0.15, 0.2, math.log(15), 0.7, 1.0)
    noisy = Evidence(0.45, 0.6, math.log(2), 0.0, 6.0)
    question = "limit upload size quickly"  # two thirds of its weight covered by the section
    assert decide(question, retrieval, FREQ, DOCS, quiet, shipped()).answer
    assert not decide(question, retrieval, FREQ, DOCS, noisy, shipped()).answer


def test_coverage_and_unknown_words_are_not_scaled_by_the_site() -> None:
    raw = Evidence(0.5, 0.8, math.log(3), 0.1, 7.0)
    scaled = raw.minus(Evidence(0.2, 0.3, math.log(15), 0.6, 2.0))
    assert (scaled.coverage, scaled.unknown) == (0.8, 0.1)
    assert scaled.dense == pytest.approx(0.3) and scaled.lexical == pytest.approx(math.log(7.05 / 2.05))


def test_bm25_is_taken_relative_to_the_site_s_own_scale() -> None:
    # IDF grows with a site's size: a small site's scores are a large site's times a smaller scale. The same
    # question, three times as strong as the site's off-topic probes, is the same evidence on both.
    small = Evidence(0.5, 0.5, 0.0, 0.1, 3.0 - RATIO_FLOOR).minus(Evidence(0.2, 0.1, 1.0, 0.8, 1.0 - RATIO_FLOOR))
    large = Evidence(0.5, 0.5, 0.0, 0.1, 9.0 - RATIO_FLOOR).minus(Evidence(0.2, 0.1, 1.0, 0.8, 3.0 - RATIO_FLOOR))
    assert small.lexical == pytest.approx(large.lexical) == pytest.approx(math.log(3))


def test_disagreeing_retrievers_lower_relevance() -> None:
    query = "limit upload size file"
    agree = decide(query, Retrieval(tuple(UPLOADS), 0.45, 5.0, agreement=1), FREQ, DOCS, FLOOR, shipped())
    apart = decide(query, Retrieval(tuple(UPLOADS), 0.45, 5.0, agreement=30), FREQ, DOCS, FLOOR, shipped())
    assert apart.relevance < agree.relevance


def test_nothing_retrieved_is_refused() -> None:
    assert decide("anything", Retrieval((), 0.9), {}, 1, FLOOR, shipped()).reason == NO_HITS


def test_gate_model_round_trips_and_refuses_a_model_of_other_features() -> None:
    model = shipped()
    assert GateModel.from_json(model.to_json()) == model
    with pytest.raises(ValueError, match="refit"):
        GateModel.from_json({**model.to_json(), "inputs": ["dense"]})


def test_retrieval_reports_agreement_per_site() -> None:
    retriever = Retriever(FakeIndex(make_chunks()))
    assert retriever.search("limit upload size MAX_CONTENT_LENGTH", k=3).agreement == 1
    # A second site crowding the merged rankings (here its near-duplicates outrank the answer) hides nothing.
    other = [Chunk(f"o{i}", "other", "http://o.test/a.html", f"x{i}", f"http://o.test/a.html#x{i}", "Upload",
                   ("A", "Upload"), 2, "Guides", "upload upload size size limit limit", content_hash(f"o{i}"))
             for i in range(3)]
    both = Retriever(FakeIndex([*make_chunks(), *other])).search("limit upload size MAX_CONTENT_LENGTH", k=3)
    assert both.agreement == 1


def test_closest_topics_are_on_distinct_pages() -> None:
    hits = [hit("http://d/a#1", ""), hit("http://d/a#2", ""), hit("http://d/b#1", ""), hit("http://d/c#1", ""),
            hit("http://d/e#1", "")]
    assert [h.url for h in closest_topics(hits)] == ["http://d/a", "http://d/b", "http://d/c"]


def test_an_answer_under_the_flag_threshold_is_flagged_and_one_over_it_is_not() -> None:
    from dataclasses import replace

    retrieval = Retrieval(tuple(UPLOADS), 0.6, 9.0, agreement=1)
    model = shipped()
    plain = decide("limit upload size", retrieval, FREQ, DOCS, FLOOR, model)
    assert plain.answer and not plain.flagged
    high = replace(model, flag_threshold=model.threshold + plain.relevance + 1.0)  # everything answered is flagged
    flagged = decide("limit upload size", retrieval, FREQ, DOCS, FLOOR, high)
    assert flagged.answer and flagged.flagged
    assert GateModel.from_json(high.to_json()) == high
