"""Calibrate the paraphrase-repair limits (docbot.references.headings RANK_MIN_SCORE, RANK_MARGIN) leave-one-site-out.

    .venv/bin/python scripts/calibrate_repair.py --anchor-maps DIR [--cases ../shared/eval/dev_validator_cases.jsonl]

Replays the link-repair cases through the ReferenceValidator (case paths joined to each
map's base URL) for a grid of (minimum score, margin). For each site, the limits are fitted on
the other sites (most cases right, a wrong rewrite costing WRONG_COST right ones; among equally good
limits, the medoid of them, the one farthest inside that region) and tested on that site. Prints the
fitted limits per held-out site, the held-out and in-sample figures, and the current limits' figures.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from crawlers.model import load_maps
from crawlers.urls import join
from docbot.references import headings as rank
from docbot.references.validator import ReferenceValidator
from docbot.report.metrics import CaseResult, RepairCase, is_case_right, is_wrong_rewrite
from docbot.report.run import load_cases

WRONG_COST = 3  # a wrong rewrite is worse than a drop
SCORES = [round(0.40 + 0.05 * k, 2) for k in range(9)]  # 0.40 .. 0.80
MARGINS = [round(0.04 * k, 2) for k in range(11)]  # 0.00 .. 0.40

Outcomes = dict[str, tuple[bool, bool]]  # case id -> (right, wrong rewrite)


def replay(maps: dict, cases: list[RepairCase], score: float, margin: float) -> Outcomes:
    rank.RANK_MIN_SCORE, rank.RANK_MARGIN = score, margin
    validator = ReferenceValidator(maps)
    out: Outcomes = {}
    for case in cases:
        base = maps[case.site].base_url
        got = validator.check_url(join(base, case.input), site=case.site)
        result = CaseResult(case, base, got.action, got.output, got.reason)
        out[case.id] = (is_case_right(result), is_wrong_rewrite(result))
    return out


def total(outcomes: Outcomes, cases: list[RepairCase]) -> tuple[int, int, int]:
    """(right, wrong rewrites, cases) over ``cases``."""
    return (sum(outcomes[c.id][0] for c in cases), sum(outcomes[c.id][1] for c in cases), len(cases))


def by(key: str, outcomes: Outcomes, cases: list[RepairCase]) -> str:
    groups = sorted({getattr(c, key) for c in cases})
    return ", ".join("{} {}/{}".format(g, *total(outcomes, [c for c in cases if getattr(c, key) == g])[::2]) for g in groups)


def fit(grid: dict[tuple[float, float], Outcomes], cases: list[RepairCase]) -> tuple[float, float]:
    """The limits with the most right cases (a wrong rewrite costs WRONG_COST), the medoid among equals."""

    def utility(key: tuple[float, float]) -> int:
        right, wrong, _ = total(grid[key], cases)
        return right - WRONG_COST * wrong

    top = max(utility(k) for k in grid)
    tied = [k for k in grid if utility(k) == top]
    return min(tied, key=lambda k: sum(abs(k[0] - o[0]) + abs(k[1] - o[1]) for o in tied))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--anchor-maps", required=True)
    ap.add_argument("--cases", default=str(Path(__file__).resolve().parents[2] / "shared/eval/dev_validator_cases.jsonl"))
    args = ap.parse_args()
    maps = load_maps(args.anchor_maps)
    cases = [c for c in load_cases(args.cases) if c.site in maps]
    current = (rank.RANK_MIN_SCORE, rank.RANK_MARGIN)
    grid = {(s, m): replay(maps, cases, s, m) for s in SCORES for m in MARGINS}
    sites = sorted({c.site for c in cases})
    print("| held-out site | fitted min score | fitted margin | fit sites right (wrong rewrites) | held-out right (wrong rewrites) |")
    print("|---|---:|---:|---|---|")
    held: Outcomes = {}
    for site in sites:
        train = [c for c in cases if c.site != site]
        test = [c for c in cases if c.site == site]

        best = fit(grid, train)
        held.update({c.id: grid[best][c.id] for c in test})
        tr, tw, tn = total(grid[best], train)
        hr, hw, hn = total(grid[best], test)
        print(f"| {site} | {best[0]:.3f} | {best[1]:.2f} | {tr}/{tn} ({tw}) | {hr}/{hn} ({hw}) |")
    r, w, n = total(held, cases)
    print(f"\nheld-out: {r}/{n} right, {w} wrong rewrites\n  by category: {by('category', held, cases)}")
    print("limits fitted on all sites: min score {:.3f}, margin {:.2f}".format(*fit(grid, cases)))
    now = replay(maps, cases, *current)
    r, w, n = total(now, cases)
    print(f"in-sample, current limits (min score {current[0]}, margin {current[1]}): {r}/{n} right, {w} wrong rewrites")
    print(f"  by site: {by('site', now, cases)}\n  by category: {by('category', now, cases)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
