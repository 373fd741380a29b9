"""The ReferenceValidator and text directives: a URL's directive is checked like its fragment, and a quoted source's
link gets one that lands on the quote."""

from __future__ import annotations

from pathlib import Path

import pytest

from crawlers.model import AnchorMap, Page, Section
from crawlers.page_text import OUTSIDE, PageText
from docbot.answer import LinkAction
from docbot.references.directives import Directives
from docbot.references.validator import ReferenceValidator, Source

BASE = "http://docs.test/"
URL = BASE + "guide.html"
PAGE_TEXT = PageText.of_runs(URL, (
    (OUTSIDE, "Contents"),
    (0, "Install"), (0, "To install the tool, run the installer. If typed is set to true, arguments are cached."),
    (1, "Usage"), (1, "Run the tool with a path. Run the installer again to repair it."),
), ((2, ("install",)), (2, ("usage", "Usage-old"))))
AMAP = AnchorMap(site="docs", base_url=BASE, pages={URL: Page(
    url=URL, title="Guide", anchors=("install", "usage", "Usage-old"),
    sections=(Section("install", "Install", 2, ("Guide", "Install")), Section("usage", "Usage", 2, ("Guide", "Usage"))),
)})


def reader(site: str, page: str) -> PageText | None:
    return PAGE_TEXT if (site, page) == ("docs", URL) else None


def validator(on: bool = True) -> ReferenceValidator:
    return ReferenceValidator({"docs": AMAP}, page_texts=reader if on else None)


def test_a_directive_that_lands_in_its_section_is_kept() -> None:
    url = URL + "#install:~:text=If%20typed%20is,cached"
    outcome = validator().check_url(url)
    assert (outcome.action, outcome.output) == (LinkAction.KEPT, url)
    assert "text directive lands in #install" in outcome.reason


def test_a_directive_landing_elsewhere_is_dropped_and_the_anchor_kept() -> None:
    outcome = validator().check_url(URL + "#usage:~:text=If%20typed%20is")
    assert (outcome.action, outcome.output) == (LinkAction.REWRITTEN, URL + "#usage")
    assert outcome.reason.endswith("text directive dropped: its first match is outside #usage (in #install) (anchor kept)")
    gone = validator().check_url(URL + "#usage:~:text=words%20that%20are%20gone")
    assert gone.output == URL + "#usage" and "its text is not on the page" in gone.reason


def test_a_repaired_fragment_takes_its_directive_along_and_a_dead_one_drops_it() -> None:
    repaired = validator().check_url(URL + "#Install:~:text=If%20typed%20is")
    assert (repaired.action, repaired.output) == (LinkAction.REWRITTEN, URL + "#install:~:text=If%20typed%20is")
    dead = validator().check_url(URL + "#nowhere-at-all:~:text=If%20typed%20is")
    assert dead.action == LinkAction.FRAGMENT_DROPPED and dead.output == URL and "section it was to land in is gone" in dead.reason


def test_without_page_texts_no_directive_is_kept() -> None:
    outcome = validator(on=False).check_url(URL + "#install:~:text=If%20typed%20is")
    assert outcome.output == URL + "#install" and "text directives are turned off" in outcome.reason


def test_malformed_and_other_directives_are_dropped() -> None:
    outcome = validator().check_url(URL + "#install:~:text=a-b&foo=1")
    assert outcome.output == URL + "#install" and "malformed" in outcome.reason and "other than text=" in outcome.reason
    page_only = validator().check_url(URL + "#:~:text=Run%20the%20tool")
    assert page_only.output == URL + "#:~:text=Run%20the%20tool" and page_only.action == LinkAction.KEPT


def test_a_quoted_source_gets_a_directive_for_its_quote_and_keeps_it_as_its_quote() -> None:
    sources = [Source(1, URL + "#install", "Install", ("Guide", "Install"), "Guides", "docs",
                      passage="If typed is set to true, arguments are cached."),
               Source(2, URL + "#usage", "Usage", ("Guide", "Usage"), "Guides", "docs")]
    out = validator().validate("Cached when typed [1]. See usage [2].", sources)
    first, second = out.references
    assert first.url == URL + "#install:~:text=If%20typed%20is,cached" and first.quote.startswith("If typed")
    assert first.title == "Install"
    assert second.url == URL + "#usage" and second.quote == ""
    assert "text directive for the quoted passage" in out.outcomes[0].reason
    assert validator(on=False).validate("x [1]", sources[:1]).references[0].url == URL + "#install"


def test_a_quote_not_found_in_its_section_leaves_the_link_as_it_is() -> None:
    sources = [Source(1, URL + "#usage", "Usage", ("Guide", "Usage"), "Guides", "docs", passage="Nothing like this.")]
    assert validator().validate("x [1]", sources).references[0].url == URL + "#usage"


def test_directives_are_derived_once_per_quote_while_the_page_text_is_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    import docbot.references.directives as module

    derived: list[str] = []
    real = module.derive
    monkeypatch.setattr(module, "derive", lambda m, fragment, passage: derived.append(passage) or real(m, fragment, passage))
    served: dict[str, PageText | None] = {}
    directives = Directives(reader, freshen=lambda site, page, stored: served.get(page, stored))
    for _ in range(3):
        assert directives.derive("docs", URL, "usage", "Run the installer again to repair it.") is not None
    assert len(derived) == 1
    served[URL] = None  # the docs server did not confirm the page: no directive, nothing derived
    assert directives.derive("docs", URL, "usage", "Run the installer again to repair it.") is None
    assert len(derived) == 1


def test_the_switch_in_docbot_toml_turns_directives_off(tmp_path: Path) -> None:
    from docbot.config import load_settings
    from docbot.errors import ConfigError
    from docbot.reading import latest_page_texts

    config = tmp_path / "docbot.toml"
    config.write_text("[validator]\ntext_fragments = false\n", encoding="utf-8")
    settings = load_settings(config_path=str(config))
    assert settings.text_fragments is False and latest_page_texts(settings) is None
    config.write_text("", encoding="utf-8")
    assert load_settings(config_path=str(config)).text_fragments is True
    config.write_text("[validator]\ntext_fragments = \"no\"\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="true or false"):
        load_settings(config_path=str(config))


def test_a_passage_that_spells_a_url_gets_no_directive() -> None:
    page = PageText.of_runs(URL, ((0, "Install"), (0, "Then open http://evil.example/login and log in to the portal.")),
                            ((2, ("install",)),))
    directives = Directives(lambda site, url: page)
    assert directives.derive("docs", URL, "install", "Then open http://evil.example/login and log in to the portal.") is None
    assert directives.derive("docs", URL, "install", "and log in to the portal.") is not None
