from __future__ import annotations

from docbot.extractive import ExtractiveGenerator, excerpt
from docbot.generate import Passage

UPLOAD = Passage(1, "Uploading Files", ("Guide", "Uploading Files"),
                 "Files are stored in memory. Set MAX_CONTENT_LENGTH to limit the upload size. Unrelated words here.\n\n"
                 "```\napp.config['MAX_CONTENT_LENGTH'] = 16\n```")


def test_excerpt_picks_sentences_sharing_the_question_terms() -> None:
    sentences, code = excerpt("how do I limit upload size", UPLOAD, sentences=1)
    assert sentences == ["Set MAX_CONTENT_LENGTH to limit the upload size."]
    assert code is not None and "MAX_CONTENT_LENGTH" in code


def test_answer_cites_every_source_with_markers() -> None:
    other = Passage(2, "Sessions", ("Guide", "Sessions"), "Sessions use a signed cookie.")
    text = ExtractiveGenerator().generate("limit upload size", [UPLOAD, other])
    assert "[1]" in text and "[2]" in text
    assert text.index("[1]") < text.index("[2]")
    assert "http" not in text


def test_no_sources() -> None:
    assert "do not answer" in ExtractiveGenerator().generate("q", [])
