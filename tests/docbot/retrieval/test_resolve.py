from __future__ import annotations

from docbot.retrieval.resolve import ResolvedBy, Resolver
from tests.docbot.ask_fakes import make_map, make_validator


def resolver() -> Resolver:
    return Resolver({"demo": make_map()}, make_validator())


def test_pasted_url_with_a_wrong_fragment_lands_on_the_real_section() -> None:
    targets = resolver().resolve("I read guide.html#Uploading_Files, how big can uploads be?", ["demo"])
    assert targets[0].deep_url == "http://docs.test/guide.html#uploading-files"
    assert targets[0].how == ResolvedBy.URL


def test_absolute_url_resolves() -> None:
    targets = resolver().resolve("see http://docs.test/guide.html#sessions please", ["demo"])
    assert targets[0].deep_url == "http://docs.test/guide.html#sessions"


def test_api_symbol_short_and_qualified() -> None:
    for question in ("What does App.route do?", "What does app.App.route do?", "Explain `App.route`"):
        targets = resolver().resolve(question, ["demo"])
        assert targets[0].deep_url == "http://docs.test/api.html#app.App.route", question
        assert targets[0].strong


def test_lowercase_dotted_name_never_matches_a_capitalised_api_by_case_folding() -> None:
    assert resolver().resolve("why is app.route slow", ["demo"]) == []


def test_quoted_title() -> None:
    targets = resolver().resolve('In the "Logging Requests" part, what hook is used?', ["demo"])
    assert targets[0].deep_url == "http://docs.test/guide.html#logging-requests"
    assert targets[0].how == ResolvedBy.TITLE


def test_nothing_explicit() -> None:
    assert resolver().resolve("how do I keep users logged in?", ["demo"]) == []


def test_a_heading_that_only_starts_with_an_api_name_is_not_that_api() -> None:
    # A release note titled "App.route() now checks methods" must not outrank the API entry App.route.
    notes = ("changes.html", "app-route-now-checks-methods", "App.route() now checks methods",
             ("Changes", "App.route() now checks methods"), "heading", "Release notes", "Since 2.0 ...")
    from tests.docbot.ask_fakes import SECTIONS

    amap = make_map(sections=(notes, *SECTIONS))
    targets = Resolver({"demo": amap}, make_validator()).resolve("What does App.route do?", ["demo"])
    assert [t.deep_url for t in targets] == ["http://docs.test/api.html#app.App.route"]


def _numbered() -> Resolver:
    from tests.docbot.ask_fakes import SECTIONS

    rows = (
        ("indexes.html", "INDEXES-PARTIAL", "11.8. Partial Indexes", ("11. Indexes", "11.8. Partial Indexes"),
         "heading", "Guides", "A partial index is built over a subset of a table."),
        ("ecpg.html", "ECPG-TYPE", "TYPE", ("ECPG", "TYPE"), "heading", "Reference", "Define a new data type."),
        ("glossary.html", "term-slug", "slug", ("Glossary", "slug"), "heading", "Reference", "A short label."),
    )
    return Resolver({"demo": make_map(sections=(*rows, *SECTIONS))}, make_validator())


def test_a_quoted_title_names_its_section_without_the_heading_number() -> None:
    targets = _numbered().resolve('What does the "Partial Indexes" section say about WHERE?', ["demo"])
    assert targets[0].deep_url == "http://docs.test/indexes.html#INDEXES-PARTIAL"
    assert targets[0].strong


def test_one_quoted_word_that_happens_to_be_a_title_is_only_a_weak_reference() -> None:
    # '"type"' here is a JSON key, not the ECPG TYPE command: it must not pin the answer.
    targets = _numbered().resolve("""Querying payload @> '{"type": "click"}' is slow, what index?""", ["demo"])
    assert all(not t.strong for t in targets if t.anchor == "ECPG-TYPE")


def test_a_backticked_plain_word_is_a_topic_not_a_glossary_symbol() -> None:
    # `slug` is the user's field name; the glossary's "slug" entry is a plain-word heading, not an API symbol.
    assert _numbered().resolve("How do I fill the new `slug` field for existing rows?", ["demo"]) == []


def test_a_method_named_with_its_class_resolves_on_javadoc_and_doxygen_pages() -> None:
    from tests.docbot.ask_fakes import SECTIONS

    rows = (
        ("BooleanUtils.html", "toBoolean(java.lang.String)", "toBoolean(String)", ("Class BooleanUtils", "toBoolean(String)"),
         "api", "API reference", "Converts a String to a boolean."),
        ("class_json_1_1_value.html", "a0b1", "size()", ("Json::Value Class Reference", "size()"), "api",
         "API reference", "Number of values in array or object."),
    )
    r = Resolver({"demo": make_map(sections=(*rows, *SECTIONS))}, make_validator())
    java = r.resolve("Which strings does BooleanUtils.toBoolean(String) treat as true?", ["demo"])
    assert java[0].deep_url == "http://docs.test/BooleanUtils.html#toBoolean(java.lang.String)" and java[0].strong
    cpp = r.resolve("Is Json::Value::size constant time?", ["demo"])
    assert cpp[0].deep_url == "http://docs.test/class_json_1_1_value.html#a0b1"


def test_an_api_name_resolves_to_its_own_page_not_an_all_in_one_copy_or_an_index() -> None:
    from tests.docbot.ask_fakes import SECTIONS

    copy = ("all.html", "all_app.App.route", "App.route()", ("All", "App.route()"), "api", "Other", "Register a rule.")
    amap = make_map(sections=(copy, *SECTIONS))  # "Other": crawled as an all-in-one copy (or an index) of the site
    targets = Resolver({"demo": amap}, make_validator()).resolve("What does App.route do?", ["demo"])
    assert [t.deep_url for t in targets] == ["http://docs.test/api.html#app.App.route"]


def test_a_quoted_title_resolves_to_its_own_page_not_an_all_in_one_copy() -> None:
    from tests.docbot.ask_fakes import SECTIONS

    copy = ("all.html", "all_logging-requests", "Logging Requests", ("All", "Logging Requests"), "heading", "Other",
            "Use the before_request hook.")
    amap = make_map(sections=(copy, *SECTIONS))
    targets = Resolver({"demo": amap}, make_validator()).resolve('In the "Logging Requests" part, what hook is used?',
                                                                 ["demo"])
    assert [t.deep_url for t in targets] == ["http://docs.test/guide.html#logging-requests"]
