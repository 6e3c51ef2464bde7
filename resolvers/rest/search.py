"""`POST /api/v1/search`: the REST search API our users already call, field for field.

The request and its answer are the TypedDicts below (`SearchRequest`, `SearchResponse`), which
/openapi.json publishes (resolvers/http/openapi.py); no field outside `SearchRequest` is accepted.
The scope comes from the `X-Scope` header (or the `scope` query parameter), else the key's only
scope, else FACTGRAPH_DEFAULT_SCOPE (`resolvers.http.context.rest_scope`): the documented calls send
none. A bad request gets 422 with `{"error": {"code", "field", "reason", "message"}}` naming
the field as it was sent. Like GraphQL resolvers, this holds no ranking: it converts and calls
`Memory.search`.
"""

from __future__ import annotations

import logging
import math
from datetime import datetime
from typing import Annotated, Any, Literal, Required

from pydantic import Field
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from typing_extensions import TypedDict

from graph.errors import FactgraphError, ValidationError
from graph.search import SearchOptions, SearchResult
from graph.search.options import MAX_QUERY_CHARS, MAX_STANDING, MAX_TOP_K, MAX_TURNS
from graph.write.facts import Fact
from graph.write.validation import whole
from resolvers.http.context import authorize, memory_of, rest_scope
from resolvers.http.observe import note_error
from resolvers.http.openapi import (
    BAD_INPUT,
    SCOPE_PARAMS,
    ErrorBody,
    ErrorDetail,
    Identifier,
    NoNul,
    Reply,
    Timestamp,
    body_schema,
    described,
    ruled_body_schema,
)

log = logging.getLogger("factgraph.rest")

Weight = Annotated[float, Field(ge=0, le=1000, json_schema_extra={"default": 1})]
Turns = Annotated[int, Field(ge=0, le=MAX_TURNS, json_schema_extra={"default": 0})]


# Weights left out (or null) count as 1; all three 0 leave nothing to rank by.
_SOME_WEIGHT = {
    "not": {
        "required": ["weight_relevance", "weight_importance", "weight_recency"],
        "properties": {
            name: {"const": 0}
            for name in ("weight_relevance", "weight_importance", "weight_recency")
        },
    }
}


@ruled_body_schema(_SOME_WEIGHT)
class SearchRequest(TypedDict, total=False):
    """A search: what to look for, where, and how to rank. No other field is accepted; a
    field sent as null counts as absent."""

    query: Required[Annotated[NoNul, Field(max_length=MAX_QUERY_CHARS)]]
    """What to look for: words, a question."""
    top_k: Annotated[int, Field(ge=1, le=MAX_TOP_K, json_schema_extra={"default": 10})] | None
    """How many results at most."""
    partition_ids: list[Identifier] | None
    """Only memories of these partitions (default: all)."""
    tags: list[Identifier] | None
    """Only memories carrying one of these tags."""
    weight_relevance: Weight | None
    """The weight of relevance (full-text and meaning) in the score; at least one weight > 0."""
    weight_importance: Weight | None
    """The weight of the memory's importance in the score."""
    weight_recency: Weight | None
    """The weight of recency in the score."""
    prev_turns: Turns | None
    """Also return this many turns before each hit's turn of its session, as `related`."""
    next_turns: Turns | None
    """Also return this many turns after each hit's turn, as `related`."""
    threshold: Annotated[float, Field(ge=0, le=1, json_schema_extra={"default": 0})] | None
    """Leave out results whose relevance_score (0..1) is below this, as mem0 calls it."""
    standing_limit: (
        Annotated[int, Field(ge=0, le=MAX_STANDING, json_schema_extra={"default": 5})] | None
    )
    """At most this many standing instructions and preferences in `standing` (0: none)."""
    thread: Annotated[bool, Field(json_schema_extra={"default": False})] | None
    """Return the thread of the query's topic: the top_k memories that bear on it most, from
    a deeper pool, in the order they were said, for questions whose answer is spread over a
    conversation (what happened in what order, how a plan evolved)."""


FIELDS = SearchRequest.__required_keys__ | SearchRequest.__optional_keys__


