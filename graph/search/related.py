"""Graph post-expansion: the turns around each hit, and facts that share the hits' tags."""

from __future__ import annotations

from datetime import datetime

from graph.db import Database
from graph.facts import Fact
from graph.search.candidates import filter_params
from graph.search.options import SearchOptions
from graph.search.types import Hit, RelatedFact

# How many of a tag's facts (most recently tagged first) the shared-tag list looks at: a popular
# tag can be on most of a scope, and scanning all of it cost seconds at 100,000 facts.
SHARED_TAG_SCAN = 200


def wanted(hits: list[Hit], options: SearchOptions) -> bool:
    """Whether the related query has anything to do: it costs a round trip, so ask first."""
    window = (options.prev_turns or options.next_turns) and any(_turn_of(h) for h in hits)
    tagged = options.related_limit > 0 and any(h.fact.tags for h in hits)
    return bool(window or tagged)


def related(
    db: Database, scope: str, hits: list[Hit], options: SearchOptions, now: datetime
) -> list[RelatedFact]:
    if not hits or not wanted(hits, options):
        return []
    params = filter_params(scope, options, now)
    window = []
    if options.prev_turns or options.next_turns:
        for rank, hit in enumerate(hits, start=1):
            turn = _turn_of(hit)
            if turn is not None:
                window.append({"id": hit.fact.id, "rank": rank, **turn})
    params.update(
        window=window,
        prev=options.prev_turns,
        next=options.next_turns,
        tagged=[h.fact.id for h in hits if h.fact.tags],
        tag_limit=options.related_limit,
        per_tag=max(SHARED_TAG_SCAN, 4 * options.related_limit),
        hit_ids=[h.fact.id for h in hits],
    )
    record = db.read("search_related", params)[0]
    out: list[RelatedFact] = []
    seen: set[str] = set()
    for reason, rows in (("turn_window", record["window"]), ("shared_tag", record["tagged"])):
        for row in rows:
            fact = Fact.from_node(row["fact"])
            if fact.id not in seen:
                seen.add(fact.id)
                out.append(RelatedFact(fact, reason, str(row["hit_id"])))
    return out


def _turn_of(hit: Hit) -> dict[str, object] | None:
    fact = hit.fact
    if fact.session_id is None or fact.turn is None:
        return None
    return {"session_id": fact.session_id, "turn": fact.turn}
