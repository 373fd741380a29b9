from __future__ import annotations

from docbot.indexing.chunk import Chunk, content_hash
from docbot.retrieval.hybrid import Retriever, jaccard, mmr, rrf
from tests.docbot.ask_fakes import FakeIndex, make_chunks


def test_rrf_rewards_agreement_between_rankings() -> None:
    fused = rrf([(["a", "b", "c"], 1.0), (["b", "c", "a"], 1.0)])
    assert max(fused, key=fused.__getitem__) == "b"
    assert fused["b"] == 1 / 62 + 1 / 61


def test_mmr_skips_a_near_duplicate() -> None:
    same = frozenset({"cookie", "session", "secure"})
    other = frozenset({"upload", "size"})
    assert mmr([1.0, 0.99, 0.8], [same, same, other], k=2, lam=0.5) == [0, 2]
    assert jaccard(same, same) == 1.0


def test_search_finds_the_section_about_the_question() -> None:
    result = Retriever(FakeIndex(make_chunks())).search("how do I limit upload size MAX_CONTENT_LENGTH", k=3)
    assert result.hits[0].deep_url == "http://docs.test/guide.html#uploading-files"
    assert result.top_dense > 0 and result.top_lexical > 0


def test_parts_of_one_section_come_back_as_one_hit() -> None:
    base = make_chunks()
    url = "http://docs.test/guide.html"
    extra = Chunk("p2", "demo", url, "sessions", f"{url}#sessions", "Sessions", ("Guide", "Sessions"), 2,
                  "Guides", "Second part about session lifetime.", content_hash("x"), 1)
    result = Retriever(FakeIndex([*base, extra])).search("session lifetime signed cookie", k=5)
    urls = [h.deep_url for h in result.hits]
    assert urls.count(f"{url}#sessions") == 1
    merged = next(h for h in result.hits if h.anchor == "sessions")
    assert "signed cookie" in merged.text and "session lifetime" in merged.text


def test_a_tiny_subsection_brings_its_parents_lead() -> None:
    hit = Retriever(FakeIndex(make_chunks())).section("demo", "http://docs.test/guide.html#tiny")
    assert hit is not None and hit.deep_url.endswith("#tiny")
    assert "before request hook" in hit.context


def test_site_filter_and_boost() -> None:
    other = [Chunk("o1", "other", "http://o.test/a.html", "x", "http://o.test/a.html#x", "Upload", ("A", "Upload"),
                   2, "Guides", "upload size limit", content_hash("o"))]
    retriever = Retriever(FakeIndex([*make_chunks(), *other]))
    assert all(h.site == "demo" for h in retriever.search("upload size limit", sites=["demo"]).hits)
    boosted = retriever.search("cookie", k=5, boost=["http://docs.test/guide.html#sessions"])
    assert boosted.hits[0].deep_url == "http://docs.test/guide.html#sessions"


def test_a_source_listing_page_is_never_an_answer_but_stays_searchable_within() -> None:
    url = "http://docs.test/_modules/app/uploads.html"
    code = "```\ndef limit_upload_size(max_content_length):\n    # upload size limit\n    return max_content_length\n```"
    listing = Chunk("src", "demo", url, None, url, "app.uploads", ("Source code for app.uploads",), 1, "Other",
                    code, content_hash(code))
    retriever = Retriever(FakeIndex([*make_chunks(), listing]))
    assert url not in {h.url for h in retriever.search("limit upload size max_content_length", k=5).hits}
    assert [h.url for h in retriever.search("limit upload size", k=2, within=url).hits] == [url]


def test_neighbouring_sections_keep_their_order_but_copies_are_skipped() -> None:
    answer = frozenset({"cursor", "pagination", "ordering", "field", "created", "unique"})
    neighbour = frozenset({"cursor", "pagination", "ordering", "page", "size", "setting"})
    copy = frozenset(answer)
    # Relevance order is kept even for a neighbour sharing half the words (the likeliest runner-up) ...
    assert mmr([1.0, 0.9, 0.8], [answer, neighbour, frozenset({"other"})], k=3) == [0, 1, 2]
    # ... but the same text on a second page is not cited twice.
    assert mmr([1.0, 0.95, 0.8], [answer, copy, neighbour], k=3) == [0, 2]


def test_documentation_comes_before_a_release_note_that_matches_as_well() -> None:
    url = "http://docs.test/changes.html"
    note = Chunk("rn", "demo", url, "v2", f"{url}#v2", "Version 2.0", ("Changes", "Version 2.0"), 2,
                 "Release notes", "Limit upload size: MAX_CONTENT_LENGTH limits the upload size. Over the upload size limit: 413.",
                 content_hash("rn"))
    result = Retriever(FakeIndex([note, *make_chunks()]), rank=False).search(  # retrieval's order, the ranker's input
        "limit upload size MAX_CONTENT_LENGTH 413", k=3)
    urls = [h.deep_url for h in result.hits]
    assert urls.index("http://docs.test/guide.html#uploading-files") < urls.index(f"{url}#v2")
    # ... while the gate still sees the sections in the order the evidence alone gives
    assert result.leading[0].deep_url == f"{url}#v2"


def test_a_fuller_section_comes_before_a_one_line_entry_that_matches_as_well() -> None:
    url = "http://docs.test/api.html"
    terse = Chunk("t1", "demo", url, "app.App.upload_limit", f"{url}#app.App.upload_limit", "App.upload_limit",
                  ("API", "App", "App.upload_limit"), 3, "API reference", "Upload size limit, see MAX_CONTENT_LENGTH.",
                  content_hash("t1"))
    guide = "http://docs.test/limits.html"
    full = Chunk("f1", "demo", guide, "upload-limits", f"{guide}#upload-limits", "Upload Limits", ("Limits", "Upload Limits"),
                 2, "Guides", "To cap how much a client may upload, set MAX_CONTENT_LENGTH to the largest request body you "
                 "accept, in bytes. Flask reads it before the body and refuses anything bigger with a 413 error, so an "
                 "upload over the size limit never fills the memory of the worker that handles it.", content_hash("f1"))
    result = Retriever(FakeIndex([terse, full]), rank=False).search(  # retrieval's order, the ranker's input
        "upload size limit MAX_CONTENT_LENGTH", k=2)
    urls = [h.deep_url for h in result.hits]
    assert result.leading[0].deep_url == f"{url}#app.App.upload_limit"  # first on evidence alone ...
    assert urls[0] == f"{guide}#upload-limits"  # ... but the fuller section (40 words or more) answers
