"""ReferenceValidator rules, one per kind of evidence, on a small synthetic site."""

from __future__ import annotations

import pytest

from crawlers.model import AnchorMap, Page, Rename, Section
from docbot.answer import LinkAction
from docbot.references.validator import ReferenceValidator, Source

BASE = "http://docs.test/"


def sec(anchor: str, title: str, *parents: str, kind: str = "heading") -> Section:
    return Section(anchor, title, len(parents) + 1, (*parents, title), kind)


def make_map() -> AnchorMap:
    guide = Page(
        url=BASE + "guide.html",
        title="Guide",
        source_type="Guides",
        anchors=("guide", "connect-on-demand", "signals-and-flask-s-request-context", "SECRET_KEY",
                 "returning-api-errors-as-json", "id3", "accessing-and-modifying-the-session", "s-deploying",
                 "details-and-limitations", "cursorpagination", "get_serializer_classself"),
        sections=(
            sec("guide", "Guide"),
            sec("connect-on-demand", "Connect on Demand", "Guide"),
            sec("signals-and-flask-s-request-context", "Signals and Flask's Request Context", "Guide"),
            sec("returning-api-errors-as-json", "Returning API Errors as JSON", "Guide"),
            sec("id3", "Returning API Errors as JSON", "Guide", "Errors"),
            sec("accessing-and-modifying-the-session", "Accessing and Modifying the Session", "Guide"),
            sec("cursorpagination", "CursorPagination", "Guide"),
            sec("details-and-limitations", "Details and limitations", "Guide", "CursorPagination"),
            sec("get_serializer_classself", "get_serializer_class(self)", "Guide"),
        ),
    )
    api = Page(
        url=BASE + "api.html",
        title="API",
        source_type="API reference",
        anchors=("api", "typing.overload", "flask.Flask.get", "flask.Flask.add_url_rule", "flask.Request.get_json",
                 "flask.request"),
        sections=(
            sec("api", "API"),
            sec("typing.overload", "typing.overload", "API", kind="api"),
            sec("flask.Flask.get", "get(rule)", "API", kind="api"),
            sec("flask.Flask.add_url_rule", "add_url_rule(rule)", "API", kind="api"),
            sec("flask.Request.get_json", "get_json()", "API", kind="api"),
        ),
    )
    streaming = Page(url=BASE + "patterns/streaming.html", title="Streaming", anchors=("streaming-with-context",),
                     sections=(sec("streaming-with-context", "Streaming with Context", "Streaming"),))
    viewsets = Page(url=BASE + "viewsets/index.html", title="ViewSets", aliases=(BASE + "viewsets/",),
                    anchors=("modelviewset",), sections=(sec("modelviewset", "ModelViewSet", "ViewSets"),))
    pages = {p.url: p for p in (guide, api, streaming, viewsets)}
    renames = [Rename(BASE + "guide.html", "old-connect", "connect-on-demand", "2026-01-02T00:00:00Z")]
    return AnchorMap(site="docs", base_url=BASE, pages=pages, renames=renames)


@pytest.fixture(scope="module")
def validator() -> ReferenceValidator:
    return ReferenceValidator({"docs": make_map()}, allow_hosts=["github.com"])


