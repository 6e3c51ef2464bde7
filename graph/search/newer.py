"""The newer statement first: among hits that both answer the query, a later update ranks first.

Conversations update what they said ("the API answers in 400 ms", later "it has improved to
250 ms"). Both statements match a question about it, and the older often a little better: on
BEAM's knowledge-update questions the updated message ranked above the original only 40% of the
time (bench/results/recall.md). Whole messages of one conversation are all alike to the
embedding model (on BEAM an update and its original were no closer than unrelated messages),
and so are their words, so "an update of" is read from two things instead: both hits answer the
query (a relevance of at least FLOOR, graph/search/relevance.py) and are of the same subject
(speaker), and the newer one says that something changed (CHANGED: "now", "recently",
"updated", "instead", "no longer", "increased", "moved", ...). Then the newer one, by the
session's date and then the turn within it, moves up to just above the older one and takes its
score, so scores stay in order. No hit enters or leaves the top k.

Without the change words the rule also moved LoCoMo's chit-chat, whose older turns are as often
the evidence: R@5 fell 3.6 points where BEAM's newer-first reached 0.85 (bench/ranker.py).
The words are English; in another language the rule rarely fires and the fused order stands.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from graph.search.types import Hit

# Both hits at least this likely to answer the query: chosen on BEAM's knowledge updates with
# the relevance model of relevance.json (0.80 newer-first from 0.3 to 0.6, 0.70 at 0.7, 0.40
# off), LoCoMo's R@5 unmoved (bench/ranker.py --newer).
FLOOR = 0.5
# A statement that says something changed.
CHANGED = re.compile(
    r"\b(?:now|recently|updated?|changed?|instead|no longer|anymore|increased|decreased|improved"
    r"|reduced|raised|dropped|grown|grew|moved|rescheduled|extended|shifted|adjusted|revised)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Timed:
    """A hit as the rule sees it: its id, score, and when it was said (ISO time, turn);
    `updates`: the id of the older item it was moved above."""

    id: str
    score: float
    when: tuple[str, int]
    updates: str | None = None


def says_changed(text: str) -> bool:
    return CHANGED.search(text) is not None


def updates(
    newer: float,
    older: float,
    newer_subject: str | None,
    older_subject: str | None,
    newer_text: str,
    floor: float = FLOOR,
) -> bool:
    """The newer hit updates the older one: both answer the query (relevance at least
    `floor`), they are said by, or about, the same subject, and the newer says what changed."""
    return (
        min(newer, older) >= floor and newer_subject == older_subject and says_changed(newer_text)
    )


def when(valid_from: datetime | None, recorded_at: datetime, turn: int | None) -> tuple[str, int]:
    """When a fact was said: its validity start (the session's date), else when it was
    recorded; then its turn within the session."""
    at = (valid_from or recorded_at).astimezone(UTC)
    return (at.isoformat(), turn if turn is not None else -1)


def reorder(items: Sequence[Timed], updates_: Callable[[str, str], bool]) -> list[Timed]:
    """Each item, in rank order, moves above the highest-ranked earlier item that it is newer
    than and updates (`updates_(newer_id, older_id)`), taking that item's score; a chain of
    updates ends newest first."""
    out = list(items)
    for j in range(1, len(out)):
        b = out[j]
        for i in range(j):
            a = out[i]
            if b.when > a.when and updates_(b.id, a.id):
                out.pop(j)
                out.insert(i, Timed(b.id, max(a.score, b.score), b.when, a.id))
                break
    return out


def first(hits: Sequence[Hit], floor: float = FLOOR) -> list[Hit]:
    """The hits with the rule applied. Most searches have no pair it could move (two hits at
    the floor, a later one saying what changed): those return at once."""
    likely = [h for h in hits if h.relevance >= floor]
    if len(likely) < 2 or not any(says_changed(h.fact.text) for h in likely[1:]):
        return list(hits)
    by_id = {h.fact.id: h for h in hits}
    items = [
        Timed(h.fact.id, h.score, when(h.fact.valid_from, h.fact.recorded_at, h.fact.turn))
        for h in hits
    ]

    def updated(newer_id: str, older_id: str) -> bool:
        b, a = by_id[newer_id], by_id[older_id]
        return updates(b.relevance, a.relevance, b.fact.subject, a.fact.subject, b.fact.text, floor)

    moved = reorder(items, updated)
    return [
        by_id[t.id]
        if t.updates is None
        else dataclasses.replace(by_id[t.id], score=t.score, updates=t.updates)
        for t in moved
    ]
