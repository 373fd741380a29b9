from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crawlers.urls import in_scope, normalize, scope_prefix, split_fragment


def test_directory_and_index_html_are_the_same_page() -> None:
    assert normalize("http://127.0.0.1:8000/api-guide/serializers/") == normalize(
        "http://127.0.0.1:8000/api-guide/serializers/index.html"
    )


def test_scheme_host_case_default_port_and_tracking_params_are_normalised() -> None:
    assert normalize("HTTPS://Docs.Example.COM:443/a/b.html?utm_source=x&b=2&a=1#frag") == (
        "https://docs.example.com/a/b.html?a=1&b=2"
    )


def test_percent_encoding_is_canonical() -> None:
    assert normalize("http://h/a%7Eb/c%20d.html") == normalize("http://h/a~b/c d.html")


def test_dot_segments_resolve() -> None:
    assert normalize("http://h/a/../b/./c.html") == "http://h/b/c.html"


def test_hash_routes_are_not_anchors() -> None:
    assert split_fragment("http://h/app#/settings") == ("http://h/app", "")
    assert split_fragment("http://h/app#!/x") == ("http://h/app", "")
    assert split_fragment("http://h/p.html#caf%C3%A9") == ("http://h/p.html", "café")


def test_non_http_urls_are_rejected() -> None:
    with pytest.raises(ValueError):
        normalize("mailto:someone@example.com")


def test_scope_is_origin_and_directory_with_globs() -> None:
    prefix = scope_prefix("http://127.0.0.1:8000/docs/index.html")
    assert prefix == "http://127.0.0.1:8000/docs/"
    assert in_scope("http://127.0.0.1:8000/docs/api.html", prefix)
    assert not in_scope("http://127.0.0.1:8000/other/api.html", prefix)
    assert not in_scope("http://127.0.0.1:9999/docs/api.html", prefix)
    assert not in_scope("http://127.0.0.1:8000/docs/_modules/x.html", prefix, exclude=("_modules/*",))
    assert in_scope("http://127.0.0.1:8000/docs/api/x.html", prefix, include=("api/*",))
    assert not in_scope("http://127.0.0.1:8000/docs/guide.html", prefix, include=("api/*",))


_SEGMENT = st.text(alphabet="aZ09-._~%25 é/+:@!$&'()*,;=", max_size=12)
_QUERY = st.lists(st.tuples(st.text(alphabet="aZ9_-+ %é", min_size=1, max_size=6),
                            st.text(alphabet="aZ9_-+ %é=&", max_size=6)), max_size=3)


@settings(max_examples=400, deadline=None)
@given(scheme=st.sampled_from(["http", "HTTPS"]), host=st.sampled_from(["Docs.example.org", "127.0.0.1", "[::1]"]),
       port=st.sampled_from(["", ":80", ":443", ":8000"]), segments=st.lists(_SEGMENT, max_size=4),
       query=_QUERY, fragment=st.text(max_size=5))
def test_normalize_is_idempotent(scheme: str, host: str, port: str, segments: list[str],
                                 query: list[tuple[str, str]], fragment: str) -> None:
    # AnchorMap.canonical looks a URL up as it is before normalising it: that is only right if a
    # normal form normalises to itself.
    url = f"{scheme}://{host}{port}/" + "/".join(segments)
    if query:
        url += "?" + "&".join(f"{k}={v}" for k, v in query)
    url += "#" + fragment
    try:
        once = normalize(url)
    except ValueError:
        return
    assert normalize(once) == once


def test_encoded_dot_segments_resolve_and_stay_resolved() -> None:
    assert normalize("http://h/docs/%2e%2e/admin/secret.html") == "http://h/admin/secret.html"
    assert normalize("http://h/docs/%2E./x/.%2e/y.html") == "http://h/y.html"
    assert normalize("http://h/docs/%252e%252e/y.html") == "http://h/docs/%252e%252e/y.html"  # a literal "%2e%2e"
    assert not in_scope("http://h/docs/%2e%2e/admin/secret.html", scope_prefix("http://h/docs/"))


_DOTTY = st.sampled_from(["..", ".", "%2e%2e", "%2E%2e", ".%2e", "%2e.", "%2e", "%2F", "%2f..", "%2F%2e%2e", "a", "b c",
                          "%25", "%252e%252e", "%", "%zz", "%ff", "", "é", "~", "?x=1", "#f"])


@settings(max_examples=400, deadline=None)
@given(segments=st.lists(_DOTTY, max_size=8), trailing=st.booleans())
def test_normalize_is_idempotent_with_encoded_dot_segments(segments: list[str], trailing: bool) -> None:
    url = "http://h.test/docs/" + "/".join(segments) + ("/" if trailing else "")
    once = normalize(url)
    assert normalize(once) == once
    path = once.split("/", 3)[3].partition("?")[0]
    assert ".." not in path.split("/") and "." not in path.split("/")


@settings(max_examples=400, deadline=None)
@given(tail=st.text(max_size=40))
def test_normalize_is_idempotent_for_any_text(tail: str) -> None:
    try:
        once = normalize("http://h.test/docs/" + tail)
    except ValueError:
        return
    assert normalize(once) == once


def test_a_fragment_directive_is_no_part_of_the_fragment() -> None:
    from crawlers.urls import split_directive

    url = "http://h/p.html#functools.lru_cache:~:text=If%20typed%20is%20set"
    assert split_fragment(url) == ("http://h/p.html", "functools.lru_cache")
    assert split_directive(url) == ("http://h/p.html#functools.lru_cache", "text=If%20typed%20is%20set")
    assert split_directive("http://h/p.html#:~:text=a") == ("http://h/p.html", "text=a")
    assert split_directive("http://h/p.html#plain") == ("http://h/p.html#plain", None)
    assert split_fragment("http://h/p.html#:~:text=a") == ("http://h/p.html", "")