@body_schema
class MemoryRecord(TypedDict):
    """A stored memory (a fact), as search results and writes show it."""

    id: str
    """Its id, for its history."""
    partition_id: str
    """Its partition (`default` unless one was given)."""
    content: str
    """Its text."""
    importance_score: float
    """0 to 10."""
    tags: list[str]
    metadata: dict[str, Any]
    """The JSON object it was written with."""
    source: str | None
    """Where it came from, as the writer said."""
    created_at: Timestamp
    """When it was recorded."""
    updated_at: Timestamp | None
    """When it last changed (written, merged with a near duplicate, a change of status)."""
    last_accessed_at: Timestamp | None
    """When a search last returned it (null: never)."""
    access_count: int
    """How many times searches returned it."""
    expires_at: Timestamp | None
    """When it stops being returned (null: never)."""


@body_schema
class SearchHit(TypedDict):
    """One result: the memory and the parts of its score."""

    memory: MemoryRecord
    score: float
    """The weighted score the results are ordered by."""
    recency_score: float
    importance_score_normalized: float
    relevance_score: float
    """0..1: the relevance model's chance that the memory answers the query, from the memory
    and the query alone (docs/search.md); what `threshold` compares."""


@body_schema
class StandingRecord(TypedDict):
    """A standing instruction or preference: a memory that holds for later answers until a
    later memory revokes it."""

    memory: MemoryRecord
    kind: Literal["instruction", "preference"]
    similarity: float | None
    """In a search: its similarity to the query, (1 + cosine) / 2; in a listing: null."""


@body_schema
class SearchResponse(TypedDict):
    """The results, best first, the conversation turns around them, and the standing
    instructions and preferences that bear on the query."""

    results: list[SearchHit]
    related: list[MemoryRecord]
    """With `prev_turns` / `next_turns`: the neighbouring turns of the hits' sessions."""
    standing: list[StandingRecord]
    """The scope's standing instructions and preferences closest to the query, whatever the
    results (a request that should honour one seldom shares its words): for the agent's
    prompt."""
    answerable: bool
    """Whether anything in the scope answers the query: false says "nothing here", whatever
    the results (`answerability` below the documented threshold; false with no results)."""
    answerability: float
    """0..1: the chance that the scope answers the query, from the search's candidates and
    results as a whole (docs/search.md "Nothing here")."""


# Domain option names (in validation errors) back to the request's field names.
_REST_NAMES = {
    "partitions": "partition_ids",
    "weights.relevance": "weight_relevance",
    "weights.importance": "weight_importance",
    "weights.recency": "weight_recency",
    "weights": "weight_relevance",
    "min_score": "threshold",
}
_STATUS = {
    "BAD_USER_INPUT": 422,
    "UNAUTHENTICATED": 401,
    "FORBIDDEN": 403,
    "NOT_FOUND": 404,
    "DATABASE_UNAVAILABLE": 503,
}


def memory_json(fact: Fact) -> MemoryRecord:
    return {
        "id": fact.id,
        "partition_id": fact.partition,
        "content": fact.text,
        "importance_score": fact.importance,
        "tags": list(fact.tags),
        "metadata": fact.metadata,
        "source": fact.source,
        "created_at": fact.recorded_at.isoformat(),
        "updated_at": _iso(fact.updated_at),
        "last_accessed_at": _iso(fact.last_accessed_at),
        "access_count": fact.access_count,
        "expires_at": _iso(fact.expires_at),
    }


def response_json(result: SearchResult) -> SearchResponse:
    return {
        "results": [
            {
                "memory": memory_json(hit.fact),
                "score": hit.score,
                "recency_score": hit.recency,
                "importance_score_normalized": hit.importance,
                "relevance_score": hit.relevance,
            }
            for hit in result.hits
        ],
        "related": [memory_json(r.fact) for r in result.related],
        "standing": [standing_json(s.fact, s.similarity) for s in result.standing],
        "answerable": result.answerable,
        "answerability": result.answerability,
    }


def standing_json(fact: Fact, similarity: float | None = None) -> StandingRecord:
    return {
        "memory": memory_json(fact),
        "kind": "instruction" if fact.standing == "instruction" else "preference",
        "similarity": similarity,
    }


