"""`POST /api/v1/memories` and `GET /api/v1/memories/{id}/history`: writing and reading back.

The API we reproduce stores a memory with `POST /api/v1/memories` and a body of `content`,
`tags`, `importance_score` (its getting-started call), plus `partition_id`, `metadata`,
`source`, `expires_at`; factgraph also takes `subject`, `predicate`, `object`, `session_id`,
`turn`, `valid_from`, `valid_to`, so a write can contradict (supersede) an earlier one. The
write goes through the same pipeline as GraphQL `remember`; the answer (201) is the stored
memory record (as in search results) plus `decision` (insert, dedup, merge, supersede,
quarantine) and `matched_id` (the existing memory it acted on). History answers the supersede
chain, oldest first, each record with its `status`, `valid_from` and `valid_to`.
The scope is chosen as for search (`resolvers.http.context.rest_scope`). `POST
/api/v1/memories/batch` writes many at once (`{"memories": [body, ...]}` -> `{"results": [...]}`,
docs/batch-writes.md).
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, Required

from pydantic import Field, WithJsonSchema
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from typing_extensions import TypedDict

from graph.errors import FactgraphError, NotFound, ValidationError
from graph.write.batch import checked_size
from graph.write.facts import Decision, DecisionKind, Fact, FactStatus
from graph.write.turn_fields import MAX_TURN
from graph.write.validation import (
    IDENTIFIER_PATTERN,
    MAX_FIELD_CHARS,
    MAX_TAG_CHARS,
    MAX_TAGS,
    MAX_TEXT_CHARS,
)
from resolvers.http.context import authorize, memory_of, rest_scope
from resolvers.http.openapi import (
    BAD_INPUT,
    NOT_FOUND,
    SCOPE_PARAMS,
    ErrorBody,
    Identifier,
    Param,
    Prose,
    Reply,
    Timestamp,
    body_schema,
    described,
)
from resolvers.rest.search import (
    MemoryRecord,
    StandingRecord,
    error_response,
    memory_json,
    standing_json,
)

# A JSON object whose keys, as every identifier, hold no control character (at any depth; the
# document states it of the top level).
Metadata = Annotated[
    dict[str, Any],
    WithJsonSchema({"type": "object", "propertyNames": {"pattern": IDENTIFIER_PATTERN}}),
]
# A short field (subject, partition, session ...): no control character, as every identifier.
Text = Annotated[str, Field(min_length=1, max_length=MAX_FIELD_CHARS, pattern=IDENTIFIER_PATTERN)]


@body_schema
class MemoryWrite(TypedDict, total=False):
    """A memory to store. Only `content` is required; a field sent as null counts as absent."""

    content: Required[Annotated[Prose, Field(max_length=MAX_TEXT_CHARS)]]
    """The text (no NUL character)."""
    tags: (
        Annotated[
            list[Annotated[Identifier, Field(max_length=MAX_TAG_CHARS)]],
            Field(max_length=MAX_TAGS),
        ]
        | None
    )
    importance_score: Annotated[float, Field(ge=0, le=10)] | None
    """0 to 10 (default 5)."""
    partition_id: Text | None
    """A partition of the scope (default `default`)."""
    metadata: Metadata | None
    """Any JSON object (at most 16 kB); `session_id` and `turn` in it place the memory in a
    conversation when the top-level fields are absent."""
    source: Text | None
    """Where the memory came from; untrusted sources are quarantined for review."""
    expires_at: Timestamp | None
    """When it stops being returned."""
    subject: Text | None
    """With `predicate` (and `object`): the slot a later write of the same subject and a
    single-valued predicate supersedes."""
    predicate: Text | None
    object: Text | None
    session_id: Text | None
    """The conversation it belongs to."""
    turn: Annotated[int, Field(ge=0, le=MAX_TURN)] | None
    """Its position in that conversation."""
    valid_from: Timestamp | None
    """When it became true in the world (default: now)."""
    valid_to: Timestamp | None
    """When it stopped being true (later than `valid_from`)."""


@body_schema
class DecisionRecord(MemoryRecord):
    """The stored memory and what the write pipeline decided."""

    decision: DecisionKind
    """insert (new), dedup (the same memory was already there: it is returned), merge,
    supersede (it replaces the memory of the same slot), quarantine (kept for review)."""
    matched_id: str | None
    """The existing memory it acted on (dedup, merge, supersede)."""


@body_schema
class BatchWrite(TypedDict):
    """Memories to store in one transaction: all or none."""

    memories: list[MemoryWrite]
    """At most FACTGRAPH_BATCH_MAX (1,000 unless set)."""


@body_schema
class BatchDecisions(TypedDict):
    """One decision per memory, in input order."""

    results: list[DecisionRecord]


@body_schema
class HistoryRecord(MemoryRecord):
    """One version of a memory."""

    status: FactStatus
    """active, superseded, forgotten or quarantined."""
    valid_from: Timestamp
    """When it became true in the world."""
    valid_to: Timestamp | None
    """When it stopped being true (null: still true)."""


@body_schema
class HistoryResponse(TypedDict):
    """The supersede chain of a memory, oldest first."""

    history: list[HistoryRecord]


# Request field -> FactInput field.
FIELDS = {
    "content": "text",
    "tags": "tags",
    "importance_score": "importance",
    "partition_id": "partition",
    "metadata": "metadata",
    "source": "source",
    "expires_at": "expires_at",
    "subject": "subject",
    "predicate": "predicate",
    "object": "object",
    "session_id": "session_id",
    "turn": "turn",
    "valid_from": "valid_from",
    "valid_to": "valid_to",
}
_REST_NAMES = {domain: name for name, domain in FIELDS.items()}


def fact_mapping(body: Any) -> dict[str, Any]:
    """The FactInput fields of a request body; ValidationError names the field as sent."""
    if not isinstance(body, dict):
        raise ValidationError("body", "must be a JSON object")
    unknown = sorted(set(body) - set(FIELDS))
    if unknown:
        raise ValidationError(unknown[0], "unknown field")
    if not isinstance(body.get("content"), str):
        raise ValidationError("content", "is required and must be a string")
    if body.get("metadata") is not None and not isinstance(body["metadata"], dict):
        raise ValidationError("metadata", "must be a JSON object")
    for name in ("expires_at", "valid_from", "valid_to"):
        if body.get(name) == "":  # null is absent; an empty string is a mistake
            raise ValidationError(name, "must be an ISO-8601 date-time or null")
    return {FIELDS[name]: value for name, value in body.items() if value is not None}


def history_json(fact: Fact) -> HistoryRecord:
    return {
        **memory_json(fact),
        "status": fact.status,
        "valid_from": fact.valid_from.isoformat(),
        "valid_to": fact.valid_to.isoformat() if fact.valid_to else None,
    }


@described(
    "Store a memory",
    tag="Memories",
    body=MemoryWrite,
    params=SCOPE_PARAMS,
    replies={
        201: Reply("Stored (or found already there): the memory and the decision.", DecisionRecord),
        422: BAD_INPUT,
    },
    description="Runs the write pipeline of GraphQL `remember`: validation, dedup, "
    "contradiction (supersede), quarantine of untrusted sources. Needs the `writer` role.",
)
async def create(request: Request) -> Response:
    try:
        scope = rest_scope(request)
        authorize(request, scope, "writer")
        try:
            body = await request.json()
        except ValueError:
            raise ValidationError("body", "is not valid JSON") from None
        data = fact_mapping(body)
        try:
            decision = await run_in_threadpool(
                memory_of(request).remember_with_decision, scope, data, actor="rest"
            )
        except ValidationError as exc:
            field = _REST_NAMES.get(exc.field, exc.field)
            raise ValidationError(field, exc.reason) from None
    except FactgraphError as exc:
        return error_response(exc)
    return JSONResponse(decision_json(decision), status_code=201)


@described(
    "Store many memories at once",
    tag="Memories",
    body=BatchWrite,
    params=SCOPE_PARAMS,
    replies={
        201: Reply("One decision per memory, in input order.", BatchDecisions),
        422: Reply(
            "A bad memory refuses the batch: `error.field` names it (`memories[2].content`). "
            "Nothing was written.",
            ErrorBody,
        ),
    },
)
async def create_many(request: Request) -> Response:
    """`POST /api/v1/memories/batch`: `{"memories": [body, ...]}`, each body as for
    `POST /api/v1/memories`; 201 `{"results": [answer, ...]}`, one answer per memory in input
    order, each what the single POST answers. One bad memory refuses the batch (the error's
    field is `memories[i].name`) and nothing is written."""
    try:
        scope = rest_scope(request)
        authorize(request, scope, "writer")
        try:
            body = await request.json()
        except ValueError:
            raise ValidationError("body", "is not valid JSON") from None
        memory = memory_of(request)
        facts = batch_mappings(body, memory.settings.batch_max)
        try:
            decisions = await run_in_threadpool(memory.remember_many, scope, facts, actor="rest")
        except ValidationError as exc:
            raise ValidationError(_rest_field(exc.field), exc.reason) from None
    except FactgraphError as exc:
        return error_response(exc)
    answer: BatchDecisions = {"results": [decision_json(d) for d in decisions]}
    return JSONResponse(answer, status_code=201)


def batch_mappings(body: Any, limit: int) -> list[dict[str, Any]]:
    """The FactInput fields of each memory of a batch body, a bad one named by its index."""
    if not isinstance(body, dict):
        raise ValidationError("body", "must be a JSON object")
    unknown = sorted(set(body) - {"memories"})
    if unknown:
        raise ValidationError(unknown[0], "unknown field")
    memories = body.get("memories")
    if not isinstance(memories, list):
        raise ValidationError("memories", "is required and must be a list of memories")
    checked_size(len(memories), limit, "memories")
    facts: list[dict[str, Any]] = []
    for i, item in enumerate(memories):
        try:
            facts.append(fact_mapping(item))
        except ValidationError as exc:
            field = f"memories[{i}]" if exc.field == "body" else f"memories[{i}].{exc.field}"
            reason = "must be a JSON object" if exc.field == "body" else exc.reason
            raise ValidationError(field, reason) from None
    return facts


def _rest_field(field: str) -> str:
    """`facts[3].text` (the domain's name) -> `memories[3].content` (the request's)."""
    match = re.fullmatch(r"facts\[(\d+)\](?:\.([^.]+)(.*))?", field)
    if match is None:
        return _REST_NAMES.get(field, field)
    index, name, rest = match.groups()
    if name is None:
        return f"memories[{index}]"
    return f"memories[{index}].{_REST_NAMES.get(name, name)}{rest}"


def decision_json(decision: Decision) -> DecisionRecord:
    """What `POST /api/v1/memories` answers: the memory record plus the decision."""
    return {
        **memory_json(decision.fact),
        "decision": decision.kind,
        "matched_id": decision.matched.id if decision.matched else None,
    }


@described(
    "The history of a memory",
    tag="Memories",
    params=SCOPE_PARAMS,
    replies={
        200: Reply("Every version, oldest first.", HistoryResponse),
        404: NOT_FOUND,
        422: BAD_INPUT,
    },
    description="The supersede chain the memory belongs to, oldest first, each version with "
    "its status and validity. Needs the `reader` role.",
)
async def history(request: Request) -> Response:
    try:
        scope = rest_scope(request)
        authorize(request, scope, "reader")
        fact_id = request.path_params["memory_id"]
        chain = await run_in_threadpool(memory_of(request).history, scope, fact_id)
    except ValidationError as exc:  # the fact's id is this route's `memory_id`
        field = "memory_id" if exc.field == "id" else exc.field
        return error_response(ValidationError(field, exc.reason))
    except FactgraphError as exc:
        return error_response(exc)
    if not chain:
        return error_response(NotFound("no memory with this id in this scope"))
    answer: HistoryResponse = {"history": [history_json(fact) for fact in chain]}
    return JSONResponse(answer)


@body_schema
class StandingResponse(TypedDict):
    """The scope's standing instructions and preferences, newest first."""

    standing: list[StandingRecord]


