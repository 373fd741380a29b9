from __future__ import annotations

import pytest

from docbot.answering.gate import Evidence
from docbot.answering.gate_fit import MAX_FIT_REFUSAL, Example, fit, leave_one_site_out, threshold


def ex(site: str, dense: float, in_scope: bool, lexical: float = 0.0) -> Example:
    return Example(site, Evidence(dense, 0.3, 0.0, 0.0, lexical), in_scope)


def examples() -> list[Example]:
    out = []
    for i, site in enumerate(("a", "b", "c")):
        out += [ex(site, 0.30 + 0.02 * j + 0.01 * i, True) for j in range(10)]
        out += [ex(site, 0.05 + 0.02 * j + 0.01 * i, False) for j in range(3)]
    return out


def test_threshold_refuses_at_most_the_allowed_share_of_answerable_questions() -> None:
    inside = [float(i) for i in range(100)]
    assert sum(s < threshold(inside, [-5.0, 1.5, 50.0]) for s in inside) <= MAX_FIT_REFUSAL * len(inside)
    cut = threshold(inside, [-5.0, 1.5, 50.0], max_refusal=0.02)
    # centred in the gap between the lowest answerable score kept and the out-of-scope score under it
    assert cut == pytest.approx((2.0 + 1.5) / 2)


def test_threshold_without_out_of_scope_scores_below_keeps_a_margin() -> None:
    assert threshold([1.0, 2.0], [5.0]) < 1.0


def test_fitted_gate_separates_answerable_from_out_of_scope() -> None:
    model = fit(examples())
    refused = [e for e in examples() if model.score(e.scaled) < model.threshold]
    assert all(not e.in_scope for e in refused) and len(refused) >= 6
    assert model.model.weights[0] > 0  # a closer best chunk means more likely answerable


def test_fitting_needs_both_kinds_of_question() -> None:
    with pytest.raises(ValueError, match="both"):
        fit([e for e in examples() if e.in_scope])


def test_leave_one_site_out_never_sees_the_held_out_site() -> None:
    folds = leave_one_site_out(examples())
    assert sorted(folds) == ["a", "b", "c"]
    for site, model in folds.items():
        assert model.model.meta is not None and site not in model.model.meta["sites"]
        assert model.model.meta["questions"] == 26


def test_fit_is_deterministic() -> None:
    assert fit(examples()) == fit(examples())


def test_flag_threshold_flags_at_most_the_allowed_share_of_answerable_questions() -> None:
    from docbot.answering.gate_fit import MAX_FIT_FLAG, flag_threshold

    inside = [float(i) for i in range(100)]
    cut = flag_threshold(inside)
    assert sum(s < cut for s in inside) <= MAX_FIT_FLAG * len(inside) < sum(s < cut + 1.0 for s in inside)
    model = fit(examples())
    assert model.flag_at >= model.threshold
    flagged = [e for e in examples() if model.threshold <= model.score(e.scaled) < model.flag_at]
    assert sum(e.in_scope for e in flagged) <= MAX_FIT_FLAG * 30
