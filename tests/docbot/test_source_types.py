"""One source-type vocabulary: every SourceType has its group and (but "Other") its ranker feature.

A type added to :class:`crawlers.model.SourceType` fails here until grouping places it and the shipped ranker
model is refitted with its feature (``scripts/fit_ranker.py``).
"""

from __future__ import annotations

import pytest

from crawlers.model import SourceType
from docbot.answer import GROUP_ORDER, Reference
from docbot.references.grouping import group_of, group_references
from docbot.retrieval import features as feat
from docbot.retrieval.ranker import Ranker


@pytest.mark.parametrize("kind", list(SourceType))
def test_every_source_type_is_a_group_of_its_own(kind: SourceType) -> None:
    assert group_of(kind) is kind and kind in GROUP_ORDER
    groups = group_references([Reference(1, "http://d/a.html", "t", ("t",), kind, "d")])
    assert [(g.type, g.refs) for g in groups] == [(kind.value, (1,))]


@pytest.mark.parametrize("kind", list(SourceType))
def test_every_source_type_but_other_is_one_ranker_feature(kind: SourceType) -> None:
    section = feat.Section("http://d/a.html", "Title", ("Title",), "some text", "heading", kind)
    row = feat.rows("title", [feat.Evidence("k", 1.0, 1)], [section], {"title": 1}, 10)[0]
    flags = {name: value for name, value in zip(feat.FEATURES, row) if name.startswith("type:")}
    assert set(flags) == {f"type:{t.value}" for t in SourceType if t is not SourceType.OTHER}
    assert sorted(flags.values()) == [0.0] * (len(flags) - 1) + ([0.0] if kind is SourceType.OTHER else [1.0])
    if kind is not SourceType.OTHER:
        assert flags[f"type:{kind.value}"] == 1.0


def test_the_shipped_ranker_knows_every_feature_and_keeps_its_names() -> None:
    ranker = Ranker.load()
    assert ranker is not None and ranker.model.inputs == feat.FEATURES
    assert feat.FEATURES[-6:] == ("type:API reference", "type:Guides", "type:Tutorials", "type:Examples", "type:FAQ",
                                  "type:Release notes")