@described(
    "Standing instructions and preferences",
    tag="Memories",
    params=(
        *SCOPE_PARAMS,
        Param(
            "kind",
            "query",
            "`instruction` or `preference` alone (default: both).",
            schema=Literal["instruction", "preference"],
        ),
    ),
    replies={200: Reply("Newest first.", StandingResponse), 422: BAD_INPUT},
    description="The scope's active memories that give a standing instruction (\"always "
    'include type hints") or preference ("I prefer PostgreSQL"), recognised when they were '
    "written, newest first; a later memory that revokes one supersedes it. What an agent may "
    "put in every prompt. Needs the `reader` role.",
)
async def standing(request: Request) -> Response:
    try:
        scope = rest_scope(request)
        authorize(request, scope, "reader")
        kind = request.query_params.get("kind")
        found = await run_in_threadpool(memory_of(request).standing, scope, kind=kind)
    except FactgraphError as exc:
        return error_response(exc)
    answer: StandingResponse = {"standing": [standing_json(fact) for fact in found]}
    return JSONResponse(answer)


routes = [
    Route("/api/v1/standing", standing, methods=["GET"]),
    Route("/api/v1/memories", create, methods=["POST"]),
    Route("/api/v1/memories/batch", create_many, methods=["POST"]),
    Route("/api/v1/memories/{memory_id}/history", history, methods=["GET"]),
]
