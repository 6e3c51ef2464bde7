"""The second round trip of a search: the hits' whole facts, and what comes back beside them.

The candidate query ships briefs (graph/search/candidates.py); the top-k hits' facts come
here, with the turns around each hit and the facts that share the hits' tags.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from graph.db import Database
from graph.facts import Fact
from graph.search.candidates import Brief, Candidates, filter_params
from graph.search.options import SearchOptions
from graph.search.types import Hit, RelatedFact, Scored

# How many of a tag's facts (most recently tagged first) the shared-tag list looks at: a popular
# tag can be on most of a scope. 200 cost ~4 ms more per search than 50 at 100,000 facts.
SHARED_TAG_SCAN = 50


def wanted(briefs: Sequence[Brief], options: SearchOptions) -> bool:
    """Whether the related facts can be non-empty: a turn window or shared tags are possible."""
    window = (options.prev_turns or options.next_turns) and any(_turn_of(b) for b in briefs)
    tagged = options.related_limit > 0 and any(b.tags for b in briefs)
    return bool(window or tagged)


def finish(
    db: Database,
    scope: str,
    top: list[Scored],
    found: Candidates,
    options: SearchOptions,
    now: datetime,
) -> tuple[list[Hit], list[RelatedFact]]:
    """The hits with their facts, and the related facts; one round trip at most."""
    briefs = [found.briefs[s.id] for s in top]
    hydrate = [s.id for s in top if s.id not in found.facts]
    want = bool(top) and wanted(briefs, options)
    if not hydrate and not want:
        return [s.hit(found.facts[s.id]) for s in top], []
    params = filter_params(scope, options, now)
    window = []
    if want and (options.prev_turns or options.next_turns):
        for rank, brief in enumerate(briefs, start=1):
            turn = _turn_of(brief)
            if turn is not None:
                window.append({"id": brief.id, "rank": rank, **turn})
    params.update(
        hydrate=hydrate,
        window=window,
        prev=options.prev_turns,
        next=options.next_turns,
        tagged=[b.id for b in briefs if b.tags],
        tag_limit=options.related_limit if want else 0,
        per_tag=max(SHARED_TAG_SCAN, 4 * options.related_limit),
        hit_ids=[s.id for s in top],
    )
    record = db.read_fast("search_related", params)[0]
    facts = dict(found.facts)
    facts.update((node["id"], Fact.from_node(node)) for node in record["hits"])
    # A hit purged between the two round trips has no fact left to show: it is dropped.
    hits = [s.hit(facts[s.id]) for s in top if s.id in facts]
    out: list[RelatedFact] = []
    seen: set[str] = set()
    for reason, rows in (("turn_window", record["window"]), ("shared_tag", record["tagged"])):
        for row in rows:
            fact = Fact.from_node(row["fact"])
            if fact.id not in seen:
                seen.add(fact.id)
                out.append(RelatedFact(fact, reason, str(row["hit_id"])))
    return hits, out


def _turn_of(brief: Brief) -> dict[str, object] | None:
    if brief.session_id is None or brief.turn is None:
        return None
    return {"session_id": brief.session_id, "turn": brief.turn}
