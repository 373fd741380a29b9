"""Scoring on small hand-made data: one question right, one wrong, one refused, one case per category."""

from __future__ import annotations

from docbot.answer import LinkAction, Status
from docbot.report.metrics import (
    CaseResult,
    Question,
    QuestionResult,
    RepairCase,
    Thresholds,
    check_thresholds,
    compute_metrics,
    is_case_right,
    is_wrong_rewrite,
    normalize_link,
    percentile,
    question_failures,
)

BASE = "http://127.0.0.1:9000/"


def q(qid: str, kind: str = "semantic", gold: tuple[str, ...] = (), accept: tuple[str, ...] = ()) -> Question:
    return Question(id=qid, site="drf", kind=kind, question=f"question {qid}?", gold=gold, accept=accept)


def result(question: Question, status: str, links: tuple[str, ...], ok: tuple[bool, ...] | None = None,
           total_ms: float = 10.0) -> QuestionResult:
    return QuestionResult(
        question=question, base_url=BASE, status=status, links=links,
        live_ok=ok if ok is not None else (True,) * len(links), timings_ms={"retrieve": total_ms / 2, "total": total_ms},
    )


RIGHT = result(
    q("drf-1", gold=("api-guide/serializers/index.html#validation",)),
    Status.ANSWERED,
    (BASE + "api-guide/serializers/#validation", BASE + "api-guide/fields/index.html#core-arguments"),
    total_ms=10,
)
SECOND = result(  # gold cited, but only as the second link; accept-list hit counts too
    q("drf-2", gold=("api-guide/views/index.html#x",), accept=("api-guide/views/index.html#y",)),
    Status.ANSWERED,
    (BASE + "api-guide/views/index.html#z", BASE + "api-guide/views/index.html#y"),
    total_ms=20,
)
WRONG = result(
    q("drf-3", gold=("tutorial/1/index.html#a",)),
    Status.ANSWERED,
    (BASE + "tutorial/2/index.html#a", BASE + "tutorial/3/index.html#Dead"),
    ok=(True, False),
    total_ms=30,
)
REFUSED = result(q("drf-4", gold=("topics/index.html#b",)), Status.NOT_COVERED, (), total_ms=40)
OOS_REFUSED = result(q("drf-5", kind="out_of_scope"), Status.NOT_COVERED, (), total_ms=50)
OOS_ANSWERED = result(q("drf-6", kind="out_of_scope"), Status.ANSWERED, (BASE + "index.html#c",), total_ms=60)
RESULTS = [RIGHT, SECOND, WRONG, REFUSED, OOS_REFUSED, OOS_ANSWERED]


def test_directory_url_and_index_html_are_the_same_link() -> None:
    assert normalize_link("api-guide/serializers/#x", BASE) == normalize_link("api-guide/serializers/index.html#x", BASE)
    assert normalize_link(BASE + "a.html#X", BASE) != normalize_link("a.html#x", BASE)  # fragments are case-sensitive


def test_a_hash_route_is_the_place_and_its_route_the_page() -> None:
    """On a docsify site every page and place is a route of index.html: two routes are two links, and two places on
    one route are one page (else every answer would hit)."""
    gold = q("npm-1", gold=("index.html#/using-npm/scope?id=associating-a-scope-with-a-registry",))
    other_place = result(gold, Status.ANSWERED, (BASE + "index.html#/using-npm/scope?id=description",))
    other_page = result(gold, Status.ANSWERED, (BASE + "#/commands/npm?id=important",))
    right = result(gold, Status.ANSWERED, (BASE + "#/using-npm/scope?id=associating-a-scope-with-a-registry:~:text=a",))
    m = compute_metrics([other_place, other_page, right])
    assert (m.hit3, m.page_hit3) == (100 / 3, 200 / 3)


def test_question_metrics() -> None:
    m = compute_metrics(RESULTS)
    assert (m.questions, m.in_scope, m.out_of_scope) == (6, 4, 2)
    assert m.hit1 == 25.0  # only RIGHT cites gold first
    assert m.hit3 == 50.0  # RIGHT and SECOND (accept)
    assert m.page_hit3 == 50.0  # WRONG cites other pages, REFUSED cites nothing
    assert m.refusal == 50.0
    assert m.false_refusal == 25.0
    assert (m.links, m.valid_links) == (7, 6)
    assert round(m.link_validity or 0, 2) == 85.71
    assert m.latency_ms["total"] == {"p50": 30.0, "p95": 60.0}
    assert m.by_site["drf"]["hit3"] == 50.0


def test_no_links_emitted_is_not_a_validity_failure() -> None:
    assert compute_metrics([REFUSED]).link_validity == 100.0
    assert compute_metrics([]).hit3 is None


def test_percentile_nearest_rank() -> None:
    assert percentile([5, 1, 3, 2, 4], 50) == 3
    assert percentile([5, 1, 3, 2, 4], 95) == 5
    assert percentile([], 50) is None


