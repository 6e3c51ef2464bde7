"""The JSON shapes mem0's clients and their callers parse, as typed records, and how a stored
fact becomes one.

Field names and meanings are mem0's (docs/openapi.json of mem0ai/mem0); `decision`,
`extraction` and `deleted` are factgraph's additions, which mem0's clients pass through.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Literal

from typing_extensions import TypedDict

from graph.adapters.mem0.entities import EntityIds, categories_of, role_of
from graph.adapters.mem0.held import Held
from graph.adapters.mem0.reading import Entity, HistoryEvent
from graph.adapters.mem0.store import Event
from graph.adapters.mem0.writing import Stored
from graph.write.facts import DecisionKind
from resolvers.http.openapi import ErrorDetail, Timestamp, body_schema

AddEvent = Literal["ADD", "UPDATE", "NONE"]
EventStatus = Literal["PENDING", "RUNNING", "SUCCEEDED", "FAILED"]
Extraction = Literal["queued", "unavailable", "skipped"]


@body_schema
class Mem0Memory(TypedDict):
    """A memory as mem0 shows it (factgraph's fact: its current version)."""

    id: str
    """The memory's id: its first version's, the same across updates (every version's id
    addresses the memory)."""
    memory: str
    """Its text."""
    hash: str
    """A digest of its text."""
    user_id: str | None
    agent_id: str | None
    app_id: str | None
    run_id: str | None
    session_id: str | None
    """The run again: mem0's list calls it `session_id`, its search `run_id`."""
    metadata: dict[str, Any] | None
    categories: list[str] | None
    """Its tags other than ids; null without any (LlamaIndex prints them before the text)."""
    created_at: Timestamp
    """When its first version was recorded (the same across updates)."""
    updated_at: Timestamp
    """When it last changed."""
    timestamp: Timestamp
    """When it holds from (mem0's `timestamp`: the add's or the update's)."""
    expiration_date: str | None
    """The last day it is shown (YYYY-MM-DD, UTC)."""
    immutable: bool


@body_schema
class Mem0ScoredMemory(Mem0Memory):
    """A search hit: a memory and its relevance."""

    score: float
    """factgraph's relevance, 0..1 (docs/search.md): what `threshold` compares."""


@body_schema
class Mem0Added(TypedDict):
    """What became of one message of an add."""

    id: str
    """The memory that holds the message (an existing one for a duplicate)."""
    memory: str
    event: AddEvent
    """ADD: a new memory; UPDATE: merged into or superseding one, or a duplicate that gained
    ids (another agent_id); NONE: a duplicate, or held for review."""
    data: dict[str, str]
    """`{"memory": text}`, as mem0 answers it."""
    previous_memory: str | None
    """The text of the memory it merged into or superseded."""
    decision: DecisionKind
    """factgraph's write decision."""


@body_schema
class Mem0AddResponse(TypedDict):
    """An add's answer (factgraph's `extraction` beside mem0's fields)."""

    event_id: str
    """The add's event: `GET /v1/event/{event_id}/` answers it (already done)."""
    status: EventStatus
    """SUCCEEDED: an add is done when it answers."""
    results: list[Mem0Added]
    """One per stored message, in order (system and tool messages are not stored)."""
    relations: list[Any]
    """Always empty (mem0's graph memory)."""
    message: str
    """What was stored and whether extraction follows, in words."""
    extraction: Extraction
    """queued: the consolidator extracts memories from the messages; unavailable: no LLM
    configured (or extraction off), kept as given; skipped: `infer` was false."""


@body_schema
class Mem0Event(TypedDict):
    """An add's event, as mem0's event polling answers it."""

    id: str
    event_type: Literal["ADD"]
    status: EventStatus
    """SUCCEEDED: an add is done when it answers."""
    payload: dict[str, Any]
    """The add's request body."""
    metadata: None
    results: list[Mem0Added]
    """What the add did, as it answered."""
    created_at: Timestamp
    updated_at: Timestamp
    started_at: Timestamp
    completed_at: Timestamp
    latency: float
    """Milliseconds from start to completion."""
    graph_status: None
    error: None


@body_schema
class Mem0Page(TypedDict):
    """One page of memories, newest first."""

    count: int
    """How many memories match in all."""
    next: str | None
    """The URL of the next page (null: the last)."""
    previous: str | None
    """The URL of the previous page (null: the first)."""
    results: list[Mem0Memory]


@body_schema
class Mem0SearchResponse(TypedDict):
    """The hits, in factgraph's ranking."""

    results: list[Mem0ScoredMemory]


@body_schema
class Mem0HistoryEvent(TypedDict):
    """One change of a memory."""

    id: str
    """The entry's id (a UUID, the same at every read)."""
    memory_id: str
    """The memory's id, the one `add` answered, whichever version the event made."""
    version_id: str
    """The version (factgraph's fact) this event made or deleted."""
    input: list[dict[str, str]]
    """The message that made the version (ADD, UPDATE), with its role; empty for DELETE."""
    old_memory: str | None
    """The text before (null for ADD)."""
    new_memory: str | None
    """The text after (null for DELETE)."""
    event: str
    """ADD (the first version), UPDATE (each new text) or DELETE (forgotten)."""
    user_id: str | None
    agent_id: str | None
    app_id: str | None
    run_id: str | None
    session_id: str | None
    """The run again, as mem0's history names it."""
    categories: list[str] | None
    metadata: dict[str, Any] | None
    created_at: Timestamp
    updated_at: Timestamp
    is_deleted: bool


@body_schema
class Mem0Entity(TypedDict):
    """A user, agent, app or run holding live memories."""

    id: str
    """`<type>:<name>`."""
    name: str
    """The id as sent (`alice`)."""
    type: str
    """user, agent, app or run."""
    total_memories: int
    """How many live memories carry the id."""
    created_at: Timestamp
    """When the first of them was recorded."""
    updated_at: Timestamp
    """When the last of them changed."""
    owner: str
    """The project."""
    metadata: None


@body_schema
class Mem0Entities(TypedDict):
    """Every user, agent, app and run with live memories the key may read (one page)."""

    count: int
    next: None
    previous: None
    results: list[Mem0Entity]
    total_users: int
    total_agents: int
    total_apps: int
    total_runs: int


@body_schema
class Mem0Ping(TypedDict):
    """The key checked: the project it works on."""

    status: Literal["ok"]
    message: str
    org_id: str
    """Always `factgraph`."""
    project_id: str
    """The project the calls work on (docs/mem0.md, Keys and projects)."""
    user_email: str | None
    """The key's label when it is an e-mail address."""


@body_schema
class Mem0Message(TypedDict):
    """Done, in words."""

    message: str


@body_schema
class Mem0Deleted(TypedDict):
    """Done, in words, and how many memories were live and are now forgotten."""

    message: str
    deleted: int


@body_schema
class Mem0Feedback(TypedDict):
    """The feedback kept (an audit event on the memory)."""

    id: str
    """The memory's current version."""
    feedback: str | None
    """POSITIVE, NEGATIVE, VERY_NEGATIVE or null."""
    feedback_reason: str | None


@body_schema
class Mem0ErrorBody(TypedDict):
    """Every error answer of mem0's routes: mem0's clients raise with `detail`."""

    detail: str
    """The message, as mem0 answers it."""
    error: ErrorDetail


# mem0's events for factgraph's decisions: a duplicate changes nothing visible, a merge or a
# supersede changes a memory, a quarantined write is held out of every read.
EVENTS: dict[DecisionKind, AddEvent] = {
    DecisionKind.INSERT: "ADD",
    DecisionKind.DEDUP: "NONE",
    DecisionKind.MERGE: "UPDATE",
    DecisionKind.SUPERSEDE: "UPDATE",
    DecisionKind.QUARANTINE: "NONE",
}


def memory_record(held: Held, ids: EntityIds) -> Mem0Memory:
    fact = held.fact
    return {
        "id": held.id,
        "memory": fact.text,
        "hash": fact.content_hash,
        "user_id": ids.user,
        "agent_id": ids.agent,
        "app_id": ids.app,
        "run_id": ids.run,
        "session_id": ids.run,
        "metadata": fact.metadata or None,
        "categories": categories_of(fact.tags) or None,
        "created_at": held.created_at.isoformat(),
        "updated_at": (fact.updated_at or fact.recorded_at).isoformat(),
        "timestamp": fact.valid_from.isoformat(),
        "expiration_date": expiration_date(fact.expires_at),
        "immutable": False,
    }


def scored_record(held: Held, ids: EntityIds, score: float) -> Mem0ScoredMemory:
    return {**memory_record(held, ids), "score": score}


def added_record(stored: Stored) -> Mem0Added:
    decision = stored.decision
    fact, matched = decision.fact, decision.matched
    return {
        "id": stored.held.id,
        "memory": fact.text,
        "event": "UPDATE" if stored.gained else EVENTS[decision.kind],
        "data": {"memory": fact.text},
        "previous_memory": matched.text if matched is not None and matched.id != fact.id else None,
        "decision": decision.kind,
    }


def history_record(event: HistoryEvent, ids: EntityIds) -> Mem0HistoryEvent:
    fact, previous = event.fact, event.previous
    deleted = event.event == "DELETE"
    said = [] if deleted else [{"role": role_of(fact.tags), "content": fact.text}]
    return {
        "id": event.id,
        "memory_id": event.memory_id,
        "version_id": fact.id,
        "input": said,
        "old_memory": previous.text if previous is not None else None,
        "new_memory": None if deleted else fact.text,
        "event": event.event,
        "user_id": ids.user,
        "agent_id": ids.agent,
        "app_id": ids.app,
        "run_id": ids.run,
        "session_id": ids.run,
        "categories": categories_of(fact.tags) or None,
        "metadata": fact.metadata or None,
        "created_at": event.at.isoformat(),
        "updated_at": event.at.isoformat(),
        "is_deleted": deleted,
    }


def event_record(event: Event) -> Mem0Event:
    latency = (event.completed_at - event.created_at).total_seconds() * 1000
    return {
        "id": event.id,
        "event_type": "ADD",
        "status": "SUCCEEDED" if event.status == "SUCCEEDED" else "FAILED",
        "payload": event.payload,
        "metadata": None,
        "results": event.results,
        "created_at": event.created_at.isoformat(),
        "updated_at": event.completed_at.isoformat(),
        "started_at": event.created_at.isoformat(),
        "completed_at": event.completed_at.isoformat(),
        "latency": round(latency, 3),
        "graph_status": None,
        "error": None,
    }


def entity_record(entity: Entity, project: str) -> Mem0Entity:
    return {
        "id": f"{entity.kind}:{entity.name}",
        "name": entity.name,
        "type": entity.kind,
        "total_memories": entity.memories,
        "created_at": entity.created_at.isoformat(),
        "updated_at": entity.updated_at.isoformat(),
        "owner": project,
        "metadata": None,
    }


def expiration_date(expires_at: datetime | None) -> str | None:
    """mem0's YYYY-MM-DD: the last day a memory is shown (an expiration date is stored as the
    midnight that ends it, resolvers/mem0/requests.py)."""
    if expires_at is None:
        return None
    return (expires_at - timedelta(microseconds=1)).date().isoformat()
