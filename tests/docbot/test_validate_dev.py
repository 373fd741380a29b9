"""The dev link-repair cases on the three real eval sites, crawled over HTTP (conftest `eval_maps`)."""

from __future__ import annotations

from collections import Counter

import pytest

from crawlers.urls import join
from docbot.report.metrics import CaseResult, RepairCase, is_case_right
from docbot.validate import ReferenceValidator


@pytest.mark.slow
def test_dev_validator_cases_at_least_98_percent_right(
    eval_maps: dict, eval_base_urls: dict[str, str], eval_cases: list[dict]
) -> None:
    validator = ReferenceValidator(eval_maps)
    wrong, by_category = [], Counter()
    for raw in eval_cases:
        case = RepairCase.from_json(raw)
        base = eval_base_urls[case.site]
        outcome = validator.check_url(join(base, case.input), site=case.site)
        if is_case_right(CaseResult(case, base, outcome.action, outcome.output, outcome.reason)):
            by_category[case.category] += 1
        else:
            wrong.append(f"{case.id}: {case.input} -> {outcome.action} {outcome.output} ({outcome.reason})")
    right = len(eval_cases) - len(wrong)
    assert right / len(eval_cases) >= 0.98, "\n".join(wrong)
