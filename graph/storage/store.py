"""The storage layer: turns domain values into parameters for `cypher/` files and back.

It holds no policy (that is the pipeline's) and no GraphQL (that is the resolvers'). Functions
that take a `ManagedTransaction` compose into one atomic write; the others run their own.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from neo4j import ManagedTransaction

from graph.errors import NotFound
from graph.reading import VERSION as READER_VERSION
from graph.reading import Reading
from graph.reading.standing import recognise
from graph.storage import vector_shards
from graph.storage.db import Database, run
from graph.storage.wire import Vector
from graph.write import chunks as chunk_nodes
from graph.write import passages
from graph.write.entities import ResolvedEntity
from graph.write.facts import Fact, FactInput, FactStatus
from graph.write.pipeline import Neighbour, predicate_key


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
    reading: Reading | None = None,
) -> dict[str, Any]:
    """The exact property map of a `(:Fact)` node, as operators see it in the Browser.

    `reading`: the text as graph/reading/ read it, when the caller links its terms; its
    standing verdict is the fact's."""
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
        "predicate_key": predicate_key(fact.predicate),
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
        # The consolidation queue (graph/consolidation/): every live fact written is queued.
        "consolidation_queued_at": now if live else None,
        # A standing instruction or preference, recognised from the text (and :Standing).
        "standing": _standing(fact, reading, embedding, embedder),
        # The version of the reader whose term links the fact has (graph/reading/): every
        # write path links them in the transaction that writes the fact.
        "read_v": READER_VERSION,
    }


def _standing(
    fact: FactInput, reading: Reading | None, vector: list[float] | None, embedder: str | None
) -> str | None:
    """The kind a fact's text states, read with the vector the write made of it: the reader's
    verdict came before the vector, so with one the recogniser's classifier reads it again (a
    vector that came with the fact is "supplied", of no known model: the patterns alone)."""
    if vector is None and reading is not None:
        kind = reading.standing
    else:
        kind = recognise(fact.text, fact.subject, vector=vector, embedder=embedder)
    return kind.value if kind is not None else None


def link_terms(tx: ManagedTransaction, rows: Sequence[dict[str, Any]], now: datetime) -> None:
    """Link facts to the terms their texts mention (rows: {id, terms}, graph/reading/ `terms`
    as `Term.row()` maps), replacing the links of an earlier reading."""
    if rows:
        run(tx, "reading_link", rows=list(rows), version=READER_VERSION, now=now)


