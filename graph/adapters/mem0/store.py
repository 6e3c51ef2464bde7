"""The queries of the mem0-compatible service (cypher/mem0_*.cypher), as typed functions."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from neo4j import ManagedTransaction

from graph.adapters.mem0.held import Origin
from graph.storage.db import Database, run
from graph.storage.store import record_audit
from graph.write.facts import Fact, read_time


@dataclass(frozen=True)
class TagCount:
    """One id tag of one scope: how many live memories carry it, and their first and last
    times."""

    scope: str
    name: str
    memories: int
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True)
class Event:
    """A mem0 event: an add, what it was asked and what it did (JSON values)."""

    id: str
    scope: str
    event_type: str
    status: str
    payload: Any
    results: Any
    created_at: datetime
    completed_at: datetime

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Event:
        return cls(
            id=str(row["id"]),
            scope=str(row["scope"]),
            event_type=str(row["event_type"]),
            status=str(row["status"]),
            payload=json.loads(row["payload"]),
            results=json.loads(row["results"]),
            created_at=_time(row["created_at"]),
            completed_at=_time(row["completed_at"]),
        )


def create_event(db: Database, event: Event) -> None:
    params = {
        "id": event.id,
        "scope": event.scope,
        "event_type": event.event_type,
        "status": event.status,
        "payload": json.dumps(event.payload),
        "results": json.dumps(event.results),
        "created_at": event.created_at,
        "completed_at": event.completed_at,
    }
    db.write("mem0_event_create", params)


def get_event(db: Database, prefix: str, event_id: str) -> Event | None:
    rows = db.read("mem0_event_get", {"prefix": prefix, "id": event_id})
    return Event.from_row(rows[0]["event"]) if rows else None


def fact_scope(db: Database, prefix: str, fact_id: str) -> str | None:
    rows = db.read("mem0_fact_scope", {"id": fact_id, "prefix": prefix})
    return str(rows[0]["scope"]) if rows else None


def scopes_with_tag(
    db: Database, prefix: str, *, name: str | None, name_prefix: str | None, limit: int
) -> list[str]:
    """Scopes of a project holding live facts tagged `name` (or a tag starting `name_prefix`)."""
    if name is not None:
        rows = db.read("mem0_scopes_tag", {"prefix": prefix, "name": name, "limit": limit})
    else:
        params = {"prefix": prefix, "name_prefix": name_prefix, "limit": limit}
        rows = db.read("mem0_scopes_tag_prefix", params)
    return [str(row["scope"]) for row in rows]


def tagged_facts(
    db: Database,
    prefix: str,
    *,
    name: str | None,
    name_prefix: str | None,
    tags: Sequence[str],
    show_expired: bool,
    now: datetime,
    limit: int,
) -> list[Fact]:
    """Live facts of a project tagged `name` (or a tag starting `name_prefix`) and every tag of
    `tags`, newest first."""
    params: dict[str, Any] = {
        "prefix": prefix,
        "tags": list(tags),
        "show_expired": show_expired,
        "now": now,
        "limit": limit,
    }
    if name is not None:
        rows = db.read("mem0_list_tag", {**params, "name": name})
    else:
        rows = db.read("mem0_list_tag_prefix", {**params, "name_prefix": name_prefix})
    return [Fact.from_node(row["fact"]) for row in rows]


def origins(db: Database, prefix: str, fact_ids: Sequence[str]) -> dict[str, Origin]:
    """The first version of each fact's supersede chain, by the fact's id."""
    if not fact_ids:
        return {}
    rows = db.read("mem0_origins", {"prefix": prefix, "ids": list(dict.fromkeys(fact_ids))})
    return {str(row["id"]): Origin(str(row["origin"]), _time(row["created_at"])) for row in rows}


def retag(
    db: Database, scope: str, fact_id: str, tags: Sequence[str], *, actor: str, now: datetime
) -> Fact | None:
    """Add id tags to an active fact (an audit event says so when any was new); None when the
    fact is no longer active."""

    def work(tx: ManagedTransaction) -> Fact | None:
        rows = run(tx, "mem0_retag", id=fact_id, scope=scope, tags=list(tags), now=now)
        if not rows:
            return None
        fact = Fact.from_node(rows[0]["fact"])
        if fact.updated_at == now:
            reason = f"said again through mem0's API with {', '.join(tags)}"
            record_audit(
                tx,
                scope=scope,
                fact_id=fact_id,
                kind="annotate",
                actor=actor,
                reason=reason,
                now=now,
            )
        return fact

    return db.write_tx(work, "mem0_retag")


def tag_counts(db: Database, prefix: str, limit: int) -> list[TagCount]:
    rows = db.read("mem0_entities", {"prefix": prefix, "limit": limit})
    return [
        TagCount(
            scope=str(row["scope"]),
            name=str(row["name"]),
            memories=int(row["memories"]),
            created_at=_time(row["created_at"]),
            updated_at=_time(row["updated_at"]),
        )
        for row in rows
    ]


def last_turn(db: Database, scope: str, session_id: str) -> int | None:
    rows = db.read("mem0_last_turn", {"scope": scope, "session_id": session_id})
    turn = rows[0]["turn"] if rows else None
    return int(turn) if turn is not None else None


def project_scopes(db: Database, prefix: str) -> list[str]:
    """Every scope of a project, whatever its facts' status: deleting them drops the project."""
    return [str(row["scope"]) for row in db.read("mem0_project_scopes", {"prefix": prefix})]


def annotate(
    db: Database,
    scope: str,
    fact_id: str,
    *,
    metadata: Mapping[str, Any] | None,
    set_metadata: bool,
    expires_at: datetime | None,
    set_expires: bool,
    valid_from: datetime | None = None,
    actor: str,
    reason: str,
    now: datetime,
) -> Fact | None:
    """Set an active fact's metadata, expiry and/or valid time in place, with an audit event;
    None when the fact is not active in the scope."""

    def work(tx: ManagedTransaction) -> Fact | None:
        rows = run(
            tx,
            "mem0_annotate",
            id=fact_id,
            scope=scope,
            metadata=json.dumps(metadata, sort_keys=True) if metadata else None,
            set_metadata=set_metadata,
            expires_at=expires_at,
            set_expires=set_expires,
            valid_from=valid_from,
            now=now,
        )
        if not rows:
            return None
        record_audit(
            tx, scope=scope, fact_id=fact_id, kind="annotate", actor=actor, reason=reason, now=now
        )
        return Fact.from_node(rows[0]["fact"])

    return db.write_tx(work, "mem0_annotate")


def audit(
    db: Database, scope: str, fact_id: str, *, kind: str, actor: str, reason: str, now: datetime
) -> None:
    """An audit event on a fact that changes nothing else (mem0's feedback)."""

    def work(tx: Any) -> None:
        record_audit(
            tx, scope=scope, fact_id=fact_id, kind=kind, actor=actor, reason=reason, now=now
        )

    db.write_tx(work, "mem0_audit")


def _time(value: Any) -> datetime:
    moment = read_time(value)
    assert moment is not None
    return moment
