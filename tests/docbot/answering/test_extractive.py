"""The extractive answer: the compressed facts, each with its marker, short enough for Slack."""

from __future__ import annotations

from pathlib import Path

from crawlers.parse.extract import extract
from docbot.answering.compress import Fact, compress
from docbot.answering.extractive import MAX_WORDS, ExtractiveGenerator, render
from docbot.answering.generate import Passage
from docbot.report.facts import question_sentences, word_count

UPLOAD = Passage(1, "Uploading Files", ("Guide", "Uploading Files"),
                 "Files are stored in memory. But how do you specify the maximum size of an upload? "
                 "Set MAX_CONTENT_LENGTH to limit the upload size:\n\n"
                 "```\napp.config['MAX_CONTENT_LENGTH'] = 16\n```\n\n"
                 "A larger upload is refused with a 413 status code.")
SESSIONS = Passage(2, "Sessions", ("Guide", "Sessions"), "Sessions use a signed cookie.")
REBASE = extract((Path(__file__).resolve().parents[2] / "fixtures" / "asciidoc_git_rebase.html").read_text(encoding="utf-8"),
                 "http://docs.test/git-rebase.html")


def test_every_fact_carries_its_marker_and_a_source_without_facts_is_see_also() -> None:
    text = ExtractiveGenerator().generate("how do I limit the upload size?", [UPLOAD, SESSIONS])
    assert "Set MAX_CONTENT_LENGTH to limit the upload size: [1]" in text
    assert "app.config['MAX_CONTENT_LENGTH'] = 16" in text
    assert text.rstrip().endswith("See also Sessions [2].")
    assert "http" not in text
    assert question_sentences(text) == []  # the docs' own question is not quoted


def test_a_see_also_line_names_a_generic_section_with_its_page() -> None:
    # "See also Examples [2]" says nothing of which page's examples: a manual has one on every page
    examples = Passage(2, "Examples", ("npm CLI manual", "npm-uninstall", "Examples"), "npm uninstall lodash")
    see = Passage(3, "See Also", ("npm CLI manual", "npm-outdated", "See Also"), "npm update")
    sessions = Passage(4, SESSIONS.title, SESSIONS.path, SESSIONS.text)
    text = ExtractiveGenerator().generate("how do I limit the upload size?", [UPLOAD, examples, see, sessions])
    assert "See also npm-uninstall › Examples [2]." in text and "See also npm-outdated › See Also [3]." in text
    assert "See also Sessions [4]." in text  # a title of its own is named alone


def test_a_source_without_facts_ranked_above_one_with_facts_keeps_its_place() -> None:
    first = Passage(1, "Sessions", ("Guide", "Sessions"), "Sessions use a signed cookie and a secret key.")
    third = Passage(3, "Uploading Files", UPLOAD.path, UPLOAD.text)
    text = ExtractiveGenerator().generate("how do I limit the upload size?", [first, Passage(2, "Index", (), ""), third])
    assert text.index("[1]") < text.index("See also Index [2].") < text.index("[3]")


def test_long_sections_are_cut_to_the_word_limit_keeping_the_first_facts() -> None:
    passages = [Passage(n, s.title, ("git-rebase", s.title), s.text)
                for n, s in enumerate(REBASE.sections[15:20], start=1)]
    question = "How do I recover when the upstream branch I based my work on was rebased?"
    assert sum(word_count(f.text) for f in compress(question, passages)) > 120
    text = ExtractiveGenerator(max_words=120).generate(question, passages)
    assert word_count(text) <= 120
    assert word_count(ExtractiveGenerator().generate(question, passages)) <= MAX_WORDS
    first = min(compress(question, passages), key=lambda f: f.rank)
    assert first.text.split("\n")[0] in text
    for p in passages:
        assert f"[{p.n}]" in text  # every source is still cited, as a fact or as "see also"


def test_the_fallback_names_sources_without_text() -> None:
    assert ExtractiveGenerator().generate("q", [Passage(1, "Index", (), "  ")]) == "See Index [1]."
    assert "do not answer" in ExtractiveGenerator().generate("q", [])


def test_a_code_block_without_its_own_introduction_is_named_by_its_source() -> None:
    # An API entry opens with its signature: "Example [1]" above it said something false.
    steal = Passage(1, "g_hash_table_steal()", ("Hash Tables", "g_hash_table_steal()"),
                    "```\ngboolean g_hash_table_steal (GHashTable *hash_table, gconstpointer key);\n```\n\n"
                    "Removes a key and its associated value from a GHashTable without calling the destroy functions.")
    text = ExtractiveGenerator().generate("what does g_hash_table_steal do", [steal])
    assert "Example [1]" not in text
    assert text.index("g_hash_table_steal() [1]") < text.index("```")



def test_the_rows_of_a_table_are_a_list_a_line_each() -> None:
    # Python-Markdown's SmartyPants options (MkDocs): the rows it quoted ran into one paragraph, "smart_quotes — True
    # — whether to convert straight quotes [2] smart_angled_quotes — False — …", read as one sentence
    page = (Path(__file__).resolve().parents[2] / "fixtures" / "mkdocs_option_table.html").read_bytes()
    usage = next(s for s in extract(page, "http://docs.test/extensions/smarty.html").sections if s.anchor == "usage")
    text = ExtractiveGenerator().generate("Which options convert quotes?",
                                          [Passage(1, usage.title, usage.path, usage.text)])
    lines = text.split("\n")
    assert "- smart_quotes — True — whether to convert straight quotes [1]" in lines
    assert "- smart_angled_quotes — False — whether to convert angled quotes [1]" in lines


def test_a_lone_list_item_among_sentences_reads_as_one_of_them() -> None:
    facts = [Fact(1, "Python-Markdown includes an API for extension writers.", 0),
             Fact(1, "Preprocessors alter the source before it is passed to the parser.", 2, item=True),
             Fact(1, "There are classes and helpers provided to ease writing your extension.", 5)]
    assert render(facts) == [" ".join(f"{f.text} [1]" for f in facts)]


def test_a_see_also_line_drops_the_full_stop_of_a_title_written_as_a_sentence() -> None:
    # Python-Markdown's 3.0 release notes title their changes with sentences: "See also Markdown class instance
    # references. [2]." ended twice
    notes = Passage(2, "Markdown class instance references.",
                    ("Python-Markdown 3.0 Release Notes", "Markdown class instance references."), "")
    text = ExtractiveGenerator().generate("how do I limit the upload size?", [UPLOAD, notes])
    assert text.rstrip().endswith("See also Markdown class instance references [2].")
