"""Clarifying questions: the detection rules, the pipeline's needs_clarification answer, its JSON, the CLI text,
the reference log and the report count."""

from __future__ import annotations

import json
from pathlib import Path

from docbot.answer import Answer, Clarification, ClarifyOption, LinkAction, LinkOutcome, Status
from docbot.answering.clarify import MIN_COVERAGE, across_sites, within_site
from docbot.answering.confidence import SIGNALS
from docbot.commands.ask import render_text
from docbot.learn.linear import LinearModel
from docbot.pipeline import Pipeline
from docbot.reference_log import ReferenceLog
from docbot.references.validator import ReferenceValidator
from docbot.report.metrics import Question, QuestionResult, Thresholds, compute_metrics
from docbot.report.render import ReportData, render_markdown
from docbot.retrieval.hybrid import Hit
from tests.docbot.ask_fakes import BASE, TIE_BASE, TIE_SECTIONS, FakeIndex, make_chunks, make_map

TIE = "How do sessions keep data between requests?"
NEUTRAL = LinearModel.constant(SIGNALS)  # confidence 0.5 for every answer
ROOT = Path(__file__).resolve().parents[3]


def tie_sites(calibrator: LinearModel | None = NEUTRAL) -> Pipeline:
    maps = {"demo": make_map(), "orm": make_map("orm", TIE_BASE, TIE_SECTIONS)}
    index = FakeIndex([*make_chunks(), *make_chunks("orm", TIE_BASE, TIE_SECTIONS)])
    return Pipeline(index, maps, ReferenceValidator(maps), calibrator=calibrator)


def hit(site: str, url: str, title: str, score: float, text: str) -> Hit:
    return Hit(site, url, "a", url + "#a", title, (title,), "Guides", text, score=score)


# -- the rules ---------------------------------------------------------------

def test_two_sites_whose_best_sections_score_alike_and_cover_the_question_are_options() -> None:
    hits = [hit("a", "http://a/x", "Timeouts", 0.032, "Set a timeout per request."),
            hit("a", "http://a/y", "Retries", 0.031, "Retry failed requests."),
            hit("b", "http://b/x", "Engine timeout", 0.030, "The pool timeout is set on the engine.")]
    found = across_sites("set a timeout", hits, {}, 10)
    assert found is not None and [o.hit.site for o in found.options] == ["a", "b"]
    assert [o.label for o in found.options] == ["a: Timeouts", "b: Engine timeout"]


def test_a_clear_winner_or_a_runner_up_that_misses_the_question_words_is_no_choice() -> None:
    winner = [hit("a", "http://a/x", "Timeouts", 0.032, "Set a timeout."),
              hit("b", "http://b/x", "Timeouts", 0.016, "Set a timeout.")]
    assert across_sites("set a timeout", winner, {}, 10) is None
    partial = [hit("a", "http://a/x", "Timeouts", 0.032, "Set a connect timeout."),
               hit("b", "http://b/x", "Pools", 0.031, "Set the pool size.")]
    assert across_sites("set a connect timeout", partial, {}, 10) is None
    assert MIN_COVERAGE > 0.5


def test_within_a_site_sections_of_one_topic_are_not_a_choice() -> None:
    same_topic = [hit("a", "http://a/x", "Timeouts", 0.032, "Set a timeout."),
                  hit("a", "http://a/y", "Timeouts", 0.032, "Set a timeout.")]
    assert within_site("set a timeout", same_topic, {}, 10) is None
    unrelated = [hit("a", "http://a/x", "Timeouts", 0.032, "Set a timeout."),
                 hit("a", "http://a/y", "Daemon options", 0.031, "Set a timeout for the daemon.")]
    found = within_site("set a timeout", unrelated, {}, 10)
    assert found is not None and [o.label for o in found.options] == ["Timeouts", "Daemon options"]
    named = within_site("set a timeout", unrelated, {}, 10, with_site=True)
    assert named is not None and [o.label for o in named.options] == ["a: Timeouts", "a: Daemon options"]


def test_within_a_site_an_option_and_its_setting_are_one_topic() -> None:
    # Celery's "How do I set a task time limit?" asked between the task option and the setting of its default
    def section(url: str, page: str, title: str) -> Hit:
        return Hit("a", url, "x", url + "#x", title, (page, title), "Guides", "Set a task time limit.", score=0.03)

    option = section("http://a/tasks.html", "Tasks", "Task.time_limit")
    setting = section("http://a/configuration.html", "Configuration and defaults", "task_time_limit")
    assert within_site("set a task time limit", [option, setting], {}, 10) is None
    debug = [section("http://a/config.html", "Configuration Handling", "DEBUG"),
             section("http://a/api.html", "API", "Flask.debug")]
    assert within_site("set a task time limit", debug, {}, 10) is None
    other = section("http://a/workers.html", "Workers Guide", "Changing time limits at run-time")
    found = within_site("set a task time limit", [option, other], {}, 10)
    assert found is not None and [o.hit.title for o in found.options] == ["Task.time_limit",
                                                                        "Changing time limits at run-time"]


# -- the pipeline --------------------------------------------------------------

def test_asks_when_two_sites_tie_with_validated_options_and_a_minimal_best_effort_answer() -> None:
    answer = tie_sites().ask(TIE)
    assert answer.status == Status.NEEDS_CLARIFICATION
    assert answer.clarification is not None and answer.clarification.question.endswith("?")
    options = answer.clarification.options
    assert {(o.site, o.url) for o in options} == {("demo", BASE + "guide.html#sessions"),
                                                        ("orm", TIE_BASE + "session.html#using-sessions")}
    assert all(o.label.startswith(o.site + ": ") for o in options)
    # the best-effort answer and its reference stay: the best section only
    assert [r.url for r in answer.references] == [options[0].url] and answer.answer


