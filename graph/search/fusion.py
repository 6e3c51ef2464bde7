"""Rank fusion: pure functions over ranked lists of ids, usable on lists callers already hold.

Reciprocal rank fusion scores an item sum(1 / (k + rank)) over the lists it appears in (rank
from 1). Weighted fusion multiplies each list's term by its weight, so equal weights of 1
reproduce RRF exactly. Only ranks matter: raw scores of different indexes are not comparable.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

DEFAULT_K = 60

T = TypeVar("T", bound=Hashable)
N = TypeVar("N", bound=Hashable)


def rrf(lists: Sequence[Sequence[T]], k: int = DEFAULT_K) -> list[tuple[T, float]]:
    """Reciprocal rank fusion of ranked lists, best first."""
    no_weights: dict[int, float] = {}
    return weighted_fusion(dict(enumerate(lists)), no_weights, k=k)


def weighted_fusion(
    lists: Mapping[N, Sequence[T]],
    weights: Mapping[N, float],
    k: int = DEFAULT_K,
) -> list[tuple[T, float]]:
    """Fuse named lists with per-list weights (a missing weight is 1), best first.

    Ties keep the order in which items were first seen (list order, then rank), so the result
    is deterministic.
    """
    if k < 0:
        raise ValueError("k must not be negative")
    scores: dict[T, float] = {}
    for name, items in lists.items():
        weight = float(weights.get(name, 1.0))
        seen: set[T] = set()
        for rank, item in enumerate(items, start=1):
            if item in seen:
                continue
            seen.add(item)
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    order = {item: i for i, item in enumerate(scores)}
    return sorted(scores.items(), key=lambda pair: (-pair[1], order[pair[0]]))