def parse_request(body: Any) -> tuple[str, SearchOptions]:
    """The query and options of a request body; ValidationError names the offending field."""
    if not isinstance(body, dict):
        raise ValidationError("body", "must be a JSON object")
    unknown = sorted(set(body) - FIELDS)
    if unknown:
        raise ValidationError(unknown[0], "unknown field")
    if "query" not in body or body["query"] is None:
        raise ValidationError("query", "is required")
    query = body["query"]
    if not isinstance(query, str):
        raise ValidationError("query", "must be a string")
    top_k = _integer(body, "top_k", 10, 1, MAX_TOP_K)
    prev_turns = _integer(body, "prev_turns", 0, 0, MAX_TURNS)
    standing_limit = _integer(body, "standing_limit", 5, 0, MAX_STANDING)
    next_turns = _integer(body, "next_turns", 0, 0, MAX_TURNS)
    thread = body.get("thread")
    if thread is not None and not isinstance(thread, bool):
        raise ValidationError("thread", "must be true or false")
    weights = {
        name: _weight(body, f"weight_{name}") for name in ("relevance", "importance", "recency")
    }
    if sum(weights.values()) <= 0:
        raise ValidationError("weight_relevance", "at least one weight must be positive")
    partitions = _strings(body, "partition_ids")
    tags = _strings(body, "tags")
    try:
        # The contract's score is the weighted average of relevance_score, importance and
        # recency, and `threshold` compares relevance_score: one number for both, so the hits
        # are fused by relevance itself (MODEL), which depends on the memory and the query
        # alone (docs/search.md "Relevance you can threshold").
        options = SearchOptions.build(
            fusion={"method": "model"},
            top_k=top_k,
            partitions=partitions or None,
            tags=tags,
            weights=weights,
            prev_turns=prev_turns,
            next_turns=next_turns,
            min_score=body.get("threshold"),
            standing_limit=standing_limit,
            thread=bool(thread),
        )
    except ValidationError as exc:
        raise ValidationError(_REST_NAMES.get(exc.field, exc.field), exc.reason) from None
    return query, options


@described(
    "Search memories",
    tag="Search",
    body=SearchRequest,
    params=SCOPE_PARAMS,
    replies={
        200: Reply("The results, best first.", SearchResponse),
        422: BAD_INPUT,
    },
    description="Hybrid search (full text and meaning) over the scope's live memories, ranked "
    "by the weighted relevance, importance and recency. Needs the `reader` role.",
)
async def search(request: Request) -> Response:
    try:
        scope = rest_scope(request)
        authorize(request, scope, "reader")
        try:
            body = await request.json()
        except ValueError:
            raise ValidationError("body", "is not valid JSON") from None
        query, options = parse_request(body)
        result = await run_in_threadpool(memory_of(request).search, scope, query, options=options)
    except FactgraphError as exc:
        return error_response(exc)
    return JSONResponse(response_json(result))


def error_response(exc: FactgraphError) -> Response:
    """The REST error body; the code is noted for the request's access-log line (INFO)."""
    note_error(exc.code, str(exc))
    status = _STATUS.get(exc.code, 400)
    error: ErrorDetail = {"code": exc.code, "message": str(exc)}
    if isinstance(exc, ValidationError):
        error["field"] = exc.field
        error["reason"] = exc.reason
    body: ErrorBody = {"error": error}
    # A 503 is retryable, and says when (as the other interfaces do).
    headers = {"Retry-After": "5"} if status == 503 else None
    return JSONResponse(body, status_code=status, headers=headers)


routes = [Route("/api/v1/search", search, methods=["POST"])]


def _integer(body: dict[str, Any], name: str, default: int, low: int, high: int) -> int:
    value = whole(body.get(name))
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValidationError(name, "must be an integer")
    if not low <= value <= high:
        raise ValidationError(name, f"must be between {low} and {high}, got {value}")
    return value


def _weight(body: dict[str, Any], name: str) -> float:
    value = body.get(name)
    if value is None:
        return 1.0
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValidationError(name, "must be a number")
    if not math.isfinite(value) or value < 0 or value > 1000:
        raise ValidationError(name, f"must be between 0 and 1000, got {value}")
    return float(value)


def _strings(body: dict[str, Any], name: str) -> list[str]:
    value = body.get(name)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValidationError(name, "must be a list of non-empty strings")
    return value


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None
