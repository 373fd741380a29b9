"""Group references by source type, in the one order every output uses (``GROUP_ORDER``)."""

from __future__ import annotations

from collections.abc import Sequence

from crawlers.model import SourceType
from docbot.answer import GROUP_ORDER, Group, Reference

FALLBACK_GROUP = SourceType.OTHER


def group_of(source_type: str) -> SourceType:
    """The group a source type belongs to; unknown types fall into 'Other'."""
    return SourceType(source_type) if source_type in GROUP_ORDER else FALLBACK_GROUP


def group_references(refs: Sequence[Reference]) -> tuple[Group, ...]:
    """Non-empty groups in ``GROUP_ORDER``; each lists reference numbers in citation order."""
    buckets: dict[SourceType, list[int]] = {name: [] for name in GROUP_ORDER}
    for ref in refs:
        numbers = buckets[group_of(ref.source_type)]
        if ref.n not in numbers:
            numbers.append(ref.n)
    return tuple(Group(name, tuple(numbers)) for name, numbers in buckets.items() if numbers)
