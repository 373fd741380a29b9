"""The answer figures of the report: facts covered (crude, stemmed), words per answer, '?' sentences."""

from __future__ import annotations

from docbot.answer import Status
from docbot.report.facts import answer_figures, content_words, fact_covered, question_sentences, word_count
from docbot.report.metrics import Question, QuestionResult, Thresholds, check_thresholds, compute_metrics
from docbot.report.render import ReportData, render_html, render_json, render_markdown

FACT = "Set MAX_CONTENT_LENGTH in the app config to limit the upload size"


def test_content_words_are_stemmed_and_drop_stopwords() -> None:
    assert content_words("Limits the uploaded files") == {"limit", "upload", "file"}
    assert content_words("SESSION_COOKIE_SECURE=True") == {"session", "cooki", "secur", "true"}


def test_fact_counts_when_sixty_percent_of_its_words_appear() -> None:
    # content words: set, max, content, length, app, config, limit, upload, size (9); 6 of them is 67 %
    assert fact_covered(FACT, "MAX_CONTENT_LENGTH limits uploads; set it on the app. [1]")
    assert not fact_covered(FACT, "Uploads are limited by the server. [1]")
    assert not fact_covered("the of and", "the of and")  # no content words: never covered


def test_markers_are_not_words_and_code_holds_no_question_sentences() -> None:
    answer = "Use a fixture. [1]\n\n```python\nx = f()  # why?\n```\n\nSee also Testing [2]."
    assert word_count(answer) == 14
    assert question_sentences(answer) == []


def test_question_sentences_found_unless_the_question_quotes_them() -> None:
    answer = "But how do you specify the maximum file size? Set MAX_CONTENT_LENGTH. [1]"
    assert question_sentences(answer) == ["But how do you specify the maximum file size?"]
    assert question_sentences(answer, "Docs say 'But how do you specify the maximum file size?' What?") == []


def test_answer_figures() -> None:
    rows = [((FACT, "Call jsonify"), "Set MAX_CONTENT_LENGTH on the app config to limit size. [1]", "q"),
            (("Use a fixture",), "Why? Use a fixture. [1]", "q")]
    got = answer_figures(rows)
    assert got["facts"] == 3 and got["facts_hit"] == 2
    assert round(got["facts_covered"], 1) == 66.7
    assert got["words_max"] == 9 and got["question_sentences"] == 1
    assert answer_figures([])["facts_covered"] is None


def _result(qid: str, kind: str, status: str, answer: str, site: str = "flask") -> QuestionResult:
    question = Question(id=qid, site=site, kind=kind, question="How big may uploads be?", facts=(FACT,))
    return QuestionResult(question=question, base_url="http://x/", status=status, links=(), live_ok=(), answer=answer)


def test_only_answered_in_scope_questions_count_and_reports_show_it() -> None:
    good = "Set MAX_CONTENT_LENGTH in the config to limit the upload size. [1]"
    results = [
        _result("a", "semantic", Status.ANSWERED, good),
        _result("b", "semantic", Status.ANSWERED, "Nothing relevant. [1]", site="drf"),
        _result("c", "semantic", Status.NOT_COVERED, good),  # refused: its facts are not counted
        _result("d", "out_of_scope", Status.ANSWERED, good),
    ]
    metrics = compute_metrics(results)
    assert metrics.answers["facts_covered"] == 50.0
    assert metrics.by_site["flask"]["facts_covered"] == 100.0
    assert metrics.by_site["drf"]["facts_covered"] == 0.0
    data = ReportData(metrics=metrics, thresholds=Thresholds(), failures=(), questions=tuple(results))
    assert "| all | 50.0% (1/2) |" in render_markdown(data)
    assert '"facts_covered": 50.0' in render_json(data)
    assert "<td>50.0% (1/2)</td>" in render_html(data)
    # CI can hold the figure: below --min-facts the report fails and says by how much.
    assert check_thresholds(metrics, Thresholds(facts=50)) == []
    assert check_thresholds(metrics, Thresholds(facts=75)) == ["facts covered 50.0% is below the minimum 75%"]


def test_a_see_also_title_is_not_a_selected_sentence() -> None:
    answer = "Roll back explicitly. [1]\n\nSee also But why isn't one ROLLBACK enough? [2]."
    assert question_sentences(answer) == []
    assert question_sentences("But why isn't one ROLLBACK enough? [2]") != []
