"""The newer statement first: among hits that both answer the query, the later one ranks first.

Conversations update what they said ("the API answers in 400 ms", later "now 250 ms"). Both
statements match a question about it, and the older often a little better: on BEAM's
knowledge-update questions the updated message ranked above the original only 40% of the time
(bench/results/recall.md). Whole messages of one conversation are all alike to the embedding
model (on BEAM an update and its original were no closer than unrelated messages), so "the same
thing" is read from the query instead: two hits of the same subject (speaker) that both answer
it, each with a relevance of at least FLOOR (the relevance model's chance, MODEL fusion). Then
the newer one, by the session's date and then the turn within it, moves up to just above the
older one and takes its score, so scores stay in order. No hit enters or leaves the top k.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from graph.search.types import Hit

# Both hits at least this likely to answer the query: chosen on BEAM's knowledge updates with
# LoCoMo's R@5 no lower than before the model (bench/ranker.py --newer).
FLOOR = 0.85


@dataclass(frozen=True)
class Timed:
    """A hit as the rule sees it: its id, score, and when it was said (ISO time, turn)."""

    id: str
    score: float
    when: tuple[str, int]


def same_thing(
    a: float, b: float, a_subject: str | None, b_subject: str | None, floor: float = FLOOR
) -> bool:
    """Two hits that both answer the query (relevance at least `floor`) and are said by, or
    about, the same subject: they speak of the same thing."""
    return min(a, b) >= floor and a_subject == b_subject


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


def first(hits: Sequence[Hit], floor: float = FLOOR) -> list[Hit]:
    """The hits with the rule applied."""
    by_id = {h.fact.id: h for h in hits}
    items = [
        Timed(h.fact.id, h.score, when(h.fact.valid_from, h.fact.recorded_at, h.fact.turn))
        for h in hits
    ]

    def same(a: str, b: str) -> bool:
        x, y = by_id[a], by_id[b]
        return same_thing(x.relevance, y.relevance, x.fact.subject, y.fact.subject, floor)

    moved = reorder(items, same)
    return [dataclasses.replace(by_id[t.id], score=t.score) for t in moved]