def test_option_links_are_the_validators_output() -> None:
    p = tie_sites()
    checked: list[str] = []
    check = p.validator.check_url

    def spy(url: str, site: str | None = None):  # type: ignore[no-untyped-def]
        checked.append(url)
        return check(url, site)

    p.validator.check_url = spy  # type: ignore[method-assign]
    answer = p.ask(TIE)
    assert answer.clarification is not None
    assert {o.url for o in answer.clarification.options} <= set(checked)


def test_an_option_whose_link_the_validator_drops_is_no_option() -> None:
    p = tie_sites()
    check = p.validator.check_url

    def drop_orm(url: str, site: str | None = None) -> LinkOutcome:
        if url.startswith(TIE_BASE):
            return LinkOutcome(url, None, LinkAction.LINK_DROPPED, "test: not vouched for")
        return check(url, site)

    p.validator.check_url = drop_orm  # type: ignore[method-assign]
    answer = p.ask(TIE)
    assert answer.status != Status.NEEDS_CLARIFICATION and answer.clarification is None


def test_does_not_ask_when_one_site_clearly_wins_or_a_site_is_named_or_a_link_is_pasted() -> None:
    p = tie_sites()
    assert p.ask("How do I limit the upload size?").status == Status.ANSWERED
    assert p.ask(TIE, site="demo").status == Status.ANSWERED
    assert p.ask(f"{TIE} {BASE}guide.html#sessions").status == Status.ANSWERED


def test_a_confident_answer_is_given_as_it_is() -> None:
    sure = LinearModel.constant(SIGNALS, 10.0)
    assert tie_sites(sure).ask(TIE).status == Status.ANSWERED


def test_json_shape() -> None:
    data = json.loads(json.dumps(tie_sites().ask(TIE).to_json()))
    assert data["status"] == "needs_clarification" and data["references"]
    assert set(data["clarification"]) == {"question", "options"}
    assert all(set(o) == {"label", "url", "site"} for o in data["clarification"]["options"])
    assert "clarification" not in tie_sites().ask("How do I limit the upload size?").to_json()


def test_the_clarification_json_keeps_its_keys_in_order_and_reads_back() -> None:
    clarification = Clarification("Which one?", (ClarifyOption("demo: Sessions", BASE + "guide.html#sessions", "demo"),))
    data = clarification.to_json()
    assert json.dumps(data) == ('{"question": "Which one?", "options": [{"label": "demo: Sessions", '
                                f'"url": "{BASE}guide.html#sessions", "site": "demo"}}]}}')
    assert Clarification.from_json(data) == clarification


def test_cli_text_prints_the_question_and_numbered_options() -> None:
    answer = tie_sites().ask(TIE)
    assert answer.clarification is not None
    text = render_text(answer)
    assert text.startswith("[needs clarification]\n" + answer.clarification.question)
    for i, option in enumerate(answer.clarification.options, start=1):
        assert f"  {i}. {option.label}\n     {option.url}" in text
    assert "Sources" in text


def test_the_reference_log_keeps_the_clarification_and_its_links_for_refresh(tmp_path: Path) -> None:
    log = ReferenceLog(tmp_path / "docbot.sqlite")
    answer = tie_sites().ask(TIE)
    answer_id = log.record(answer, "cli")
    stored = log.get(answer_id)
    assert stored is not None and stored.status == Status.NEEDS_CLARIFICATION
    assert stored.clarification == answer.clarification
    logged = {url for _, url in log.iter_links()}
    assert answer.clarification is not None and {o.url for o in answer.clarification.options} <= logged
    assert {r.url for r in answer.references} <= logged


def test_the_report_counts_clarifications_and_scores_their_best_effort_answer() -> None:
    q = Question(id="q1", site="demo", kind="semantic", question=TIE, gold=("guide.html#sessions",))
    asked = QuestionResult(q, BASE, Status.NEEDS_CLARIFICATION, (BASE + "guide.html#sessions",), (True,), answer="x")
    plain = QuestionResult(q, BASE, Status.ANSWERED, (BASE + "guide.html#sessions",), (True,), answer="x")
    m = compute_metrics([asked, plain])
    assert m.clarified == 1 and m.hit1 == 100.0 and m.to_json()["clarify_rate"] == 50.0
    text = render_markdown(ReportData(m, Thresholds(), (), (asked, plain)))
    assert "Asked to clarify: 1 of 2 questions." in text


def test_ambiguous_fixture_questions_name_no_site() -> None:
    rows = [json.loads(line) for line in (ROOT / "tests/fixtures/ambiguous_questions.jsonl").read_text().splitlines()
            if line.strip()]
    assert 6 <= len(rows) <= 10
    assert all(r["question"] and "site" not in r and len(r["readings"]) >= 2 for r in rows)


def test_an_answer_without_clarification_round_trips_as_before() -> None:
    answer = Answer(question="q", status=Status.ANSWERED, answer="a")
    assert "clarification" not in answer.to_json()


def test_a_guide_and_the_api_entry_it_describes_are_not_two_meanings() -> None:
    from docbot.answering.clarify import within_site
    from docbot.retrieval.hybrid import Hit

    guide = Hit("s", "http://d/advanced.html", "timeouts", "http://d/advanced.html#timeouts", "Timeouts",
                ("Advanced Usage", "Timeouts"), "Guides", "Set a timeout on a request with timeout=.", score=1.0)
    api = Hit("s", "http://d/api.html", "Session.request", "http://d/api.html#Session.request", "Session.request()",
              ("requests.Session", "Session.request()"), "API reference", "timeout – how long to wait for a request",
              score=0.98)
    freq = {"timeout": 2, "request": 3, "set": 5}
    assert within_site("set a timeout on a request", [guide, api], freq, 100) is None
