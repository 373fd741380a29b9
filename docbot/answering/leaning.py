"""Which units of a section read as nonsense alone, and what they must come after (for :mod:`compress`).

A sentence that opens by leaning on the one before it ("However, …"), one that points at the code before it ("This
will make test_function XFAIL."), and a list's item (after the sentence introducing its list) are held back until
what they lean on is given; meanwhile they lend it their score, so that it is given with them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence, Set
from dataclasses import dataclass

Key = tuple[int, int]  # (source, position)


@dataclass(frozen=True, slots=True)
class Unit:
    """A sentence, list item or code block of source ``n``, at ``position`` among its units, and its words."""

    n: int
    position: int
    text: str
    code: bool
    item: bool
    terms: frozenset[str]
    lead_in: bool = False  # ends in ':' right before a code block
    follower: bool = False  # a list's bare name ("flaky"): given only with the introduction before its list


# A sentence that opens by leaning on the one before it ("However, …", "In that case …") reads as nonsense alone: it
# is a fact only right after that sentence (a pair, or the follower of a fact already given).
_LEANS_BACK = re.compile(
    r"(?:(?:however|instead|also|in addition|additionally|similarly|likewise|conversely|in contrast),"  # "However you
    # configure it, …" and "In addition to X, …" stand alone: these lean back only before their comma
    r"|(?:but|therefore|thus|hence|otherwise|moreover|furthermore|nevertheless|nonetheless|consequently|"
    r"in (?:this|that|either|such a) case|on the other hand|as a result|for this reason|even so)\b)", re.IGNORECASE)
# A sentence right after a code block that opens by pointing at it ("These two examples illustrate…", "This will make
# test_function XFAIL.") speaks of that code: it is a fact only after the code or the sentence introducing it
# (anywhere else, "This…" is as often the section's own subject, "This method returns…", and stands alone).
# "Above, we also make use of the pool_pre_ping flag so that…" names what it speaks of and stands alone.
# "Here, the @parametrize decorator defines three tuples…" speaks of the example before it ("Here is…" of the one after).
_POINTS_BACK = re.compile(r"(?:this|these|that|those|the\s+(?:\w+\s+){0,3}above)\b(?!-)|here,", re.IGNORECASE)


def leaning_back(candidates: Sequence[Unit]) -> dict[Key, set[Key]]:
    """The units that read as nonsense alone → the units (source, position) after one of which they may be given:
    those that lean on the sentence before (:data:`_LEANS_BACK`) come after it; those that point at the code before
    them (:data:`_POINTS_BACK`) after that code or the sentence introducing it ("you can set core.autocrlf:", the
    config, "This does not force normalization…"); those pointing at such a sentence after it ("These two
    examples illustrate…", then "This will make test_function XFAIL."); a code block whose introduction leans
    back ("Here, the decorator defines three tuples…:" and the test run's output); and the items of a list after the
    sentence introducing them ("A data race happens when these three behaviors occur:", then "Two or more pointers
    access the same data at the same time.", which alone reads as a rule of its own)."""
    out: dict[Key, set[Key]] = {}
    code = {(u.n, u.position) for u in candidates if u.code}
    at = {(u.n, u.position): u for u in candidates}
    pointing: set[Key] = set()  # the sentences pointing at code
    introducing = {(u.n, u.position + 1) for u in candidates if u.lead_in}  # code blocks an introduction brings
    for u in candidates:
        key, before = (u.n, u.position), (u.n, u.position - 1)
        if u.code:
            if key in introducing and before in out:  # its introduction leans back: so does the code it brings
                out[key] = out[before] | {before}
            continue
        if u.item:
            intro = _introduction(at, u)
            if intro is not None:
                out[key] = {intro}
            continue
        if _LEANS_BACK.match(u.text):
            out[key] = {before}
        elif _POINTS_BACK.match(u.text) and before in code:
            out[key] = {before, (u.n, u.position - 2)}
            pointing.add(key)
        elif _POINTS_BACK.match(u.text) and before in pointing:
            out[key] = {before}
            pointing.add(key)
    return out


def _introduction(at: dict[Key, Unit], item: Unit) -> Key | None:
    """Where the sentence introducing ``item``'s list is (a candidate ending in ':' before the items), if known."""
    position = item.position - 1
    while (unit := at.get((item.n, position))) is not None and unit.item:
        position -= 1
    if unit is None or unit.code or not unit.text.rstrip().endswith(":"):
        return None
    return (item.n, position)


def reach(scored: Sequence[tuple[float, Unit]], intro: Unit, leans_back: dict[Key, set[Key]]) -> int | None:
    """The position of the last item of ``intro``'s list that scores at least half the best of them (what the
    introduction is given for), or None when it introduces no list."""
    key = (intro.n, intro.position)
    items = [(s, u.position) for s, u in scored if u.item and leans_back.get((u.n, u.position)) == {key}]
    if not items:
        return None
    top = max(s for s, _ in items)
    return max(position for s, position in items if s >= top / 2)


def lend(scored: Sequence[tuple[float, Unit]], held: Set[Key],
         leans_back: dict[Key, set[Key]]) -> list[tuple[float, Unit]]:
    """The units that may be picked now, scored: those ``held`` back for what they lean on are left out, and one
    pointing at code lends its score to that code (which comes with its introduction), so the example is given and
    what speaks of it may follow ("Here, the decorator defines three tuples…" brings the test it speaks of); a list's
    item lends its score to the sentence introducing the list, which comes with its items."""
    lent: dict[Key, float] = {}
    for score, u in scored:
        if (u.n, u.position) in held:
            for at in leans_back[(u.n, u.position)]:
                lent[at] = max(lent.get(at, 0.0), score)
    return [(max(score, lent.get((u.n, u.position), 0.0)) if u.code or u.text.rstrip().endswith(":") else score, u)
            for score, u in scored if (u.n, u.position) not in held]
