"""The newer statement first: among the hits, a later memory that answers the query about as well
as an earlier one ranks above it.

Conversations update what they said ("the API answers in 400 ms", later "now 250 ms"). Both
statements match a question about it about equally, and the older often a little better: on
BEAM's knowledge-update questions the updated message ranked above the original only 30% of the
time. Whole messages of one conversation are all alike to the embedding model (on BEAM an update
and its original were no closer than unrelated messages), so "the same thing" is read from the
query instead: two hits whose relevances are within CLOSE of each other answer it about as well.
Then the newer one, by the session's date and then the turn within it, moves up to just above
the older one and takes its score, so scores stay in order. No hit enters or leaves the top k.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from graph.search.types import Hit

# Relevances this close (a share of the higher one) answer the query about as well: chosen on
# BEAM's knowledge updates with LoCoMo's figures held (bench/ranker.py --newer).
CLOSE = 0.1


@dataclass(frozen=True)
class Timed:
    """A hit as the rule sees it: its id, score, and when it was said (ISO time, turn)."""

    id: str
    score: float
    when: tuple[str, int]


def same_thing(a: float, b: float, close: float = CLOSE) -> bool:
    """Two hits' relevances within `close` of the higher one: both answer the query about as
    well, so both speak of what it asks."""
    return abs(a - b) <= close * max(a, b)


def when(valid_from: datetime | None, recorded_at: datetime, turn: int | None) -> tuple[str, int]:
    """When a fact was said: its validity start (the session's date), else when it was
    recorded; then its turn within the session."""
    at = (valid_from or recorded_at).astimezone(UTC)
    return (at.isoformat(), turn if turn is not None else -1)


def reorder(items: Sequence[Timed], same: Callable[[str, str], bool]) -> list[Timed]:
    """Each item, in rank order, moves above the highest-ranked earlier item it speaks of the
    same thing as and is newer than, taking that item's score; a chain of updates ends newest
    first."""
    out = list(items)
    for j in range(1, len(out)):
        b = out[j]
        for i in range(j):
            a = out[i]
            if b.when > a.when and same(b.id, a.id):
                out.pop(j)
                out.insert(i, Timed(b.id, max(a.score, b.score), b.when))
                break
    return out


def first(hits: Sequence[Hit], close: float = CLOSE) -> list[Hit]:
    """The hits with the rule applied."""
    by_id = {h.fact.id: h for h in hits}
    items = [
        Timed(h.fact.id, h.score, when(h.fact.valid_from, h.fact.recorded_at, h.fact.turn))
        for h in hits
    ]
    moved = reorder(items, lambda a, b: same_thing(by_id[a].relevance, by_id[b].relevance, close))
    return [dataclasses.replace(by_id[t.id], score=t.score) for t in moved]
