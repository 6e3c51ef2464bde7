"""The candidate round trip: one Cypher query returns every ranked list a search fuses."""

from __future__ import annotations

import math
import threading
import time
import weakref
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graph.db import Database
from graph.facts import Fact, FactStatus
from graph.search.lucene import scoped
from graph.search.options import Mode, SearchOptions

# Neo4j's index calls rank the whole index, not the scope, so each list asks for more than it
# keeps: up to OVERFETCH times as many, fewer when the scope holds most of the index (asking a
# vector index for 180 neighbours costs about twice what 80 cost). SHARE_TTL bounds how stale
# the scope's share may be; a stale share only costs time, never results (see the fallbacks in
# search_candidates.cypher).
OVERFETCH = 3
HEADROOM = 1.25
SHARE_TTL = 60.0
# Beyond this many live facts in a scope, an exact vector scan costs more than a wide index
# query; WIDE is how far both indexes are asked when a filter is selective.
EXACT_MAX = 20_000
WIDE = 5_000
EXPANSION_SEEDS = 10


@dataclass(frozen=True)
class Candidates:
    """Ranked (id, raw score) lists by name, and every fact named in them."""

    lists: dict[str, list[tuple[str, float]]]
    facts: dict[str, Fact]
    fulltext_exhaustive: bool
    vector_exact: bool


def statuses(options: SearchOptions) -> list[str]:
    """Active facts; quarantined on request; with asOf, also the superseded (history)."""
    out = [FactStatus.ACTIVE.value]
    if options.include_quarantined:
        out.append(FactStatus.QUARANTINED.value)
    if options.as_of is not None:
        out.append(FactStatus.SUPERSEDED.value)
    return out


def filter_params(scope: str, options: SearchOptions, now: datetime) -> dict[str, Any]:
    return {
        "scope": scope,
        "statuses": statuses(options),
        "partitions": list(options.partitions) if options.partitions is not None else None,
        "tags": list(options.tags),
        "now": now,
        "as_of": options.as_of,
        "exclude": list(options.exclude_ids),
    }


def fetch_size(k: int, share: float) -> int:
    """How many hits to ask each index for, to keep about `k` after the scope filter."""
    if share <= 0.0:
        return k * OVERFETCH
    return max(k, min(k * OVERFETCH, math.ceil(k * HEADROOM / share)))


class _Shares:
    """Per database and scope: live facts of the scope / facts in the indexes, cached."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cache: weakref.WeakKeyDictionary[Database, dict[str, tuple[float, float]]] = (
            weakref.WeakKeyDictionary()
        )

    def share(self, db: Database, scope: str) -> float:
        now = time.monotonic()
        with self._lock:
            known = self._cache.get(db, {}).get(scope)
        if known is not None and known[1] > now:
            return known[0]
        record = db.read("search_scope_share", {"scope": scope})[0]
        total, live = int(record["total"]), int(record["live"])
        value = live / total if total else 0.0
        with self._lock:
            self._cache.setdefault(db, {})[scope] = (value, now + SHARE_TTL)
        return value


shares = _Shares()


def fetch(
    db: Database,
    scope: str,
    options: SearchOptions,
    *,
    lucene: str,
    vector: list[float] | None,
    now: datetime,
) -> Candidates:
    k = options.candidate_top_k
    params = filter_params(scope, options, now)
    params.update(
        lucene=scoped(scope, lucene) if options.mode is not Mode.VECTOR else "",
        vector=vector if options.mode is not Mode.FULLTEXT else None,
        k=k,
        fetch=fetch_size(k, shares.share(db, scope)),
        wide=max(WIDE, k * OVERFETCH),
        exact_max=EXACT_MAX,
        hops=options.expand_hops,
        seeds=EXPANSION_SEEDS,
    )
    record = db.read("search_candidates", params)[0]
    facts = {node["id"]: Fact.from_node(node) for node in record["facts"]}
    lists = {
        name: [(str(x["id"]), float(x["score"])) for x in record[name]]
        for name in ("fulltext", "vector", "graph")
        if record[name]
    }
    return Candidates(
        lists=lists,
        facts=facts,
        fulltext_exhaustive=bool(record["ft_exhaustive"]),
        vector_exact=bool(record["vec_exact"]),
    )
