"""The learned ranker: fitted pairwise and leave one site out, shipped as JSON, and used by retrieval."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from docbot.learn.linear import LinearModel
from docbot.retrieval.features import FEATURES
from docbot.retrieval.hybrid import Retriever
from docbot.retrieval.ranker import Ranker
from docbot.retrieval.ranker_fit import Labelled, ceiling, evaluate, fit, hits, leave_one_site_out
from tests.docbot.ask_fakes import FakeIndex, make_chunks

N = len(FEATURES)
TITLE = FEATURES.index("title")


def question(site: str, i: int, rng: random.Random) -> Labelled:
    """Ten candidates in retrieval's order; the right one is the one whose title matches, wherever it stands."""
    right = rng.randrange(10)
    rows = [tuple(rng.random() if j != TITLE else (0.9 if k == right else 0.1) for j in range(N)) for k in range(10)]
    return Labelled(site, f"{site}-{i}", tuple(rows), tuple(k == right for k in range(10)))


def questions() -> list[Labelled]:
    rng = random.Random(7)
    return [question(site, i, rng) for site in ("a", "b", "c") for i in range(12)]


def test_a_fitted_ranker_learns_what_tells_the_right_section_and_puts_it_first() -> None:
    qs = questions()
    model = fit(qs)
    assert max(range(N), key=lambda j: model.model.weights[j]) == TITLE
    assert evaluate(model, qs) == (36, 36) and evaluate(None, qs)[1] < 10
    assert all(ceiling(q) == (True, True) for q in qs)


def test_leave_one_site_out_never_fits_on_the_held_out_site() -> None:
    folds = leave_one_site_out(questions())
    assert sorted(folds) == ["a", "b", "c"]
    assert all(site not in model.meta["sites"] for site, model in folds.items())


def test_named_sections_come_first_and_a_weak_name_second_unless_already_shown() -> None:
    q = Labelled("a", "q", ((0.0,) * N,) * 3, (False, True, False), explicit=(False,), weak=(True,), weak_at=(-1,))
    assert hits(q, [1, 0, 2]) == (True, False)  # explicit (wrong), weak (right), then the candidates
    shown = Labelled("a", "q", ((0.0,) * N,) * 3, (False, True, False), weak=(True,), weak_at=(1,))
    assert hits(shown, [1, 0, 2]) == (True, True)  # the weak name is among the answer's sections already


def test_the_model_round_trips_and_refuses_other_features(tmp_path: Path) -> None:
    model = fit(questions())
    path = tmp_path / "m.json"
    import json
    path.write_text(json.dumps(model.to_json()))
    loaded = Ranker.load(path)
    assert loaded is not None and loaded.order([(0.5,) * N, (0.1,) * N]) == model.order([(0.5,) * N, (0.1,) * N])
    with pytest.raises(ValueError, match="refit"):
        Ranker.from_json({**model.to_json(), "features": ["x"]})


def test_retrieval_orders_its_candidates_by_the_ranker() -> None:
    chunks = make_chunks()
    plain = Retriever(FakeIndex(chunks), rank=False).search("upload size limit", k=5)
    size = FEATURES.index("words")
    # a ranker that wants the shortest section first
    short_first = Ranker(LinearModel(FEATURES, tuple(-1.0 if j == size else 0.0 for j in range(N)), 0.0, (0.0,) * N,
                                      (1.0,) * N))
    ranked = Retriever(FakeIndex(chunks), ranker=short_first).search("upload size limit", k=5)
    words = [len(h.text.split()) for h in ranked.hits]
    assert words == sorted(words) and {h.deep_url for h in ranked.hits} <= {h.deep_url for h in plain.hits} | {
        h.deep_url for h in Retriever(FakeIndex(chunks), rank=False).search("upload size limit", k=30).hits}
    assert ranked.leading == plain.leading  # the gate's evidence does not move
