"""`POST /api/v1/search`: the REST search API our users already call, field for field.

Request (JSON object; nothing else is accepted): query (required), top_k (1-100, default 10),
partition_ids, tags, weight_relevance, weight_importance, weight_recency (default 1 each),
prev_turns, next_turns (0-20, default 0), threshold (0-1, default 0: results whose
relevance_score is below it are left out, as mem0 calls it). The scope comes from the
`X-Scope` header (or the `scope` query parameter), else the key's only scope, else FACTGRAPH_DEFAULT_SCOPE
(`resolvers.context.rest_scope`): the documented calls send none. Response: `{results:
[{memory, score, recency_score, importance_score_normalized, relevance_score}], related:
[memory]}`. A bad request gets 422
with `{"error": {"code", "field", "reason", "message"}}` naming the field as it was sent.
Like GraphQL resolvers, this holds no ranking: it converts and calls `Memory.search`.
"""

from __future__ import annotations

import logging
import math
from datetime import datetime
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from graph.errors import FactgraphError, ValidationError
from graph.search import SearchOptions, SearchResult
from graph.search.options import MAX_TOP_K, MAX_TURNS
from graph.write.facts import Fact
from resolvers.context import authorize, memory_of, rest_scope

log = logging.getLogger("factgraph.rest")

FIELDS = frozenset(
    {
        "query",
        "top_k",
        "partition_ids",
        "tags",
        "weight_relevance",
        "weight_importance",
        "weight_recency",
        "prev_turns",
        "next_turns",
        "threshold",
    }
)
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


def memory_json(fact: Fact) -> dict[str, Any]:
    return {
        "id": fact.id,
        "partition_id": fact.partition,
        "content": fact.text,
        "importance_score": fact.importance,
        "tags": list(fact.tags),
        "metadata": fact.metadata,
        "source": fact.source,
        "created_at": _iso(fact.recorded_at),
        "updated_at": _iso(fact.updated_at),
        "last_accessed_at": _iso(fact.last_accessed_at),
        "access_count": fact.access_count,
        "expires_at": _iso(fact.expires_at),
    }


def response_json(result: SearchResult) -> dict[str, Any]:
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
    next_turns = _integer(body, "next_turns", 0, 0, MAX_TURNS)
    weights = {
        name: _weight(body, f"weight_{name}") for name in ("relevance", "importance", "recency")
    }
    if sum(weights.values()) <= 0:
        raise ValidationError("weight_relevance", "at least one weight must be positive")
    partitions = _strings(body, "partition_ids")
    tags = _strings(body, "tags")
    try:
        options = SearchOptions.build(
            top_k=top_k,
            partitions=partitions or None,
            tags=tags,
            weights=weights,
            prev_turns=prev_turns,
            next_turns=next_turns,
            min_score=body.get("threshold"),
        )
    except ValidationError as exc:
        raise ValidationError(_REST_NAMES.get(exc.field, exc.field), exc.reason) from None
    return query, options


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
    status = _STATUS.get(exc.code, 400)
    error: dict[str, Any] = {"code": exc.code, "message": str(exc)}
    if isinstance(exc, ValidationError):
        error.update(field=exc.field, reason=exc.reason)
    return JSONResponse({"error": error}, status_code=status)


routes = [Route("/api/v1/search", search, methods=["POST"])]


def _integer(body: dict[str, Any], name: str, default: int, low: int, high: int) -> int:
    value = body.get(name)
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
