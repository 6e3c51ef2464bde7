"""The bodies and answers of mem0's open-source server (mem0ai/mem0 `server/main.py`), as typed
records for /openapi.json, and how factgraph's memories become them.

Field names and meanings are mem0's: its server answers what mem0's `Memory` class returns, so
an id field is present only when the memory carries it, and `metadata` only when not empty.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired, Required

from pydantic import Field
from typing_extensions import TypedDict

from graph.adapters.mem0.entities import EntityIds, categories_of, role_of
from graph.adapters.mem0.held import Held
from graph.adapters.mem0.reading import MAX_SEARCH_TOP_K, Entity, HistoryEvent
from graph.adapters.mem0.writing import Stored
from graph.search.options import MAX_QUERY_CHARS
from resolvers.http.openapi import (
    Identifier,
    Prose,
    Timestamp,
    body_schema,
    one_of_fields,
    ruled_body_schema,
)
from resolvers.mem0.bodies import DayOrTime
from resolvers.mem0.shapes import EVENTS, expiration_date

# What mem0's server lists at most, and by default (its `Memory.get_all` and `search`).
MAX_OSS_LIST = 1_000
DEFAULT_OSS_TOP_K = 20
# mem0's `Memory.search` keeps hits scoring at least this unless told otherwise.
DEFAULT_OSS_THRESHOLD = 0.1


@body_schema
class OssMessage(TypedDict):
    """One message of an add."""

    role: Literal["user", "assistant", "system", "tool"]
    """Who said it: user and assistant messages are stored, system and tool messages not."""
    content: Prose
    """What was said: stored as a memory's text."""


@ruled_body_schema(one_of_fields("user_id", "agent_id", "run_id", null_is_absent=True))
class OssMemoryCreate(TypedDict, total=False):
    """An add: the messages and at least one of user_id, agent_id, run_id."""

    messages: Required[Annotated[list[OssMessage], Field(min_length=1)]]
    """The messages, each user or assistant message stored as a memory."""
    user_id: Identifier | None
    agent_id: Identifier | None
    run_id: Identifier | None
    metadata: dict[str, Any] | None
    """Kept with each memory."""
    expiration_date: DayOrTime | None
    """The last day the memories are shown (YYYY-MM-DD)."""
    infer: bool | None
    """true (the default): through factgraph's write pipeline and queued for the
    consolidator's extraction; false: stored as given."""
    memory_type: str | None
    """Ignored (mem0's procedural memories are not kept apart)."""
    prompt: str | None
    """Ignored (extraction follows the consolidator's configuration)."""


@ruled_body_schema(one_of_fields("text", "metadata", "expiration_date", null_is_absent=True))
class OssMemoryUpdate(TypedDict, total=False):
    """A change of a memory: a new text supersedes its current version (the memory keeps its
    id); metadata or expiration date alone change in place."""

    text: Prose | None
    """The new text."""
    metadata: dict[str, Any] | None
    """The new metadata."""
    expiration_date: DayOrTime | None
    """The new last day (YYYY-MM-DD); null clears it."""


@body_schema
class OssSearchRequest(TypedDict, total=False):
    """A search: the query, and a filter naming at least one of user_id, agent_id, run_id."""

    query: Required[Annotated[Prose, Field(max_length=MAX_QUERY_CHARS)]]
    """What to look for."""
    filters: dict[str, Any] | None
    """mem0's filter grammar: ids, `AND` / `OR` / `NOT`, operators (docs/mem0.md)."""
    user_id: Identifier | None
    """Deprecated by mem0: pass it in `filters`."""
    agent_id: Identifier | None
    """Deprecated by mem0: pass it in `filters`."""
    run_id: Identifier | None
    """Deprecated by mem0: pass it in `filters`."""
    top_k: Annotated[int, Field(ge=1, le=MAX_SEARCH_TOP_K)] | None
    """How many hits at most (20 unless given)."""
    threshold: Annotated[float, Field(ge=0, le=1)] | None
    """Leave out hits whose `score` (factgraph's relevance) is below this (0.1 unless given)."""
    explain: bool | None
    """Ignored."""
    show_expired: bool | None
    """Also find expired memories."""


