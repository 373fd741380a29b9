"""A question that names one of several indexed sites is answered from it; an everyday word is no name."""

from __future__ import annotations

import pytest

from docbot.retrieval.named import named_site

SITES = ["flask", "requests", "drf", "rust-book"]
# "request" is on every Flask and DRF chunk (HTTP requests); no other site says "flask", "drf" or "rust book"
DOC_FREQ = {
    "flask": ({"request": 40, "flask": 60}, 100),
    "requests": ({"request": 90, "session": 30}, 100),
    "drf": ({"request": 50, "serializer": 40}, 100),
    "rust-book": ({"borrow": 30}, 100),
}


@pytest.mark.parametrize(("question", "site"), [
    ("How do I send a multipart file upload with requests?", "requests"),
    ("multipart upload using requests", "requests"),
    ("Does requests.post follow redirects?", "requests"),
    ("after import requests, how do I set a timeout", "requests"),
    ("How does `requests` verify certificates?", "requests"),
    ("How do I set a timeout in the requests library?", "requests"),
    ("Why does Requests retry a failed connection?", "requests"),
    ("How does Flask handle requests?", "flask"),
    ("How do I throttle requests in DRF?", "drf"),
    ("what does the Rust book say about borrowing", "rust-book"),
    ("rust_book ownership chapter", "rust-book"),
])
def test_a_question_that_names_a_site_chooses_it(question: str, site: str) -> None:
    assert named_site(question, SITES, DOC_FREQ) == site


@pytest.mark.parametrize("question", [
    "How many requests may each client make per minute?",  # an everyday word of the other sites
    "Requests per minute: how do I limit them?",  # capitalised as the sentence's first word
    "How do I return JSON with a status code?",  # no site named
    "Should I use Flask or DRF for an API?",  # two sites named: retrieval decides
    "flasks and drfx are not names",  # whole words only
])
def test_no_site_or_several_choose_none(question: str) -> None:
    assert named_site(question, SITES, DOC_FREQ) is None


def test_a_name_no_other_site_uses_needs_no_cue() -> None:
    assert named_site("is there a session object in requests", ["requests", "rust-book"],
                      {"requests": DOC_FREQ["requests"], "rust-book": DOC_FREQ["rust-book"]}) == "requests"
    assert named_site("how are requests sessions pooled", ["requests", "rust-book"],
                      {"requests": DOC_FREQ["requests"], "rust-book": DOC_FREQ["rust-book"]}) == "requests"


def test_a_tool_named_in_passing_leaves_the_question_to_the_best_sections_site() -> None:
    sites = ["flask", "sqlalchemy"]
    freq = {"flask": ({"flask": 60, "sqlalchemi": 15}, 1000), "sqlalchemy": ({"session": 300}, 1000)}  # 1.5 %
    question = "With an app factory, where do I create the SQLAlchemy db object?"
    factories = ("flask", "Create the extension object first: db = SQLAlchemy(), then db.init_app(app).")
    assert named_site(question, sites, freq) == "sqlalchemy"
    assert named_site(question, sites, freq, best=factories) is None  # Flask's own section talks about it
    assert named_site(question, sites, freq, best=("flask", "Application factories create the app.")) == "sqlalchemy"
    assert named_site(question, sites, freq, best=("sqlalchemy", "The Session is...")) == "sqlalchemy"


def test_an_everyday_word_in_the_best_section_does_not_keep_its_site() -> None:
    best = ("drf", "MultiPartParser parses multipart requests with file uploads.")
    assert named_site("How do I send a multipart upload with requests?", SITES, DOC_FREQ, best=best) == "requests"
