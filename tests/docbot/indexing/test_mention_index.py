"""What other pages say about a section, as a BM25 of its own: where mentions land, and the saved index."""

from __future__ import annotations

from pathlib import Path

from crawlers.model import Mention, SectionText
from docbot.indexing.mentions import MentionIndex, gather
from tests.docbot.ask_fakes import BASE, SECTIONS, make_chunks, make_map


def texts() -> list[SectionText]:
    return [SectionText("demo", BASE + page, anchor, title, len(path), path, stype, text, kind)
            for page, anchor, title, path, kind, stype, text in SECTIONS]


MENTIONS = [
    Mention(BASE + "faq.html", BASE + "guide.html", "uploading-files", "uploading-files", "uploads",
            "Reject huge request bodies early: see uploads."),
    Mention(BASE + "faq.html", BASE + "guide.html", "uploading-files", "uploading-files", "uploads",
            "Reject huge request bodies early: see uploads."),  # the same words twice count once
    Mention(BASE + "index.html", BASE + "guide.html", "uploading-files", "uploading-files", "Uploading Files", ""),
    Mention(BASE + "index.html", BASE + "api.html", None, None, "the API", "Every function is in the API."),
    Mention(BASE + "index.html", BASE + "gone.html", None, None, "a page not indexed", ""),
]


def test_mentions_land_on_their_section_or_the_page_s_first_and_count_other_pages() -> None:
    said, inlinks = gather(MENTIONS, texts(), make_map(), make_chunks())
    assert said[BASE + "guide.html#uploading-files"] == ["Reject huge request bodies early: see uploads.",
                                                         "Uploading Files"]
    assert said[BASE + "api.html#app.App.route"] == ["Every function is in the API."]  # no fragment: the page's top
    assert inlinks[BASE + "guide.html#uploading-files"] == 2
    assert not any("gone.html" in key for key in said)


def test_the_mention_index_finds_a_section_by_what_others_say_and_round_trips(tmp_path: Path) -> None:
    index = MentionIndex.build(MENTIONS, texts(), make_map(), make_chunks())
    assert index.search("reject huge request bodies", 3)[0][0] == BASE + "guide.html#uploading-files"
    keys = [BASE + "guide.html#uploading-files", BASE + "guide.html#sessions"]
    assert index.scores("huge bodies", keys)[0] > 0 == index.scores("huge bodies", keys)[1]
    index.save(tmp_path / "m")
    again = MentionIndex.load(tmp_path / "m")
    assert again is not None and again.inlinks == index.inlinks
    assert again.search("reject huge request bodies", 3) == index.search("reject huge request bodies", 3)
    assert MentionIndex.load(tmp_path / "missing") is None