@pytest.mark.parametrize(
    ("url", "action", "output", "reason"),
    [
        ("guide.html#connect-on-demand", LinkAction.KEPT, "guide.html#connect-on-demand", "exist"),
        ("guide.html", LinkAction.KEPT, "guide.html", "page exists"),
        ("guide.html#top", LinkAction.KEPT, "guide.html#top", "exist"),
        ("guide.html#secret_key", LinkAction.REWRITTEN, "guide.html#SECRET_KEY", "case-only"),
        ("api.html#flask.request.get_json", LinkAction.REWRITTEN, "api.html#flask.Request.get_json", "case-only"),
        ("guide.html#connect_on_demand", LinkAction.REWRITTEN, "guide.html#connect-on-demand", "slug style"),
        ("guide.html#signals-and-flasks-request-context", LinkAction.REWRITTEN,
         "guide.html#signals-and-flask-s-request-context", "slug style"),
        ("guide.html#user-content-connect-on-demand", LinkAction.REWRITTEN, "guide.html#connect-on-demand", "slug style"),
        ("guide.html#deploying", LinkAction.REWRITTEN, "guide.html#s-deploying", "slug style"),
        ("guide.html#get_serializer_class", LinkAction.REWRITTEN, "guide.html#get_serializer_classself", "slug style"),
        ("guide.html#old-connect", LinkAction.REWRITTEN, "guide.html#connect-on-demand", "renamed in crawl of 2026-01-02"),
        ("guide.html#returning-json-errors", LinkAction.REWRITTEN, "guide.html#returning-api-errors-as-json", "paraphrase"),
        ("guide.html#modifying-the-session", LinkAction.REWRITTEN, "guide.html#accessing-and-modifying-the-session",
         "paraphrase"),
        ("guide.html#cursor-pagination-limitations", LinkAction.REWRITTEN, "guide.html#details-and-limitations", "paraphrase"),
        ("api.html#flask.Flask.add_url", LinkAction.REWRITTEN, "api.html#flask.Flask.add_url_rule", "API name"),
        ("guide.html#streaming-with-context", LinkAction.REWRITTEN, "patterns/streaming.html#streaming-with-context",
         "another page"),
        ("guide.html#flask.Flask.get", LinkAction.REWRITTEN, "api.html#flask.Flask.get", "another page"),
        ("guide/#connect-on-demand", LinkAction.REWRITTEN, "guide.html#connect-on-demand", ".html"),
        ("guide.md#connect-on-demand", LinkAction.REWRITTEN, "guide.html#connect-on-demand", ".md"),
        ("en/latest/guide.html#connect-on-demand", LinkAction.REWRITTEN, "guide.html#connect-on-demand", "version prefix"),
        ("viewsets.html#modelviewset", LinkAction.REWRITTEN, "viewsets/index.html#modelviewset", "dir/"),
        ("viewsets/#ModelViewSet", LinkAction.REWRITTEN, "viewsets/#modelviewset", "case-only"),
        ("viewsets/#modelviewset", LinkAction.KEPT, "viewsets/#modelviewset", "exist"),
        ("guide.html#connection-pooling", LinkAction.FRAGMENT_DROPPED, "guide.html", "no such fragment"),
        ("missing.html#nothing-here", LinkAction.LINK_DROPPED, None, "page not in anchor map"),
    ],
)
def test_check_url_evidence(validator: ReferenceValidator, url: str, action: str, output: str | None, reason: str) -> None:
    outcome = validator.check_url(url, site="docs")
    assert (outcome.action, outcome.output) == (action, BASE + output if output else None), outcome.reason
    assert reason in outcome.reason


@pytest.mark.parametrize(
    "url",
    ["api.html#typing.override", "api.html#flask.Flask.got", "api.html#flask.Flask.gets", "api.html#get"],
)
def test_near_miss_to_a_different_api_is_not_close(validator: ReferenceValidator, url: str) -> None:
    outcome = validator.check_url(BASE + url)
    assert outcome.action == LinkAction.FRAGMENT_DROPPED
    assert outcome.output == BASE + "api.html"


def test_heading_anchor_preferred_over_generated_id(validator: ReferenceValidator) -> None:
    outcome = validator.check_url(BASE + "guide.html#returning-errors-as-json")
    assert outcome.output == BASE + "guide.html#returning-api-errors-as-json"


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("https://evil.example/phish#x", "not a configured site"),
        ("javascript:alert(1)", "not an http(s) link"),
        ("http://docs.test:99999/x", "malformed"),
        ("http://docs.test/a b.html", "malformed"),
        ("", "empty"),
        ("guide.html", "relative URL and no site"),
    ],
)
def test_unusable_urls_are_dropped_with_a_reason(validator: ReferenceValidator, url: str, reason: str) -> None:
    outcome = validator.check_url(url)
    assert outcome.action == LinkAction.LINK_DROPPED and outcome.output is None
    assert reason in outcome.reason


