"""Lexical search: case-insensitive substring match, with no embedding involved.

It works with the vector side switched off and finds exact strings (ids, codes, names) that
ranked search may miss. Matching runs on the TEXT indexes over lowercased copies of a fact
(`fact_lexical`) and of an entity's name and aliases (`entity_lexical`); a fact also matches
through the names and aliases of the entities it mentions. Results are newest first (valid
time, then recorded time), not ranked by match quality: a substring either matches or not.

Cost follows the matches: up to `SORT_CAP` in the scope are read from the text index and
sorted; past that, the scope's facts are walked newest first in valid-time index order and the
first `limit` that match are returned (same filters, same order).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graph.browse.common import check_exclude_ids, check_limit, preview
from graph.clock import Clock, system_clock
from graph.storage.db import Database
from graph.write.facts import read_time
from graph.write.validation import check_scope

MAX_NEEDLE_CHARS = 512
# Up to this many matches in the scope are sorted newest first; a needle matching more is
# common enough that walking the scope's facts newest first finds the page sooner.
SORT_CAP = 1_000


@dataclass(frozen=True)
class LexicalHit:
    """A reference to a matching node: fetch the fact or node by id for more."""

    id: str
    type: str  # "fact" or "entity"
    preview: str
    time: datetime | None


def lexical_search(
    db: Database,
    scope: str,
    query: str,
    *,
    limit: int = 10,
    exclude_ids: Iterable[str] | None = None,
    include_entities: bool = True,
    clock: Clock = system_clock,
) -> list[LexicalHit]:
    """Active facts (and entities) whose text contains `query`, newest first.

    An empty or blank query gives no results rather than everything.
    """
    check_scope(scope)
    check_limit(limit, "limit")
    excluded = check_exclude_ids(exclude_ids)
    needle = (query or "").strip().casefold()[:MAX_NEEDLE_CHARS]
    if not needle:
        return []
    params: dict[str, Any] = {
        "scope": scope,
        "needle": needle,
        "exclude_ids": excluded,
        "limit": limit,
        "now": clock(),
    }
    # Few matches: sort them all (text index). Many: walk the valid-time index newest first.
    row = db.read("browse_lexical", {**params, "cap": SORT_CAP})[0]
    facts = row["hits"] if not row["overflow"] else db.read("browse_lexical_dense", params)
    hits = [
        LexicalHit(id=r["id"], type="fact", preview=preview(r["text"]), time=read_time(r["time"]))
        for r in facts
    ]
    if include_entities:
        hits.extend(
            LexicalHit(
                id=r["id"],
                type="entity",
                preview=preview("; ".join([r["name"], *r["aliases"]])),
                time=read_time(r["time"]),
            )
            for r in db.read("browse_lexical_entities", params)
        )
        hits.sort(key=_newest_first)
    return hits[:limit]


def _newest_first(hit: LexicalHit) -> float:
    """Sort key; the sort is stable, so facts keep their tie order and precede entities."""
    return -(hit.time.timestamp() if hit.time is not None else float("-inf"))
