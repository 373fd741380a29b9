"""The ReferenceValidator: every URL that leaves docbot points at a page and fragment that exist.

Pure: plain data in (answer text, numbered sources, anchor maps), plain data out (:class:`Validated`). Each URL
in the answer, in a source or spelled in disguise, is checked by :class:`~docbot.references.links.LinkChecker`
(code blocks and code spans are left exactly as written: a sample's ``requests.get("https://…")`` is code, and
code is never a link: Slack shows it verbatim);
citation markers are renumbered to the references that survive, and references are grouped by type. A source the
answer quotes (its ``passage``) gets a text directive that lands on that passage inside its section, when one can
be made (:mod:`docbot.references.directives`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass

from crawlers.urls import split_directive
from docbot.answer import Group, LinkAction, LinkOutcome, Reference
from docbot.references.directives import PageTexts
from docbot.references.grouping import group_of, group_references
from docbot.references.links import Checked, LinkChecker, SectionTexts, normalize_out, reference_url, with_directive
from docbot.references.scan import (
    BARE,
    DISGUISED,
    TRAILING,
    may_hide_urls,
    outside_code,
    sub_links,
    sub_markers,
    undisguise,
)

__all__ = ["PageTexts", "ReferenceValidator", "SectionTexts", "Source", "Validated"]

MAX_SWEEPS = 3

@dataclass(frozen=True, slots=True)
class Source:
    """A numbered source the answer may cite as ``[n]``."""

    n: int
    url: str  # deep url (page url + '#anchor' or page url)
    title: str
    path: tuple[str, ...]
    source_type: str
    site: str
    snippet: str = ""
    passage: str = ""  # what the answer quotes from it: its link gets a text directive for it


@dataclass(frozen=True, slots=True)
class Validated:
    """The cleaned answer, its references and groups, and one outcome per URL seen."""

    answer: str
    references: tuple[Reference, ...]
    groups: tuple[Group, ...]
    outcomes: tuple[LinkOutcome, ...]


class ReferenceValidator(LinkChecker):
    """Check every URL of an answer and its sources; renumber citations; group the references."""

    def validate(self, answer: str, sources: Sequence[Source]) -> Validated:
        """Check every URL in ``answer`` and every source; renumber markers; build references and groups."""
        outcomes: list[LinkOutcome] = []
        survivor: dict[int, int] = {}
        refs_data: dict[int, Reference] = {}
        by_url: dict[str, int] = {}
        for src in sources:
            if src.n in survivor or src.n in refs_data:
                continue
            checked = self._quoted(self._checked(src.url, src.site), src.passage)
            outcomes.append(checked.outcome)
            out = checked.outcome.output
            if out is None or checked.outcome.action == LinkAction.LINK_DROPPED:
                continue
            key = normalize_out(out)
            if key in by_url:
                survivor[src.n] = by_url[key]
                continue
            by_url[key] = survivor[src.n] = src.n
            refs_data[src.n] = self._reference(src, checked)

        sites = {s.site for s in sources}
        default_site = next(iter(sites)) if len(sites) == 1 else (next(iter(self.maps)) if len(self.maps) == 1 else None)
        approved: set[str] = set()
        text = outside_code(answer, lambda part: sub_links(part, lambda m: self._replace(m, default_site, outcomes,
                                                                                        approved)))

        order: dict[int, int] = {}
        has_markers = False

        def renumber(sp: str, nums: str) -> str:
            nonlocal has_markers
            has_markers = True
            new: list[int] = []
            for part in nums.split(","):
                target = survivor.get(int(part))
                if target is None:
                    continue
                number = order.setdefault(target, len(order) + 1)
                if number not in new:
                    new.append(number)
            return sp + "[" + ", ".join(map(str, new)) + "]" if new else ""

        text = outside_code(text, lambda part: self._undisguise(sub_markers(part, renumber), outcomes, approved))
        # last: removing markers can glue a URL together. Code stays as written: a sample's URL
        # (requests.get("https://…")) is part of the code, and code is never a link (Slack shows it verbatim)
        text = outside_code(text, lambda part: self._sweep(part, outcomes, approved))
        cited = list(order) if has_markers else list(refs_data)
        references = tuple(
            _renumbered(refs_data[n], i) for i, n in enumerate(cited, start=1)
        )
        return Validated(text, references, group_references(references), tuple(outcomes))

    def quote_link(self, url: str, passage: str, site: str | None = None) -> LinkOutcome:
        """``url`` checked without its text directive, then given one that lands on ``passage`` (when one does)."""
        checked = self._quoted(self._checked(split_directive(url)[0], site), passage)
        return dataclasses.replace(checked.outcome, input=url)

    def _quoted(self, checked: Checked, passage: str) -> Checked:
        """``checked`` with a text directive for the quoted ``passage`` on its output, when one lands on it."""
        outcome = checked.outcome
        if not passage or outcome.output is None or outcome.action == LinkAction.LINK_DROPPED or not checked.site:
            return checked
        found = self.directives.derive(checked.site, checked.page or "", checked.fragment, passage)
        if found is None:
            return checked
        return checked._replace(outcome=dataclasses.replace(
            outcome, output=with_directive(outcome.output, found.encode()),
            reason=f"{outcome.reason}; text directive for the quoted passage"))

    def _reference(self, src: Source, checked: Checked) -> Reference:
        title, path = src.title, src.path
        if checked.outcome.action != LinkAction.KEPT and checked.site and checked.page:
            page_index = self._index(checked.site).page(checked.page)
            if checked.fragment and checked.fragment in page_index.titles:
                title, path = page_index.titles[checked.fragment]
            elif not checked.fragment:
                page = self.maps[checked.site].pages[checked.page]
                title, path = page.title or src.title, (page.title,) if page.title else src.path[:1]
        source_type = group_of(src.source_type)
        url = reference_url(checked.outcome.output) if checked.outcome.output else src.url
        return Reference(0, url, title, tuple(path), source_type, src.site, False, self._docs_text(src.snippet),
                         self._docs_text(src.passage))

    def _docs_text(self, text: str) -> str:
        """A snippet or quote of the docs: its URLs are checked like the answer's (the outcomes are not the answer's)."""
        if text and (":" in text or "www." in text):
            return self._sweep(self._undisguise(text, [], set()), [], set())
        return text

    def _replace(self, m: re.Match[str], site: str | None, outcomes: list[LinkOutcome], approved: set[str]) -> str:
        if m.group("md"):
            target = m.group("mdurl").strip("<>")
            text = self._sweep(m.group("text"), outcomes, approved)
            out = self._approve(target, site, outcomes, approved)
            bang = "!" if m.group(0).startswith("!") else ""
            return f"{bang}[{text}]({out})" if out else text
        if m.group("angle"):
            label = self._sweep(m.group("atext") or "", outcomes, approved)
            out = self._approve(m.group("aurl"), None, outcomes, approved)
            if out:
                return f"<{out}|{label}>" if m.group("atext") is not None else f"<{out}>"
            return label
        if m.group("refdef"):
            target = m.group("rurl").strip("<>")
            out = self._approve(target, site, outcomes, approved)
            line = m.group(0)
            return line.replace(m.group("rurl"), out, 1) if out else ""
        whole = m.group("bare")
        url = whole.rstrip(TRAILING)
        tail = whole[len(url):]
        out = self._approve(url, None, outcomes, approved)
        return (out or "") + tail

    def _approve(self, url: str, site: str | None, outcomes: list[LinkOutcome], approved: set[str]) -> str | None:
        outcome = self._checked(url, site).outcome
        outcomes.append(outcome)
        if outcome.output is not None and outcome.action != LinkAction.LINK_DROPPED:
            approved.add(outcome.output)
            return outcome.output
        return None

    def _undisguise(self, text: str, outcomes: list[LinkOutcome], approved: set[str]) -> str:
        """Every disguised URL (see :mod:`docbot.references.scan`) checked as the URL it spells: approved output, or removed."""
        def fix(m: re.Match[str]) -> str:
            raw = m.group(0).rstrip(TRAILING)
            if raw in approved:
                return m.group(0)
            url = undisguise(raw)
            if url.lower().startswith(("http://", "https://")):
                out = self._approve(url, None, outcomes, approved)
            else:
                out = None
                outcomes.append(LinkOutcome(raw, None, LinkAction.LINK_DROPPED, "not an http(s) link"))
            return (out or "") + m.group(0)[len(raw):]

        return DISGUISED.sub(fix, text) if may_hide_urls(text) else text

    def _sweep(self, text: str, outcomes: list[LinkOutcome], approved: set[str]) -> str:
        """Re-check any bare URL in ``text`` that is not an approved output (link text, glued-together URLs)."""
        if "://" not in text:  # no bare URL at all (most link texts)
            return text
        for sweep in range(MAX_SWEEPS + 1):
            changed = False

            def fix(m: re.Match[str], sweep: int = sweep) -> str:
                nonlocal changed
                url = m.group(0).rstrip(TRAILING)
                if url in approved:
                    return m.group(0)
                changed = True
                out = None if sweep == MAX_SWEEPS else self._approve(url, None, outcomes, approved)
                return (out or "") + m.group(0)[len(url):]

            text = BARE.sub(fix, text)
            if not changed:
                return text
        while True:  # last resort: strip whatever is still unapproved (each pass shortens the text)
            stripped = BARE.sub(lambda m: m.group(0) if m.group(0).rstrip(TRAILING) in approved else "", text)
            if stripped == text:
                return text
            text = stripped


def _renumbered(ref: Reference, n: int) -> Reference:
    return dataclasses.replace(ref, n=n, primary=n == 1)
