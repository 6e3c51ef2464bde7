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


def combsum(
    lists: Mapping[N, Sequence[tuple[T, float]]],
    weights: Mapping[N, float],
    factors: Mapping[N, Mapping[T, float]] | None = None,
) -> list[tuple[T, float]]:
    """Sum of each list's min-max normalised scores (a missing weight is 1), best first.

    Unlike rank fusion it keeps how far apart a list's candidates are: a full-text match far
    ahead of the rest stays ahead of items the other list only ranks a little higher. A list
    whose scores are all equal gives each of its items 1. An item's first occurrence in a list
    counts; ties keep the order in which items were first seen. `factors` scales single items'
    terms in a list (a missing one is 1): the search discounts word matches in long texts.
    """
    scores: dict[T, float] = {}
    for name, items in lists.items():
        if not items:
            continue
        weight = float(weights.get(name, 1.0))
        scaled = (factors or {}).get(name, {})
        values = [score for _, score in items]
        low, high = min(values), max(values)
        span = high - low
        seen: set[T] = set()
        for item, score in items:
            if item in seen:
                continue
            seen.add(item)
            norm = 1.0 if span <= 0 else (score - low) / span
            scores[item] = scores.get(item, 0.0) + weight * scaled.get(item, 1.0) * norm
    order = {item: i for i, item in enumerate(scores)}
    return sorted(scores.items(), key=lambda pair: (-pair[1], order[pair[0]]))