def test_thresholds_say_which_figure_failed() -> None:
    m = compute_metrics(RESULTS)
    failures = check_thresholds(m, Thresholds(link_validity=100, hit3=40, hit1=30, false_refusal=10))
    assert len(failures) == 3
    assert any(f.startswith("link_validity 85.7%") for f in failures)
    assert any(f.startswith("hit1 25.0%") for f in failures)
    assert any("false_refusal 25.0% is above the maximum 10%" in f for f in failures)
    assert check_thresholds(m, Thresholds(link_validity=80, hit3=50)) == []


def test_failures_per_question() -> None:
    assert question_failures(RIGHT) == []
    assert "no gold section in the top 3" in question_failures(WRONG)
    assert any(r.startswith("dead link") for r in question_failures(WRONG))
    assert question_failures(REFUSED) == ["refused (not_covered)"]
    assert question_failures(OOS_ANSWERED)[0] == "out of scope but answered"


def case(category: str, action: str, inp: str, expected: str | None, also_ok: tuple[str, ...] = ()) -> RepairCase:
    return RepairCase(id=f"val-{category}", site="drf", input=inp, expected=expected, action=action,
                      category=category, also_ok=also_ok)


CASES = [
    CaseResult(case("valid", "keep", "a/#x", "a/#x"), BASE, LinkAction.KEPT, BASE + "a/index.html#x"),
    CaseResult(case("slug_style", "rewrite", "a.html#b_c", "a.html#b-c"), BASE, LinkAction.REWRITTEN, BASE + "a.html#b-c"),
    CaseResult(case("case", "rewrite", "a.html#B", "a.html#b"), BASE, LinkAction.REWRITTEN, BASE + "a.html#B2"),  # wrong target
    CaseResult(case("cross_page", "rewrite", "a.html#q", "b.html#q"), BASE, LinkAction.FRAGMENT_DROPPED, BASE + "a.html"),
    CaseResult(case("nonexistent_fragment", "drop_fragment", "a.html#zz", "a.html", ("a.html#title",)),
               BASE, LinkAction.REWRITTEN, BASE + "a.html#title"),  # right target, wrong action
    CaseResult(case("nonexistent_fragment", "drop_fragment", "c.html#zz", "c.html", ("c.html#title",)),
               BASE, LinkAction.FRAGMENT_DROPPED, BASE + "c.html#title"),  # also_ok target
    CaseResult(case("dead_page", "drop_link", "nope/#zz", None), BASE, LinkAction.LINK_DROPPED, None),
]


def test_case_right_needs_action_and_target() -> None:
    assert [is_case_right(c) for c in CASES] == [True, True, False, False, False, True, True]


def test_wrong_rewrites_count_only_rewrites_to_a_wrong_target() -> None:
    # the wrong case target counts; a dropped cross_page case and a rewrite onto an also-ok target do not
    assert [is_wrong_rewrite(c) for c in CASES] == [False, False, True, False, False, False, False]
    assert compute_metrics([], CASES).wrong_rewrites == 1
    assert compute_metrics([], CASES).to_json()["wrong_rewrites"] == 1


def test_repair_accuracy_by_category() -> None:
    m = compute_metrics([], CASES)
    assert m.cases == 7
    assert round(m.repair or 0, 1) == 57.1
    assert m.repair_by_category == {
        "valid": 100.0, "slug_style": 100.0, "case": 0.0, "cross_page": 0.0,
        "nonexistent_fragment": 50.0, "dead_page": 100.0,
    }


def test_flagged_answers_count_apart_from_refusals() -> None:
    from dataclasses import replace

    import pytest

    from docbot.report.render import ReportData, render_markdown

    oos_flagged = replace(OOS_ANSWERED, flagged=True)
    answerable_flagged = replace(RIGHT, flagged=True)
    m = compute_metrics([oos_flagged, OOS_REFUSED, replace(OOS_ANSWERED, question=q("drf-7", kind="out_of_scope")),
                         answerable_flagged, SECOND])
    assert m.refusal == pytest.approx(100 / 3) and m.flagged == pytest.approx(200 / 3)
    assert m.false_refusal == 0 and m.false_flag == 50
    assert m.by_site["drf"]["flagged"] == pytest.approx(200 / 3)
    assert "Out-of-scope refused or flagged" in render_markdown(ReportData(m, Thresholds(), (), ()))


def test_a_table_cell_of_the_report_turns_nothing_into_a_link_an_image_or_a_mention() -> None:
    from markdown_it import MarkdownIt

    from docbot.report.render import _md_cell

    evil = "see [here](https://evil.example/) ![x](https://evil.example/i.png) @octocat <b>|</b> `code`"
    rendered = MarkdownIt("commonmark").enable("table").render(f"| a | b |\n|---|---|\n| {_md_cell(evil)} | x |\n")
    assert "<a " not in rendered and "<img" not in rendered and "<b>" not in rendered and "<code>" not in rendered
    assert rendered.count("<td>") == 2 and "evil.example" in rendered  # one cell, its words still there
    assert "@octocat" not in _md_cell(evil)  # GitHub links an @mention in the source, never an escaped one
