"""The second round trip of a search: the hits' whole facts, and what comes back beside them.

The candidate query ships briefs (graph/search/candidates.py); the top-k hits' facts come
here, with the turns around each hit and the facts that share the hits' tags, and the vector
scores of hits the candidate query did not score (`vector`).
"""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from graph.search.candidates import Candidates, filter_params
from graph.search.options import SearchOptions
from graph.search.types import Hit, RelatedFact, Scored
from graph.storage.db import Database
from graph.write.facts import Fact

# How many of a tag's facts (most recently tagged first) the shared-tag list looks at: a popular
# tag can be on most of a scope. 200 cost ~4 ms more per search than 50 at 100,000 facts.
SHARED_TAG_SCAN = 50


class Finished(NamedTuple):
    """The hits with their facts, the facts beside them, and `cosines`: the vector scores
    (index scale) of the hits that had none in `found`, when asked with the query's vector."""

    hits: list[Hit]
    related: list[RelatedFact]
    cosines: dict[str, float]


def finish(
    db: Database,
    scope: str,
    top: list[Scored],
    found: Candidates,
    options: SearchOptions,
    now: datetime,
    vector: list[float] | None = None,
) -> Finished:
    """The hits with their facts, and the related facts; one round trip at most. With
    `vector`, also the vector scores of the hits that `found` has none for."""
    if not top:
        return Finished([], [], {})
    hydrate = [s.id for s in top if s.id not in found.facts]
    unscored = [s.id for s in top if s.id not in found.cosines] if vector is not None else []
    window = bool(options.prev_turns or options.next_turns)
    tagged = options.related_limit > 0
    if not hydrate and not unscored:
        # Every hit's fact is at hand (a reranker read them): without a turn or a tag on any
        # hit there is nothing beside them, and no round trip. Briefs carry neither, so with
        # briefs the query finds out.
        at_hand = [found.facts[s.id] for s in top]
        window = window and any(f.session_id is not None and f.turn is not None for f in at_hand)
        tagged = tagged and any(f.tags for f in at_hand)
        if not window and not tagged:
            return Finished([s.hit(found.facts[s.id]) for s in top], [], {})
    params = filter_params(scope, options, now)
    params.update(
        # In one map, not as list parameters: Neo4j keys its plan cache on each list's size (in
        # coarse buckets), and a search with 1 or 30 hits instead of 10 made the server plan
        # this query again (~200 ms; bench/README "Plans keyed by a string's length").
        hits={
            "hydrate": hydrate,
            "window": [{"id": s.id, "rank": rank} for rank, s in enumerate(top, start=1)]
            if window
            else [],
            "tagged": [s.id for s in top] if tagged else [],
            "hit_ids": [s.id for s in top],
            "cosine": unscored,
        },
        vector=vector if unscored else None,
        chunk_discount=options.chunk_discount,
        prev=options.prev_turns,
        next=options.next_turns,
        tag_limit=options.related_limit if tagged else 0,
        per_tag=max(SHARED_TAG_SCAN, 4 * options.related_limit),
    )
    facts = dict(found.facts)
    out: list[RelatedFact] = []
    seen: set[str] = set()
    # Rows come as the hits' facts, then the turn window, then the shared tags (a fact in both
    # lists is shown once, for its turn).
    record = db.read_fast("search_related", params)[0]
    for row in record["rows"]:
        fact = Fact.from_node(row["fact"])
        if row["kind"] == "hit":
            facts[fact.id] = fact
        elif fact.id not in seen:
            seen.add(fact.id)
            out.append(RelatedFact(fact, row["kind"], str(row["hit_id"])))
    # A hit purged between the two round trips has no fact left to show: it is dropped.
    hits = [s.hit(facts[s.id]) for s in top if s.id in facts]
    return Finished(hits, out, {str(x["id"]): float(x["score"]) for x in record["cosines"]})
