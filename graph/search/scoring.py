"""Time and the composite score: pure functions of a fact, a relevance and the clock's now.

Recency and decay both count from the last access (when the fact was last returned or
reinforced), or from when it was recorded if it was never accessed: a fact keeps its place
while it is used and fades when it is not. Nothing here deletes anything.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from graph.search.options import Weights

SECONDS_PER_DAY = 86_400.0


class Aging(Protocol):
    """What recency and decay read: a Fact, or a candidate's Brief (graph/search/candidates.py)."""

    @property
    def strength(self) -> float: ...
    @property
    def recorded_at(self) -> datetime: ...
    @property
    def last_accessed_at(self) -> datetime | None: ...


def elapsed_days(fact: Aging, now: datetime) -> float:
    """Days since last access (or since recording); never negative."""
    since = fact.last_accessed_at or fact.recorded_at
    return max(0.0, (now - since).total_seconds() / SECONDS_PER_DAY)


def recency(fact: Aging, now: datetime, tau_days: float) -> float:
    """exp(-elapsed / tau): 1 for a fact used just now, 1/e after tau days unused."""
    return math.exp(-elapsed_days(fact, now) / tau_days)


def decay_factor(fact: Aging, now: datetime, tau_days: float) -> float:
    """strength * exp(-elapsed / tau): reinforced facts (strength > 1) resist fading."""
    return fact.strength * recency(fact, now, tau_days)


def normalise(scores: Sequence[float]) -> list[float]:
    """Scale to [0, 1] by the best score (ratios kept); min-max if any score is negative."""
    if not scores:
        return []
    low, high = min(scores), max(scores)
    if low < 0:
        span = high - low
        return [1.0 if span == 0 else (s - low) / span for s in scores]
    return [0.0 if high == 0 else s / high for s in scores]


def composite(relevance: float, importance: float, recency_score: float, w: Weights) -> float:
    """Weighted average of relevance, importance / 10 and recency, each in [0, 1]."""
    total = w.relevance + w.importance + w.recency
    value = w.relevance * relevance + w.importance * importance / 10.0 + w.recency * recency_score
    return value / total
