"""The report's figures on text directives: how many quoted sources carry one, and whether each lands in its section.

Pure. A question result knows, per link, whether the answer quotes that source, docbot's own verdict on its
directive (the ReferenceValidator's, as ``check-links`` and ``refresh`` give it), the independent check's
(:mod:`docbot.report.independent`, on the served HTML) and docbot's rule again on the served HTML (a directive whose
sentence changed since the crawl is stale): "ok", or why not; None without a directive.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from crawlers.urls import split_directive

OUTSIDE_WORDS = ("outside",)  # both checks say "outside" for a first match that lands in another section


class DirectiveResult(Protocol):
    @property
    def links(self) -> tuple[str, ...]: ...
    @property
    def quoted(self) -> tuple[bool, ...]: ...
    @property
    def directives(self) -> tuple[str | None, ...]: ...
    @property
    def own_directives(self) -> tuple[str | None, ...]: ...
    @property
    def live_directives(self) -> tuple[str | None, ...]: ...


def own_verdict(validator: Any, url: str) -> str | None:
    """docbot's verdict on ``url``'s directive: "ok" when the validator keeps it as it is, else its reason."""
    directive = split_directive(url)[1]
    if directive is None:
        return None
    outcome = validator.check_url(url)
    return "ok" if outcome.output and split_directive(outcome.output)[1] == directive else str(outcome.reason)


def _rate(hits: int, total: int) -> float | None:
    return None if total == 0 else 100.0 * hits / total


def directive_rates(results: Iterable[DirectiveResult]) -> dict[str, float | None]:
    """Quoted sources, how many carry a directive, and how many directives each check finds valid or outside."""
    quoted = carried = count = own_ok = live_ok = both_ok = outside = stale = 0
    for r in results:
        for i, url in enumerate(r.links):
            has = ":~:" in url
            is_quoted = i < len(r.quoted) and r.quoted[i]
            quoted += is_quoted
            carried += is_quoted and has
            if not has:
                continue
            count += 1
            own = r.own_directives[i] if i < len(r.own_directives) else None
            live = r.directives[i] if i < len(r.directives) else None
            served = r.live_directives[i] if i < len(r.live_directives) else None  # None: not checked on the page
            fresh = served in (None, "ok")
            own_ok += own == "ok"
            live_ok += live == "ok"
            stale += not fresh
            both_ok += own == "ok" and live == "ok" and fresh
            outside += any(word in (v or "") for v in (own, live, served) for word in OUTSIDE_WORDS)
    return {"quoted": quoted, "carried": carried, "share": _rate(carried, quoted), "directives": count,
            "valid_docbot": own_ok, "valid_independent": live_ok, "stale": stale, "validity": _rate(both_ok, count),
            "outside": outside}


def directive_failures(rates: Mapping[str, float | None], min_share: float | None,
                       min_validity: float | None) -> list[str]:
    failures = []
    share, validity = rates.get("share"), rates.get("validity")
    if min_share is not None and share is not None and share < min_share - 1e-9:
        failures.append(f"quoted sources with a text directive {share:.1f}% is below the minimum {min_share:g}%")
    if min_validity is not None and validity is not None and validity < min_validity - 1e-9:
        failures.append(f"text directives valid by every check {validity:.1f}% is below the minimum {min_validity:g}% "
                        f"({rates.get('outside', 0):.0f} land outside their section)")
    return failures


def directives_markdown(rates: Mapping[str, float | None]) -> list[str]:
    if not rates.get("quoted") and not rates.get("directives"):
        return []
    share, validity = rates.get("share"), rates.get("validity")

    def pct(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.1f}%"

    return ["", "### Text directives", "",
            "| quoted sources with a directive | directives | valid by docbot | valid by the independent check | "
            "stale on the served page | valid by all | outside their section |", "|---:|---:|---:|---:|---:|---:|---:|",
            f"| {pct(share)} ({rates.get('carried', 0):.0f}/{rates.get('quoted', 0):.0f}) | "
            f"{rates.get('directives', 0):.0f} | {rates.get('valid_docbot', 0):.0f} | "
            f"{rates.get('valid_independent', 0):.0f} | {rates.get('stale', 0):.0f} | {pct(validity)} | "
            f"{rates.get('outside', 0):.0f} |",
            "", "A quoted source's link carries a text directive (`#id:~:text=…`) that lands on the quoted passage. "
            "The independent check re-reads the served HTML with BeautifulSoup and matches with regular expressions; "
            "docbot's rule is applied again to the served HTML (stale: the sentence changed since the crawl)."]


def failing_links(r: DirectiveResult) -> Sequence[str]:
    """Why a question's directives failed (for the list of failures)."""
    out = []
    for i, url in enumerate(r.links):
        for who, verdicts in (("docbot", r.own_directives), ("independent check", r.directives),
                              ("docbot on the served page", r.live_directives)):
            verdict = verdicts[i] if i < len(verdicts) else None
            if verdict not in (None, "ok"):
                out.append(f"text directive of {url}: {verdict} ({who})")
    return out
