"""Source grouping: one group per type, in GROUP_ORDER, numbers in citation order."""

from __future__ import annotations

from docbot.answer import GROUP_ORDER, Reference
from docbot.references.grouping import group_references


def ref(n: int, source_type: str) -> Reference:
    return Reference(n, f"http://d/{n}.html", "t", ("t",), source_type, "d", n == 1)


def test_groups_follow_group_order_not_citation_order() -> None:
    refs = [ref(1, "Guides"), ref(2, "API reference"), ref(3, "FAQ"), ref(4, "Guides"), ref(5, "Release notes")]
    groups = group_references(refs)
    assert [(g.type, g.refs) for g in groups] == [
        ("API reference", (2,)),
        ("Guides", (1, 4)),
        ("FAQ", (3,)),
        ("Release notes", (5,)),
    ]
    assert [g.type for g in groups] == [t for t in GROUP_ORDER if t in {g.type for g in groups}]


def test_unknown_types_fall_into_other_and_empty_input_gives_no_groups() -> None:
    assert [(g.type, g.refs) for g in group_references([ref(1, "Blog"), ref(2, "Other")])] == [("Other", (1, 2))]
    assert group_references([]) == ()
