"""The dev link-repair cases on the five real eval sites, crawled over HTTP (conftest `eval_maps`)."""

from __future__ import annotations

from collections import Counter

import pytest

from crawlers.urls import join
from docbot.references.validator import ReferenceValidator
from docbot.report.metrics import CaseResult, RepairCase, is_case_right, is_wrong_rewrite


@pytest.mark.slow
def test_dev_validator_cases_mostly_right_and_never_rewritten_wrong(
    eval_maps: dict, eval_base_urls: dict[str, str], eval_cases: list[dict]
) -> None:
    validator = ReferenceValidator(eval_maps)
    wrong, rewritten_wrong, by_category = [], [], Counter()
    for raw in eval_cases:
        case = RepairCase.from_json(raw)
        base = eval_base_urls[case.site]
        outcome = validator.check_url(join(base, case.input), site=case.site)
        result = CaseResult(case, base, outcome.action, outcome.output, outcome.reason)
        line = f"{case.id}: {case.input} -> {outcome.action} {outcome.output} ({outcome.reason})"
        if is_case_right(result):
            by_category[case.category] += 1
        else:
            wrong.append(line)
        if is_wrong_rewrite(result):
            rewritten_wrong.append(line)
    assert not rewritten_wrong, "\n".join(rewritten_wrong)  # a wrong rewrite is worse than a drop
    # 76 of the 78 cases on the five sites (2026-11-25); the two misses name an intent no heading words carry
    assert (len(eval_cases) - len(wrong)) / len(eval_cases) >= 0.97, "\n".join(wrong)
    paraphrased = sum(raw["category"] == "stale_or_paraphrased" for raw in eval_cases)
    assert by_category["stale_or_paraphrased"] / paraphrased >= 0.85, "\n".join(wrong)