def test_allowlisted_host_is_kept_unchecked(validator: ReferenceValidator) -> None:
    outcome = validator.check_url("https://github.com/pallets/flask/issues/1")
    assert outcome.action == LinkAction.KEPT and "allowlist" in outcome.reason


def test_site_without_anchor_map_says_how_to_make_one(validator: ReferenceValidator) -> None:
    outcome = validator.check_url("guide.html", site="nosuchsite")
    assert outcome.action == LinkAction.LINK_DROPPED and "docbot crawl" in outcome.reason


def test_percent_encoded_and_unicode_fragments() -> None:
    page = Page(url=BASE + "u.html", title="U", anchors=("café-au-lait",), sections=(sec("café-au-lait", "Café au lait"),))
    v = ReferenceValidator({"u": AnchorMap(site="u", base_url=BASE, pages={page.url: page})})
    assert v.check_url(BASE + "u.html#caf%C3%A9-au-lait").action == LinkAction.KEPT
    assert v.check_url(BASE + "u.html#Café_au_lait").action == LinkAction.REWRITTEN


def src(n: int, url: str, source_type: str = "Guides", title: str = "T") -> Source:
    return Source(n, BASE + url, title, ("Guide", title), source_type, "docs", "snippet")


def test_validate_rewrites_links_keeps_text_of_dropped_ones(validator: ReferenceValidator) -> None:
    answer = (
        "See [connecting](guide.html#connect_on_demand) and <https://evil.example/x|this page>, "
        "also https://docs.test/guide.html#secret_key. And [gone](http://docs.test/nope.html)."
    )
    result = validator.validate(answer, [src(1, "guide.html")])
    assert result.answer == (
        f"See [connecting]({BASE}guide.html#connect-on-demand) and this page, "
        f"also {BASE}guide.html#SECRET_KEY. And gone."
    )
    assert [o.action for o in result.outcomes] == [LinkAction.KEPT, LinkAction.REWRITTEN, LinkAction.LINK_DROPPED, LinkAction.REWRITTEN, LinkAction.LINK_DROPPED]


def test_code_is_left_as_written_and_is_never_a_link(validator: ReferenceValidator) -> None:
    # a sample's URL is part of the code: removing it left requests.get("") in answers from the Requests docs
    answer = ("Fetch it [1]:\n\n```\nr = requests.get(\"https://httpbin.org/get\")\n```\n\n"
              "It resolves to `http://example.org/v1/`, not https://evil.example/x [1].")
    result = validator.validate(answer, [src(1, "guide.html")])
    assert result.answer == ("Fetch it [1]:\n\n```\nr = requests.get(\"https://httpbin.org/get\")\n```\n\n"
                             "It resolves to `http://example.org/v1/`, not  [1].")
    seen = [o.input for o in result.outcomes]
    assert "https://evil.example/x" in seen and not any("httpbin" in u or "example.org" in u for u in seen)


def test_markers_renumbered_in_order_of_first_use(validator: ReferenceValidator) -> None:
    sources = [
        src(1, "guide.html#connect-on-demand", title="Connect"),
        src(2, "api.html#flask.Flask.get", "API reference", "get"),
        src(3, "patterns/streaming.html#streaming-with-context", "Examples", "Streaming"),
    ]
    result = validator.validate("Use get [2]. Then connect [1][9]. Again [2, 1].", sources)
    assert result.answer == "Use get [1]. Then connect [2]. Again [1, 2]."
    assert [(r.n, r.url, r.primary) for r in result.references] == [
        (1, BASE + "api.html#flask.Flask.get", True),
        (2, BASE + "guide.html#connect-on-demand", False),
    ]
    assert [(g.type, g.refs) for g in result.groups] == [("API reference", (1,)), ("Guides", (2,))]


