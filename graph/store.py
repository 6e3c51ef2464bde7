"""The storage layer: turns domain values into parameters for `cypher/` files and back.

It holds no policy (that is the pipeline's) and no GraphQL (that is the resolvers'). Functions
that take a `ManagedTransaction` compose into one atomic write; the others run their own.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from neo4j import ManagedTransaction

from graph.db import Database, run
from graph.entities import ResolvedEntity
from graph.facts import Fact, FactInput, FactStatus


@dataclass(frozen=True)
class EntityRef:
    role: str
    entity: ResolvedEntity


def new_id() -> str:
    return str(uuid.uuid4())


def fact_properties(
    fact: FactInput,
    *,
    fact_id: str,
    scope: str,
    content_hash: str,
    index_text: str,
    lexical_text: str,
    subject_key: str | None,
    embedding: list[float] | None,
    embedder: str | None,
    status: FactStatus,
    now: datetime,
) -> dict[str, Any]:
    """The exact property map of a `(:Fact)` node, as operators see it in the Browser."""
    live = status in (FactStatus.ACTIVE, FactStatus.QUARANTINED)
    return {
        "id": fact_id,
        "scope": scope,
        "partition": fact.partition,
        "text": fact.text,
        "index_text": index_text,
        "lexical_text": lexical_text,
        "subject": fact.subject,
        "subject_key": subject_key,
        "predicate": fact.predicate,
        "object": fact.object,
        "tags": list(fact.tags),
        "importance": fact.importance,
        "source": fact.source,
        "metadata": json.dumps(fact.metadata, sort_keys=True) if fact.metadata else None,
        "session_id": fact.session_id,
        "turn": fact.turn,
        "content_hash": content_hash,
        "live_hash": content_hash if live else None,
        "embedding": embedding,
        "embedder": embedder if embedding is not None else None,
        "status": status.value,
        "strength": 1.0,
        "access_count": 0,
        "last_accessed_at": None,
        "expires_at": fact.expires_at,
        "valid_from": fact.valid_from or now,
        "valid_to": fact.valid_to,
        "recorded_at": fact.recorded_at or now,
        "expired_at": None,
        "updated_at": now,
    }


def insert_fact(
    tx: ManagedTransaction,
    *,
    scope: str,
    props: dict[str, Any],
    entities: list[EntityRef],
    now: datetime,
) -> tuple[Fact, bool]:
    """Create the fact with its entity and tag links, or return the live duplicate."""
    records = run(
        tx,
        "fact_insert",
        scope=scope,
        props=props,
        entities=[
            {
                "role": ref.role,
                "canonical": ref.entity.canonical,
                "name": ref.entity.name,
                "type": ref.entity.type,
            }
            for ref in entities
        ],
        now=now,
    )
    record = records[0]
    return Fact.from_node(record["fact"]), bool(record["created"])


def record_audit(
    tx: ManagedTransaction,
    *,
    scope: str,
    fact_id: str,
    kind: str,
    actor: str,
    reason: str,
    now: datetime,
) -> None:
    run(
        tx,
        "audit_record",
        id=new_id(),
        scope=scope,
        kind=kind,
        actor=actor,
        reason=reason,
        now=now,
        fact_id=fact_id,
    )


def get_fact(db: Database, scope: str, fact_id: str) -> Fact | None:
    records = db.read("fact_get", {"scope": scope, "id": fact_id})
    return Fact.from_node(records[0]["fact"]) if records else None
