"""The crawl report's error kinds: one closed vocabulary whose values are the strings the report has always written."""

from __future__ import annotations

from crawlers.crawl.issues import TRANSIENT, CrawlIssue
from crawlers.fetch import FetchError


def test_the_report_keys_are_the_strings_it_always_wrote() -> None:
    assert {e.value for e in FetchError} == {
        "timeout", "deadline", "connect", "http", "server_error", "rate_limited", "not_found", "client_error",
        "redirect_loop", "too_many_redirects", "not_html", "offsite_redirect", "render_failed"}
    assert {e.value for e in CrawlIssue} == {
        "parse_error", "unexpected_304", "truncated", "too_deep", "internal", "offsite_sitemap", "max_time",
        "url_too_long", "robots_disallowed", "query_variants", "max_pages"}


def test_no_kind_is_spelled_in_both_and_a_missing_page_is_not_transient() -> None:
    assert not {e.value for e in FetchError} & {e.value for e in CrawlIssue}
    assert FetchError.NOT_FOUND not in TRANSIENT and FetchError.NOT_HTML not in TRANSIENT
    assert CrawlIssue.PARSE_ERROR in TRANSIENT
