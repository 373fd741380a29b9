"""classify(): per-site rules first, then URL rules, then the markup hint."""

from __future__ import annotations

import pytest

from crawlers.model import SOURCE_TYPES
from crawlers.sourcetype import classify

BASE = "https://docs.example.org"


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/library/asyncio-task.html", "API reference"),
        ("/api.html", "API reference"),
        ("/reference/datamodel.html", "API reference"),
        ("/tutorial/index.html", "Tutorials"),
        ("/tutorial/modules.html", "Tutorials"),
        ("/user/quickstart.html", "Tutorials"),
        ("/getting-started/", "Tutorials"),
        ("/patterns/sqlite3.html", "Examples"),
        ("/howto/logging-cookbook.html", "Examples"),
        ("/examples/", "Examples"),
        ("/faq/library.html", "FAQ"),
        ("/community/faq.html", "FAQ"),
        ("/changes.html", "Release notes"),
        ("/whatsnew/3.11.html", "Release notes"),
        ("/community/release-notes/", "Release notes"),
        ("/change_log/index.html", "Release notes"),  # Python-Markdown's (MkDocs): its words run together elsewhere
        ("/docs/Change-Log.html", "Release notes"),
        ("/genindex.html", "Other"),
        ("/genindex-A.html", "Other"),
        ("/search.html", "Other"),
        ("/py-modindex.html", "Other"),
        ("/404.html", "Other"),
        ("/_modules/requests/sessions.html", "Other"),
        ("/deploying/nginx.html", "Guides"),
        ("/", "Guides"),
    ],
)
def test_default_url_rules(path: str, expected: str) -> None:
    assert classify(BASE + path) == expected


def test_site_rules_win_in_order_and_match_the_path() -> None:
    rules = [("/topics/*", "Guides"), ("*/api-guide/*", "API reference"), ("topics/*", "Examples")]
    assert classify(BASE + "/topics/api.html", rules) == "Guides"
    assert classify(BASE + "/api-guide/serializers/", rules) == "API reference"
    assert classify(BASE + "/patterns/x.html?q=1#frag", rules) == "Examples"


def test_markup_hint_only_when_no_url_rule_matches() -> None:
    assert classify(BASE + "/config.html", hint="API reference") == "API reference"
    assert classify(BASE + "/tutorial/x.html", hint="API reference") == "Tutorials"
    assert classify(BASE + "/config.html", hint="not a type") == "Guides"


def test_a_page_whose_headings_name_releases_is_release_notes() -> None:
    from crawlers.sourcetype import markup_hint

    # Requests' changelog is community/updates.html: no URL rule knows it, its headings do
    history = ["Community Updates", "GitHub", "Release History", "2.28.1 (2022-06-29)", "2.28.0 (2022-06-09)",
               "v2.27.1", "Version 2.27.0", "2.26.0 – 2021-07-13"]
    assert markup_hint(history, 0) == "Release notes"
    assert classify(BASE + "/community/updates.html", hint=markup_hint(history, 0)) == "Release notes"
    # numbered sections are no releases (the Python docs' "2.1. Creating a built distribution")
    assert markup_hint(["2. Creating Built Distributions", "2.1. Creating RPM packages", "2.2. Cross-compiling",
                        "2.3. Postinstallation script"], 0) is None
    assert markup_hint(["Intro", "2.0.0", "1.9.0"], 0) is None  # a few releases on a page about something else
    assert markup_hint(["flask.Flask", "Flask.run()"], 3) == "API reference"


def test_a_page_whose_headings_are_signatures_is_an_api_reference() -> None:
    from crawlers.sourcetype import markup_hint

    # Node.js writes its API reference as headings, with no markup that says "entry": its pages were typed Guides
    http = ["HTTP", "Class: http.Agent", "new Agent([options])", "agent.createConnection(options[, callback])",
            "agent.maxSockets", "Event: 'timeout'", "request.setTimeout(timeout[, callback])", "Examples"]
    assert markup_hint(http, 0) == "API reference"
    # a guide's headings are prose, a bracket after a word included (no call); a few names do not make a reference
    guide = ["Installation (Linux)", "Using Box<T> to Point to Data", "What is Ownership?", "Configuration",
             "Deploying", "os.path"]
    assert markup_hint(guide, 0) is None


def test_bad_rule_type_says_what_to_fix() -> None:
    with pytest.raises(ValueError, match=r"docbot\.toml"):
        classify(BASE + "/a.html", [("/a.html", "Guide")])


def test_result_is_always_a_known_type() -> None:
    for path in ("/x", "/a/b/c.html", "/%E2%9C%93.html", "", "/API/Reference.HTML"):
        assert classify(BASE + path) in SOURCE_TYPES


@pytest.mark.parametrize(
    ("url", "navigation"),
    [
        ("https://d.test/api/index-all.html", True),
        ("https://d.test/api/org/x/class-use/Pair.html", True),
        ("https://d.test/genindex-A.html", True),
        ("https://d.test/class_json_1_1_value-members.html", True),
        ("https://d.test/tutorial/classes.html", False),  # a page about classes, not a list of them
        ("https://d.test/api/org/x/Pair.html", False),
    ],
)
def test_generated_page_lists_are_navigation(url: str, navigation: bool) -> None:
    from crawlers.sourcetype import is_navigation

    assert is_navigation(url) is navigation