@body_schema
class OssMemory(TypedDict):
    """A memory as mem0's server shows it."""

    id: str
    """Its id: its first version's, the same across updates."""
    memory: str
    hash: str
    created_at: Timestamp
    """When its first version was recorded."""
    updated_at: Timestamp
    user_id: NotRequired[str]
    agent_id: NotRequired[str]
    run_id: NotRequired[str]
    app_id: NotRequired[str]
    expiration_date: NotRequired[str]
    """The last day it is shown (YYYY-MM-DD)."""
    role: str
    """Who said it: `user` or `assistant`."""
    metadata: NotRequired[dict[str, Any]]
    """Its metadata and categories (`categories`), when it has any."""


@body_schema
class OssScoredMemory(OssMemory):
    """A search hit."""

    score: float
    """factgraph's relevance, 0..1 (docs/search.md)."""


@body_schema
class OssMemories(TypedDict):
    results: list[OssMemory]


@body_schema
class OssHits(TypedDict):
    results: list[OssScoredMemory]


@body_schema
class OssAdded(TypedDict):
    """What became of one stored message."""

    id: str
    memory: str
    event: Literal["ADD", "UPDATE", "NONE"]
    actor_id: None
    role: str | None


@body_schema
class OssAddResponse(TypedDict):
    results: list[OssAdded]
    """One per stored message (system and tool messages are not stored)."""


@body_schema
class OssHistoryEntry(TypedDict):
    """One change of a memory, as mem0's history store keeps it."""

    id: str
    memory_id: str
    """The memory's id, whichever version the change made."""
    old_memory: str | None
    new_memory: str | None
    event: Literal["ADD", "UPDATE", "DELETE"]
    created_at: Timestamp
    updated_at: Timestamp
    is_deleted: bool
    actor_id: None
    role: str | None
    """Who said the text (`user` or `assistant`); null for DELETE."""


@body_schema
class OssMessageResponse(TypedDict):
    message: str


@body_schema
class OssEntity(TypedDict):
    """A user, agent or run holding memories, as the server's `GET /entities` lists it."""

    id: str
    type: Literal["user", "agent", "run"]
    total_memories: int
    """Its live memories."""
    created_at: str
    """When the first of them was made."""
    updated_at: str
    """When the last of them changed."""


class OssError(TypedDict):
    """An error, as mem0's server (FastAPI) answers it, with factgraph's `error` beside."""

    detail: str
    error: dict[str, Any]


def oss_entity(entity: Entity) -> OssEntity:
    kind: Literal["user", "agent", "run"] = entity.kind  # type: ignore[assignment]
    return {
        "id": entity.name,
        "type": kind,
        "total_memories": entity.memories,
        "created_at": entity.created_at.isoformat(),
        "updated_at": entity.updated_at.isoformat(),
    }


def oss_memory(held: Held, ids: EntityIds) -> OssMemory:
    fact = held.fact
    out: OssMemory = {
        "id": held.id,
        "memory": fact.text,
        "hash": fact.content_hash,
        "created_at": held.created_at.isoformat(),
        "updated_at": (fact.updated_at or fact.recorded_at).isoformat(),
        "role": role_of(fact.tags),
    }
    for kind, value in ids.items():
        out[f"{kind}_id"] = value  # type: ignore[literal-required]
    day = expiration_date(fact.expires_at)
    if day is not None:
        out["expiration_date"] = day
    metadata = dict(fact.metadata)
    categories = categories_of(fact.tags)
    if categories:
        metadata["categories"] = categories
    if metadata:
        out["metadata"] = metadata
    return out


def oss_scored(held: Held, ids: EntityIds, score: float) -> OssScoredMemory:
    return {**oss_memory(held, ids), "score": score}


def oss_added(stored: Stored, role: str | None) -> OssAdded:
    event = "UPDATE" if stored.gained else EVENTS[stored.decision.kind]
    return {
        "id": stored.held.id,
        "memory": stored.decision.fact.text,
        "event": event,
        "actor_id": None,
        "role": role,
    }


def oss_history(event: HistoryEvent) -> OssHistoryEntry:
    deleted = event.event == "DELETE"
    return {
        "id": event.id,
        "memory_id": event.memory_id,
        "old_memory": event.previous.text if event.previous is not None else None,
        "new_memory": None if deleted else event.fact.text,
        "event": "DELETE" if deleted else ("ADD" if event.event == "ADD" else "UPDATE"),
        "created_at": event.at.isoformat(),
        "updated_at": event.at.isoformat(),
        "is_deleted": deleted,
        "actor_id": None,
        "role": None if deleted else role_of(event.fact.tags),
    }
