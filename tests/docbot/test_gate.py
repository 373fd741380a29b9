from __future__ import annotations

from ask_fakes import FakeIndex, make_chunks

from docbot.chunk import Chunk, content_hash
from docbot.gate import (
    MAX_UNKNOWN_SHARE,
    NO_HITS,
    RELEVANCE_THRESHOLD,
    UNKNOWN_TERMS,
    WEAK_EVIDENCE,
    closest_topics,
    confidence,
    coverage,
    decide,
    unknown_share,
)
from docbot.retrieve import Hit, Retrieval, Retriever, agreement_rank

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
    assert unknown_share("how do I", FREQ, DOCS) == 0.0


def test_agreement_rank_is_how_deep_both_rankings_first_share_a_section() -> None:
    assert agreement_rank(["a", "b"], ["a", "c"], none=41) == 1
    assert agreement_rank(["a", "b", "c"], ["c", "b"], none=41) == 2
    assert agreement_rank(["a", "b"], ["c", "d"], none=41) == 41
    assert agreement_rank([], ["a"], none=41) == 41


def test_well_supported_question_is_answered() -> None:
    yes = decide("limit upload size", Retrieval(tuple(UPLOADS), 0.6, 5.0, agreement=1), FREQ, DOCS)
    assert yes.answer and yes.confidence > 0.5 and yes.reason == "answer"


def test_question_about_words_the_docs_never_use_is_refused() -> None:
    no = decide("schedule celery beat tasks to upload", Retrieval(tuple(UPLOADS), 0.6, 5.0, agreement=1), FREQ, DOCS)
    assert not no.answer and no.reason == UNKNOWN_TERMS and no.confidence < 0.5


def test_disagreeing_retrievers_lower_relevance_until_refused() -> None:
    query = "limit upload size file"
    agree = decide(query, Retrieval(tuple(UPLOADS), 0.45, 5.0, agreement=1), FREQ, DOCS)
    apart = decide(query, Retrieval(tuple(UPLOADS), 0.45, 5.0, agreement=30), FREQ, DOCS)
    assert agree.answer
    assert not apart.answer and apart.reason == WEAK_EVIDENCE and apart.relevance < agree.relevance


def test_nothing_retrieved_is_refused() -> None:
    assert decide("anything", Retrieval((), 0.9), {}, 1).reason == NO_HITS


def test_confidence_is_half_at_either_threshold_and_bounded() -> None:
    assert confidence(RELEVANCE_THRESHOLD) == 0.5
    assert confidence(RELEVANCE_THRESHOLD + 1, unknown=MAX_UNKNOWN_SHARE) == 0.5
    assert confidence(10) == 1.0 and confidence(-10) == 0.0


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
