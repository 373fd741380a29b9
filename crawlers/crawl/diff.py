"""Compare two anchor maps: pages and anchors added/removed, and renamed anchors.

Pure functions. A rename is an anchor that disappeared from a page while a new
one appeared on the same page for a section with the same title or
near-identical text; it is appended to the map's rename history so old links
can be repaired later.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from crawlers.model import AnchorMap, Page, Rename, SectionText

TEXT_SIMILARITY = 0.9  # difflib ratio above which two section texts are "the same section"
_TEXT_PREFIX = 2000  # characters compared, to keep the diff cheap on long sections


@dataclass(frozen=True, slots=True)
class ChangeReport:
    """What one crawl changed against the previous map, plus its counts."""

    pages: int = 0
    anchors: int = 0
    sections: int = 0
    pages_added: tuple[str, ...] = ()
    pages_removed: tuple[str, ...] = ()
    anchors_added: tuple[tuple[str, str], ...] = ()  # (page url, anchor) on pages present in both maps
    anchors_removed: tuple[tuple[str, str], ...] = ()
    renames: tuple[Rename, ...] = ()
    stale: tuple[str, ...] = ()  # pages kept from the previous map after a failed fetch
    errors: dict[str, int] = field(default_factory=dict)  # error kind -> count
    error_samples: dict[str, tuple[str, ...]] = field(default_factory=dict)  # error kind -> a few URLs
    duration: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "pages": self.pages,
            "anchors": self.anchors,
            "sections": self.sections,
            "duration": round(self.duration, 3),
            "pages_added": list(self.pages_added),
            "pages_removed": list(self.pages_removed),
            "anchors_added": [list(a) for a in self.anchors_added],
            "anchors_removed": [list(a) for a in self.anchors_removed],
            "renames": [r.to_json() for r in self.renames],
            "stale": list(self.stale),
            "errors": dict(sorted(self.errors.items())),
            "error_samples": {k: list(v) for k, v in sorted(self.error_samples.items())},
        }


@dataclass(frozen=True, slots=True)
class MapDiff:
    pages_added: tuple[str, ...]
    pages_removed: tuple[str, ...]
    anchors_added: tuple[tuple[str, str], ...]
    anchors_removed: tuple[tuple[str, str], ...]
    renames: tuple[Rename, ...]


def _similar(a: str, b: str) -> bool:
    a, b = a[:_TEXT_PREFIX], b[:_TEXT_PREFIX]
    if not a or not b:
        return False
    if a == b:
        return True
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return matcher.real_quick_ratio() >= TEXT_SIMILARITY and matcher.quick_ratio() >= TEXT_SIMILARITY and (
        matcher.ratio() >= TEXT_SIMILARITY
    )


def find_renames(
    old: Page,
    new: Page,
    old_texts: dict[str | None, str],
    new_texts: dict[str | None, str],
    seen_at: str,
) -> list[Rename]:
    """Renamed anchors of one page: removed section anchor ↔ added section anchor, same title or text."""
    removed = set(old.anchors) - set(new.anchors)
    added = set(new.anchors) - set(old.anchors)
    if not removed or not added:
        return []
    old_sections = [s for s in old.sections if s.anchor in removed]
    new_sections = [s for s in new.sections if s.anchor in added]
    renames: list[Rename] = []
    taken: set[str] = set()
    for sec in old_sections:
        assert sec.anchor is not None
        same_title = [s for s in new_sections if s.anchor not in taken and s.title == sec.title and s.level == sec.level]
        if len(same_title) != 1:
            same_title = [s for s in new_sections if s.anchor not in taken and s.title == sec.title]
        match = same_title[0] if len(same_title) == 1 else None
        if match is None:
            text = old_texts.get(sec.anchor, "")
            similar = [s for s in new_sections if s.anchor not in taken and _similar(text, new_texts.get(s.anchor, ""))]
            match = similar[0] if len(similar) == 1 else None
        if match is not None and match.anchor is not None:
            taken.add(match.anchor)
            renames.append(Rename(url=new.url, old=sec.anchor, new=match.anchor, seen_at=seen_at))
    return renames


def texts_by_page(texts: Sequence[SectionText]) -> dict[str, dict[str | None, str]]:
    out: dict[str, dict[str | None, str]] = {}
    for t in texts:
        out.setdefault(t.url, {})[t.anchor] = t.text
    return out


def diff_maps(
    previous: AnchorMap | None,
    current: AnchorMap,
    previous_texts: Sequence[SectionText] = (),
    current_texts: Sequence[SectionText] = (),
) -> MapDiff:
    """Pages and anchors added/removed and renames between two maps (sorted, deterministic)."""
    if previous is None:
        return MapDiff(tuple(sorted(current.pages)), (), (), (), ())
    old_urls, new_urls = set(previous.pages), set(current.pages)
    added_anchors: list[tuple[str, str]] = []
    removed_anchors: list[tuple[str, str]] = []
    renames: list[Rename] = []
    old_t = texts_by_page(previous_texts)
    new_t = texts_by_page(current_texts)
    for url in sorted(old_urls & new_urls):
        old, new = previous.pages[url], current.pages[url]
        if old.anchors == new.anchors:
            continue
        old_set, new_set = set(old.anchors), set(new.anchors)
        added_anchors.extend((url, a) for a in sorted(new_set - old_set))
        removed_anchors.extend((url, a) for a in sorted(old_set - new_set))
        renames.extend(find_renames(old, new, old_t.get(url, {}), new_t.get(url, {}), current.crawled_at))
    return MapDiff(
        pages_added=tuple(sorted(new_urls - old_urls)),
        pages_removed=tuple(sorted(old_urls - new_urls)),
        anchors_added=tuple(added_anchors),
        anchors_removed=tuple(removed_anchors),
        renames=tuple(sorted(renames, key=lambda r: (r.url, r.old, r.new))),
    )


def merge_renames(previous: AnchorMap | None, new: Sequence[Rename]) -> list[Rename]:
    """The rename history: the previous one plus new renames not already recorded."""
    history = list(previous.renames) if previous else []
    known = {(r.url, r.old, r.new) for r in history}
    history.extend(r for r in new if (r.url, r.old, r.new) not in known)
    return sorted(history, key=lambda r: (r.url, r.old, r.new, r.seen_at))