def test_a_marker_before_a_colon_is_a_citation_too(validator: ReferenceValidator) -> None:
    # SmolLM2 wrote "The [3]: This exception…": every [n] a reader sees must map to a listed reference
    sources = [src(1, "guide.html#connect-on-demand", title="Connect"), src(2, "api.html#flask.Flask.get", title="get"),
               src(3, "patterns/streaming.html#streaming-with-context", "Examples", "Streaming")]
    result = validator.validate("Connect first [1].\n\nThe [3]: stream it. The [9]: nothing.", sources)
    assert result.answer == "Connect first [1].\n\nThe [2]: stream it. The: nothing."
    assert [r.url for r in result.references] == [BASE + "guide.html#connect-on-demand",
                                                   BASE + "patterns/streaming.html#streaming-with-context"]
    # a link definition stays a link: its URL is checked like any other
    defined = validator.validate("See [1].\n\n[1]: " + BASE + "guide.html#connect-on-demand", sources)
    assert defined.answer.endswith("[1]: " + BASE + "guide.html#connect-on-demand")


def test_duplicate_and_dead_sources(validator: ReferenceValidator) -> None:
    sources = [
        src(1, "guide.html#connect-on-demand"),
        src(2, "guide.html#connect_on_demand"),  # same target once repaired: merged into [1]
        src(3, "nope.html#x"),  # dead: never referenced
        src(4, "guide.html#secret_key", title="stale title"),
    ]
    result = validator.validate("A [2]. B [3]. C [4].", sources)
    assert result.answer == "A [1]. B. C [2]."
    assert [r.url for r in result.references] == [BASE + "guide.html#connect-on-demand", BASE + "guide.html#SECRET_KEY"]


def test_no_markers_references_every_usable_source_in_order(validator: ReferenceValidator) -> None:
    sources = [src(1, "api.html#flask.Flask.get", "API reference"), src(2, "nope.html"), src(3, "guide.html")]
    result = validator.validate("An answer without markers.", sources)
    assert [r.n for r in result.references] == [1, 2]
    assert [r.url for r in result.references] == [BASE + "api.html#flask.Flask.get", BASE + "guide.html"]
    assert result.references[0].primary


def test_rewritten_source_takes_title_and_path_of_the_real_section(validator: ReferenceValidator) -> None:
    result = validator.validate("x [1]", [src(1, "guide.html#returning-json-errors", title="Old")])
    ref = result.references[0]
    assert ref.title == "Returning API Errors as JSON"
    assert ref.path == ("Guide", "Returning API Errors as JSON")


def test_thousands_of_links_and_huge_answers(validator: ReferenceValidator) -> None:
    answer = " ".join(f"[l{i}](https://docs.test/guide.html#frag-{i}) http://x{i}.example/" for i in range(2000))
    result = validator.validate(answer, [])
    assert "x1.example" not in result.answer
    assert result.answer.count(BASE + "guide.html") == 2000


def test_a_javadoc_id_is_spelled_as_the_page_writes_it_in_references_and_encoded_in_text() -> None:
    page = Page(url=BASE + "StringUtils.html", title="Class StringUtils", anchors=("isBlank(java.lang.CharSequence)",),
                sections=(sec("isBlank(java.lang.CharSequence)", "isBlank(CharSequence)", "Class StringUtils", kind="api"),))
    v = ReferenceValidator({"docs": AnchorMap(site="docs", base_url=BASE, pages={page.url: page})})
    url = BASE + "StringUtils.html#isBlank(java.lang.CharSequence)"
    out = v.validate(f"See {url} for blanks.", [Source(1, url, "isBlank(CharSequence)", (), "API reference", "docs")])
    assert out.references[0].url == url  # a link checker or a reader compares it with the id itself
    assert "#isBlank%28java.lang.CharSequence%29" in out.answer  # in text a ")" would end the link