def insert_fact(
    tx: ManagedTransaction,
    *,
    scope: str,
    props: dict[str, Any],
    entities: list[EntityRef],
    now: datetime,
    chunks: Sequence[chunk_nodes.Chunk] = (),
    terms: Sequence[dict[str, Any]] = (),
) -> tuple[Fact, bool]:
    """Create the fact with its entity and tag links, the chunks of its long text
    (graph/write/chunks.py) and the terms its text mentions (`terms`, graph/reading/), or
    return the live duplicate."""
    records = run(
        tx,
        "fact_insert",
        scope=scope,
        shard_label=vector_shards.label(scope),
        props=props,
        terms=list(terms),
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
    fact, created = Fact.from_node(record["fact"]), bool(record["created"])
    if created:
        chunk_nodes.write(tx, [chunk_nodes.row(fact.id, scope, chunks)])
        passages.refresh(tx, scope, [fact])
    return fact, created


def derive(tx: ManagedTransaction, scope: str, fact_id: str, sources: Sequence[str]) -> None:
    """Link a synthesised fact to its sources; NotFound (the transaction rolls back) when one
    of them is not a fact of the scope."""
    wanted = sorted(set(sources))
    records = run(tx, "fact_derive", scope=scope, id=fact_id, sources=wanted)
    linked = int(records[0]["linked"]) if records else 0
    if linked != len(wanted):
        raise NotFound(f"a source of the synthesised fact is not in scope {scope!r}")


def derived_from(db: Database, scope: str, fact_id: str) -> list[str]:
    """Ids of the facts `fact_id` was drawn from (empty for a fact written by an agent)."""
    return [r["id"] for r in db.read("fact_derived_from", {"scope": scope, "id": fact_id})]


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


def _facts(records: list[Any], key: str = "fact") -> list[Fact]:
    return [Fact.from_node(record[key]) for record in records]


def same_slot(tx: ManagedTransaction, scope: str, subject_key: str, predicate: str) -> list[Fact]:
    """Active facts with this subject and predicate: the candidates a new fact contradicts."""
    return _facts(
        run(
            tx,
            "fact_same_slot",
            scope=scope,
            subject_key=subject_key,
            predicate_key=predicate_key(predicate),
        )
    )


# Below this many candidate facts in a scope, neighbours are scored exactly (a scan of the
# scope); above it the vector index is asked for more and more until enough are in the scope.
EXACT_SCAN_LIMIT = 5_000
MAX_INDEX_FETCH = 10_000


@dataclass(frozen=True)
class WriteContext:
    """What the pipeline looks at before deciding (see cypher/fact_write_context.cypher)."""

    duplicate: Fact | None
    live: int  # at most EXACT_SCAN_LIMIT + 1: more only means "too many to scan"
    slot: list[Fact]


def write_context(
    tx: ManagedTransaction,
    *,
    scope: str,
    content_hash: str,
    subject_key: str | None,
    predicate_key: str | None,
    lock_slot: bool = False,
) -> WriteContext:
    """With `lock_slot`, the slot is locked first (`slot_lock_key`), in the same round trip."""
    lock_key = (
        slot_lock_key(subject_key, predicate_key)
        if lock_slot and subject_key is not None and predicate_key is not None
        else None
    )
    record = run(
        tx,
        "fact_write_context",
        scope=scope,
        hash=content_hash,
        subject_key=subject_key,
        predicate_key=predicate_key,
        lock_key=lock_key,
        live_cap=EXACT_SCAN_LIMIT + 1,
    )[0]
    duplicate = record["duplicate"]
    return WriteContext(
        duplicate=Fact.from_node(duplicate) if duplicate is not None else None,
        live=int(record["live"]),
        slot=[Fact.from_node(f) for f in record["slot"]],
    )


def neighbours(
    tx: ManagedTransaction,
    *,
    scope: str,
    vector: list[float],
    k: int,
    statuses: tuple[str, ...],
    exclude: tuple[str, ...] = (),
    total: int | None = None,
) -> list[Neighbour]:
    """Nearest facts of a scope by cosine, best first, with the true cosine in [-1, 1].

    Neo4j 5.26 vector queries cannot pre-filter, so a small scope in a big database would come
    back empty from a plain top-k: small candidate sets are scanned exactly, big ones fetched
    from the index with an adaptively growing k until k matches are in hand.
    """
    params = {
        "scope": scope,
        "vector": vector,
        "statuses": list(statuses),
        "exclude": list(exclude),
    }
    if total is None:
        total = int(run(tx, "fact_scope_count", cap=EXACT_SCAN_LIMIT + 1, **params)[0]["count"])
    if total == 0:
        return []
    if total <= EXACT_SCAN_LIMIT:
        records = run(tx, "fact_neighbours_exact", k=k, **params)
    else:
        fetch = max(4 * k, 100)
        while True:
            records = run(
                tx,
                "fact_neighbours_index",
                k=k,
                fetch=fetch,
                index=vector_shards.index(scope),
                **params,
            )
            if len(records) >= k or fetch >= MAX_INDEX_FETCH:
                break
            fetch = min(fetch * 4, MAX_INDEX_FETCH)
    return [
        Neighbour(Fact.from_node(record["fact"]), 2.0 * float(record["score"]) - 1.0)
        for record in records
    ]


def standing_near(
    tx: ManagedTransaction, *, scope: str, vector: list[float], now: datetime, limit: int = 20
) -> list[Neighbour]:
    """The scope's active standing statements by cosine to `vector`, best first, with the
    true cosine in [-1, 1]: what a revocation may withdraw (graph/write/pipeline.py)."""
    records = run(
        tx,
        "standing_near",
        ask={"scope": scope},
        vector=Vector(vector),
        relative=Vector(vector),
        now=now,
        floor=0.0,
        lift=0.0,
        limit=limit,
    )
    return [Neighbour(Fact.from_node(r["fact"]), 2.0 * float(r["score"]) - 1.0) for r in records]


def reinforce(tx: ManagedTransaction, scope: str, fact_id: str, now: datetime) -> Fact:
    return _facts(run(tx, "fact_reinforce", scope=scope, id=fact_id, now=now))[0]


def merge_into(
    tx: ManagedTransaction, *, scope: str, target: Fact, fact: FactInput, now: datetime
) -> Fact:
    """Fold a near duplicate into the fact that already holds it (tags, importance, metadata)."""
    metadata = {**fact.metadata, **target.metadata}
    return _facts(
        run(
            tx,
            "fact_merge",
            scope=scope,
            id=target.id,
            tags=[t for t in fact.tags if t not in target.tags],
            importance=max(target.importance, fact.importance),
            metadata=json.dumps(metadata, sort_keys=True) if metadata else None,
            now=now,
        )
    )[0]


def retire(
    tx: ManagedTransaction,
    *,
    scope: str,
    old_id: str,
    new_id: str,
    reason: str,
    valid_until: datetime,
    now: datetime,
) -> Fact | None:
    """Close the old fact on both time axes and chain the new one to it."""
    records = run(
        tx,
        "fact_supersede",
        scope=scope,
        old_id=old_id,
        new_id=new_id,
        reason=reason,
        valid_until=valid_until,
        now=now,
    )
    if not records:
        return None
    old = Fact.from_node(records[0]["fact"])
    passages.refresh(tx, scope, [old])
    return old


def set_status(
    tx: ManagedTransaction,
    *,
    scope: str,
    fact_id: str,
    allowed: tuple[FactStatus, ...],
    status: FactStatus,
    now: datetime,
) -> Fact | None:
    """Move a fact between statuses; None when it is missing or not in an allowed status."""
    records = run(
        tx,
        "fact_set_status",
        scope=scope,
        id=fact_id,
        allowed=[s.value for s in allowed],
        status=status.value,
        now=now,
    )
    if not records:
        return None
    fact = Fact.from_node(records[0]["fact"])
    passages.refresh(tx, scope, [fact])
    return fact


def purge(tx: ManagedTransaction, scope: str, fact_id: str) -> tuple[bool, Fact | None]:
    """Whether the fact was purged, and the fact as it was before."""
    fact = fact_in_tx(tx, scope, fact_id)
    records = run(tx, "fact_purge", scope=scope, id=fact_id)
    purged = bool(records and records[0]["purged"])
    if purged and fact is not None:
        passages.refresh(tx, scope, [fact])
    return purged, fact


def history(db: Database, scope: str, fact_id: str) -> list[Fact]:
    return _facts(db.read("fact_history", {"scope": scope, "id": fact_id}))


@dataclass(frozen=True)
class HeldFact:
    """A fact in the review queue with the reason and time it was quarantined (None when
    no quarantine event was recorded, e.g. a fact imported without its audit)."""

    fact: Fact
    reason: str | None
    held_at: datetime | None


def review_queue(
    db: Database, scope: str, *, limit: int, after: tuple[datetime, str] | None
) -> list[HeldFact]:
    records = db.read(
        "fact_review_queue",
        {
            "scope": scope,
            "limit": limit,
            "after_time": after[0] if after else None,
            "after_id": after[1] if after else None,
        },
    )
    return [
        HeldFact(
            fact=Fact.from_node(r["fact"]),
            reason=r["reason"],
            held_at=None if r["held_at"] is None else r["held_at"].to_native(),
        )
        for r in records
    ]


@dataclass(frozen=True)
class AuditEvent:
    id: str
    fact_id: str
    kind: str
    actor: str
    reason: str
    at: datetime


def audit_trail(db: Database, scope: str, fact_id: str) -> list[AuditEvent]:
    records = db.read("audit_trail", {"scope": scope, "fact_id": fact_id})
    return [
        AuditEvent(
            id=r["id"],
            fact_id=r["fact_id"],
            kind=r["kind"],
            actor=r["actor"],
            reason=r["reason"],
            at=r["at"].to_native(),
        )
        for r in records
    ]


def fact_in_tx(tx: ManagedTransaction, scope: str, fact_id: str) -> Fact | None:
    records = run(tx, "fact_get", scope=scope, id=fact_id)
    return Fact.from_node(records[0]["fact"]) if records else None


def locked_fact(tx: ManagedTransaction, scope: str, fact_id: str) -> Fact | None:
    """The fact as committed now, and held until `tx` ends (see cypher/fact_lock.cypher).

    For a decision taken on the fact's status (supersede, forget, validate): a concurrent
    writer on any replica waits, then decides on what this one committed.
    """
    records = run(tx, "fact_lock", scope=scope, id=fact_id)
    return Fact.from_node(records[0]["fact"]) if records else None


def slot_lock_key(subject_key: str, slot_predicate: str) -> str:
    """The lock of a subject / predicate slot (`slot_predicate` is the predicate key).

    Two writers of one single-valued slot would otherwise both read it before either
    committed and both go live (or both retire the same fact): the chain would fork. A digest,
    so any subject fits the lock constraint's index.
    """
    return hashlib.sha256(f"slot\x1f{subject_key}\x1f{slot_predicate}".encode()).hexdigest()


def lock_slot(tx: ManagedTransaction, scope: str, subject_key: str, slot_predicate: str) -> None:
    """Hold the slot until `tx` ends (see cypher/write_lock.cypher and `slot_lock_key`)."""
    run(tx, "write_lock", scope=scope, key=slot_lock_key(subject_key, slot_predicate))


def fact_vector(db: Database, scope: str, fact_id: str) -> Vector | None:
    records = db.read("fact_vector", {"scope": scope, "id": fact_id})
    if not records or records[0]["embedding"] is None:
        return None
    return Vector(float(x) for x in records[0]["embedding"])
