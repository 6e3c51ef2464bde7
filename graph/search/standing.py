"""The standing instructions and preferences that bear on a query, beside a search's hits.

A request that should honour "always include type hints" seldom shares a word with it ("write
me a parser"), so the hits miss it. A scope holds few standing statements (graph/write/
standing.py), so every one is scored against the query's vector, exactly, in its own small
query, and the closest come back in a field of their own, above a floor, whatever the hits.
The floor and the limit were measured on the BEAM development chats (bench/recall.py,
`hit@10+standing`).
"""

from __future__ import annotations

import json
import math
from datetime import datetime
from functools import cache
from pathlib import Path

from graph.search.lexical import query_stems
from graph.search.types import StandingFact
from graph.storage.db import Database
from graph.write.facts import Fact

# The vector index's scale, (1 + cosine) / 2. e5-small-v2 puts almost any two English texts of
# one project above 0.85, so the floor only keeps out what is plainly elsewhere; the limit does
# the choosing. On BEAM's 100K development chats, instruction following counting the field
# (hit@10+standing, top 5, before the word bonus below) was 0.95 with floors up to 0.86 and
# 0.90 from 0.87 to 0.90; preference following 0.89 at every floor to 0.91 (bench/recall.py
# `standing_floors`).
DEFAULT_FLOOR = 0.86
DEFAULT_LIMIT = 5
# Added to a statement's similarity, in its order only, per share of the query's word stems it
# holds: "always keep a minimalist resume style when I ask about resume design" ranked 7th by
# similarity for "how should I desing my resume?", among nine statements. On BEAM's
# development chats any weight from 0.005 to 0.05 brought 100K instruction following's field
# alone from 19 to 20 of 20 at top 5, and moved nothing else.
WORD_BONUS = 0.01
# The closest `limit` times this many statements are ordered again with the bonus.
RERANKED = 4
# How far a statement's cosine to the query must rise above its cosine to the centroid of
# queries about other things (standing_background.json, bench/standing_relevance.py): e5 puts
# every query near every statement (0.86-0.90 on the index's scale for "zebra"), and some
# statements near all of them, so the absolute floor alone hands a scope's statements to any
# query. 0.0 (the default, until the BEAM sets confirm another) keeps the old behaviour. On the
# queries of bench/data/standing_queries.json, cos(q, s) - cos(c, s) >= 0.04 (a lift of 0.02 on
# the index's scale) left statements for 23% of the unrelated queries instead of 94% at the
# 0.86 floor, and kept every related statement that the floor kept in the top 5 (35 of 40).
DEFAULT_LIFT = 0.0
BACKGROUND_FILE = Path(__file__).with_name("standing_background.json")


def bearing(
    db: Database,
    scope: str,
    vector: list[float],
    now: datetime,
    *,
    query: str = "",
    limit: int = DEFAULT_LIMIT,
    floor: float = DEFAULT_FLOOR,
    lift: float = DEFAULT_LIFT,
    model: str | None = None,
) -> list[StandingFact]:
    """The scope's active standing statements closest to the query's `vector`, best first;
    with the `query`'s text, its words lift the statements that share them (WORD_BONUS).

    With a `lift` above 0 and a background centroid for the `model` (the Embedder.id that made
    the vector), a statement must also stand `lift` above its similarity to the centroid."""
    if limit <= 0:
        return []
    relative, least = _relative(vector, lift, model)
    records = db.read_fast(
        "standing_near",
        {
            "ask": {"scope": scope},
            "vector": vector,
            "relative": relative,
            "lift": least,
            "now": now,
            "floor": floor,
            "limit": limit * RERANKED,
        },
    )
    found = [StandingFact(Fact.from_node(r["fact"]), float(r["score"])) for r in records]
    return ordered(query, found)[:limit] if query else found[:limit]


def _relative(vector: list[float], lift: float, model: str | None) -> tuple[list[float], float]:
    """The query's vector less the centroid, and the floor on its cosine to a statement that
    means cos(q, s) - cos(c, s) >= 2 * lift: (q - c) . s >= 2 * lift, on the index's scale."""
    centroid = background(model) if lift > 0 and model else None
    if centroid is None or len(centroid) != len(vector):
        return vector, 0.0
    relative = [q - c for q, c in zip(vector, centroid, strict=True)]
    norm = math.sqrt(sum(v * v for v in relative)) or 1.0
    return relative, (1.0 + min(1.0, 2.0 * lift / norm)) / 2.0


@cache
def background(model: str | None) -> tuple[float, ...] | None:
    """The centroid of background queries' vectors for `model` (bench/standing_relevance.py
    --write), or None when none was measured for it."""
    if model is None or not BACKGROUND_FILE.exists():
        return None
    raw = json.loads(BACKGROUND_FILE.read_text(encoding="utf-8"))
    if raw.get("model") != model:
        return None
    return tuple(float(v) for v in raw["centroid"])


def ordered(query: str, found: list[StandingFact]) -> list[StandingFact]:
    """`found` by similarity plus WORD_BONUS per share of the query's stems each holds."""
    stems = query_stems(query)
    if not stems:
        return found

    def share(fact: Fact) -> float:
        hay = " " + " ".join(fact.text.casefold().split())
        return sum(1 for s in stems if " " + s in hay) / len(stems)

    return sorted(found, key=lambda s: -(s.similarity + WORD_BONUS * share(s.fact)))


def listed(
    db: Database, scope: str, now: datetime, *, kind: str | None = None, limit: int = 100
) -> list[Fact]:
    """A scope's active standing statements, newest first; of one `kind` if given."""
    records = db.read("standing_list", {"scope": scope, "kind": kind, "now": now, "limit": limit})
    return [Fact.from_node(r["fact"]) for r in records]
