"""The JSON shapes mem0's clients and their callers parse, as typed records, and how a stored
fact becomes one.

Field names and meanings are mem0's (docs/openapi.json of mem0ai/mem0); `decision`,
`extraction` and `deleted` are factgraph's additions, which mem0's clients pass through.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, TypedDict

from graph.mem0.entities import EntityIds, categories_of
from graph.mem0.reading import Entity, HistoryEvent
from graph.write.facts import Decision, DecisionKind, Fact


class MemoryRecord(TypedDict):
    id: str
    memory: str
    hash: str
    user_id: str | None
    agent_id: str | None
    app_id: str | None
    run_id: str | None
    session_id: str | None  # mem0's list calls the run `session_id`, its search `run_id`
    metadata: dict[str, Any] | None
    categories: list[str] | None  # null without any (LlamaIndex prints "[a, b] : " before them)
    created_at: str
    updated_at: str
    expiration_date: str | None
    immutable: bool


class ScoredRecord(MemoryRecord):
    score: float


class AddedRecord(TypedDict):
    id: str
    memory: str
    event: str  # ADD, UPDATE or NONE
    data: dict[str, str]
    previous_memory: str | None
    decision: str  # factgraph's: insert, dedup, merge, supersede, quarantine


class AddResponse(TypedDict):
    results: list[AddedRecord]
    relations: list[Any]
    status: str
    message: str
    extraction: str  # queued, unavailable (no LLM or extraction off), skipped (infer false)


class Page(TypedDict):
    count: int
    next: str | None
    previous: str | None
    results: list[MemoryRecord]


class SearchResponse(TypedDict):
    results: list[ScoredRecord]


class HistoryRecord(TypedDict):
    id: str
    memory_id: str
    input: list[dict[str, str]]
    old_memory: str | None
    new_memory: str | None
    event: str
    user_id: str | None
    agent_id: str | None
    app_id: str | None
    run_id: str | None
    categories: list[str] | None
    metadata: dict[str, Any] | None
    created_at: str
    updated_at: str
    is_deleted: bool


class EntityRecord(TypedDict):
    id: str
    name: str
    type: str
    total_memories: int
    created_at: str
    updated_at: str
    owner: str
    metadata: None


class EntitiesResponse(TypedDict):
    count: int
    next: None
    previous: None
    results: list[EntityRecord]
    total_users: int
    total_agents: int
    total_apps: int
    total_runs: int


class Ping(TypedDict):
    status: str
    message: str
    org_id: str
    project_id: str
    user_email: str | None


class Message(TypedDict):
    message: str


class Deleted(TypedDict):
    message: str
    deleted: int


class FeedbackResponse(TypedDict):
    id: str
    feedback: str | None
    feedback_reason: str | None


# mem0's events for factgraph's decisions: a duplicate changes nothing visible, a merge or a
# supersede changes a memory, a quarantined write is held out of every read.
EVENTS = {
    DecisionKind.INSERT: "ADD",
    DecisionKind.DEDUP: "NONE",
    DecisionKind.MERGE: "UPDATE",
    DecisionKind.SUPERSEDE: "UPDATE",
    DecisionKind.QUARANTINE: "NONE",
}


def memory_record(fact: Fact, ids: EntityIds) -> MemoryRecord:
    return {
        "id": fact.id,
        "memory": fact.text,
        "hash": fact.content_hash,
        "user_id": ids.user,
        "agent_id": ids.agent,
        "app_id": ids.app,
        "run_id": ids.run,
        "session_id": ids.run,
        "metadata": fact.metadata or None,
        "categories": categories_of(fact.tags) or None,
        "created_at": fact.recorded_at.isoformat(),
        "updated_at": (fact.updated_at or fact.recorded_at).isoformat(),
        "expiration_date": expiration_date(fact.expires_at),
        "immutable": False,
    }


def scored_record(fact: Fact, ids: EntityIds, score: float) -> ScoredRecord:
    return {**memory_record(fact, ids), "score": score}


def added_record(decision: Decision) -> AddedRecord:
    fact, matched = decision.fact, decision.matched
    return {
        "id": fact.id,
        "memory": fact.text,
        "event": EVENTS[decision.kind],
        "data": {"memory": fact.text},
        "previous_memory": matched.text if matched is not None and matched.id != fact.id else None,
        "decision": decision.kind.value,
    }


def history_record(event: HistoryEvent, ids: EntityIds) -> HistoryRecord:
    fact, previous = event.fact, event.previous
    deleted = event.event == "DELETE"
    return {
        "id": f"{fact.id}:{event.event.lower()}",
        "memory_id": fact.id,
        "input": [],
        "old_memory": previous.text if previous is not None else None,
        "new_memory": None if deleted else fact.text,
        "event": event.event,
        "user_id": ids.user,
        "agent_id": ids.agent,
        "app_id": ids.app,
        "run_id": ids.run,
        "categories": categories_of(fact.tags) or None,
        "metadata": fact.metadata or None,
        "created_at": event.at.isoformat(),
        "updated_at": event.at.isoformat(),
        "is_deleted": deleted,
    }


def entity_record(entity: Entity, project: str) -> EntityRecord:
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
