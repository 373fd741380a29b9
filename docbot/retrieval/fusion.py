"""Reciprocal rank fusion (Cormack et al.): how retrieval merges its lists, and how the re-rankers merge a model's
order with retrieval's. Pure."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)  # what is ranked: a deep URL, a position
RRF_K = 60  # the constant of Cormack et al.; damps the weight of top ranks


def rrf(rankings: Iterable[tuple[Sequence[K], float]], k: int = RRF_K) -> dict[K, float]:
    """Reciprocal rank fusion: key → Σ weight / (k + rank), ranks from 1."""
    fused: dict[K, float] = {}
    for keys, weight in rankings:
        for rank, key in enumerate(keys, start=1):
            fused[key] = fused.get(key, 0.0) + weight / (k + rank)
    return fused


def fuse(first: Sequence[int], second: Sequence[int], weight: float = 1.0) -> list[int]:
    """Positions re-ordered by reciprocal rank fusion over two orders of them (``second`` at ``weight``); ties keep
    the first order."""
    score = rrf([(first, 1.0), (second, weight)])
    rank = {p: i for i, p in enumerate(first)}
    return sorted(score, key=lambda p: (-score[p], rank.get(p, len(rank))))
