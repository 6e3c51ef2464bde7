"""Passages: each conversational turn is also indexed with the turns around it.

A turn alone is often too short to match its question ("Yes, last week!" answers "when did
Melanie run the charity race?"): the words are in the turns before and after it. Each fact with
a session and a turn keeps a derived `passage_text`, its own text between the texts of the
active turns up to PASSAGE_TURNS before and after it, indexed by `fact_passage_fulltext`.
Search ranks those passages as a list of its own, fused with the turns' own full-text and
vector lists; the turn's own entry stays clean (appending neighbours to it lost ten points of
recall in an earlier trial). On LoCoMo dev the passage list is the largest single gain
(bench/results/locomo-dev.md); two turns either side beat one (turn recall@10 0.789 against
0.756 with the other defaults, measured offline on the same lists).

The text is derived, never exported: every write that adds a turn or changes a turn's status
refreshes the passages its slot reaches (graph/storage/store.py, the importers), so a forgotten,
purged, superseded or quarantined turn's words leave its neighbours' passages at once.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from typing import Any

from neo4j import ManagedTransaction

from graph.storage.db import Database, run

PASSAGE_TURNS = 2


def slots(facts: Iterable[Mapping[str, Any] | Any]) -> list[dict[str, Any]]:
    """The distinct (session_id, turn) slots of facts that have both, in first-seen order."""
    seen: dict[tuple[str, int], None] = {}
    for fact in facts:
        if isinstance(fact, Mapping):
            session, turn = fact.get("session_id"), fact.get("turn")
        else:
            session, turn = getattr(fact, "session_id", None), getattr(fact, "turn", None)
        if session is not None and turn is not None:
            seen[(str(session), int(turn))] = None
    return [{"session_id": s, "turn": t} for s, t in seen]


def refresh(tx: ManagedTransaction, scope: str, facts: Iterable[Mapping[str, Any] | Any]) -> int:
    """Rebuild every passage the facts' slots reach, inside the caller's transaction."""
    wanted = slots(facts)
    if not wanted:
        return 0
    records = run(tx, "fact_passages_refresh", scope=scope, slots=wanted, radius=PASSAGE_TURNS)
    return int(records[0]["refreshed"]) if records else 0


def refresh_rows(tx: ManagedTransaction, rows: Iterable[Mapping[str, Any]]) -> int:
    """`refresh` for property maps that carry their own `scope` (bulk writers' batches)."""
    by_scope: dict[str, list[Mapping[str, Any]]] = {}
    for props in rows:
        by_scope.setdefault(str(props["scope"]), []).append(props)
    return sum(refresh(tx, scope, facts) for scope, facts in by_scope.items())


def refresh_sessions(tx: ManagedTransaction, rows: Iterable[Mapping[str, Any]]) -> int:
    """`refresh_rows` for a bulk batch: the same passages, one index seek per session.

    A batch of a thousand turns spans a few sessions; seeking each slot's neighbours one by one
    (as `refresh` does for a single write) cost the fast import more than writing the facts.
    """
    by_scope: dict[str, dict[str, list[int]]] = {}
    for slot_scope, slot in ((str(p["scope"]), s) for p in rows for s in slots([p])):
        by_scope.setdefault(slot_scope, {}).setdefault(slot["session_id"], []).append(slot["turn"])
    done = 0
    for scope, sessions in by_scope.items():
        wanted = [{"session_id": s, "turns": sorted(set(t))} for s, t in sessions.items()]
        records = run(tx, "import_passages", scope=scope, sessions=wanted, radius=PASSAGE_TURNS)
        done += int(records[0]["refreshed"]) if records else 0
    return done


def refresh_missing(db: Database, scopes: list[str] | None = None, batch: int = 1_000) -> int:
    """Give every turn without a passage its passage (facts loaded by a Cypher job)."""
    done = 0
    while True:
        records = db.read("fact_passages_missing", {"scopes": scopes, "limit": batch})
        if not records:
            return done
        rows = [dict(r["props"]) for r in records]
        db.write_tx(functools.partial(refresh_rows, rows=rows), "passages")
        done += len(rows)
