"""Every operation of the client, as a `Call`: REST where the REST API has it, else GraphQL.

REST covers writing (`POST /api/v1/memories`, `/batch`), search and history; reading one fact,
forget, the timeline, the review queue, validate, reject and supersede are GraphQL only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from factgraph_client._core import Call, graphql, quoted, rest
from factgraph_client.types import (
    FACT_FIELDS,
    Decision,
    Fact,
    FactPage,
    MemoryInput,
    SearchResult,
    Standing,
)

DECISION_FIELDS = f"kind reason fact {{ {FACT_FIELDS} }} matched {{ id }}"

MemoryLike = MemoryInput | Mapping[str, Any]


def rest_item(item: MemoryLike) -> dict[str, Any]:
    """A MemoryInput, or a dict already in the REST shape (`content`, `tags`, ...)."""
    return item.to_rest() if isinstance(item, MemoryInput) else dict(item)


def remember(item: MemoryInput) -> Call[Decision]:
    return rest("POST", "/api/v1/memories", item.to_rest(), Decision.from_rest)


def remember_graphql(scope: str, item: MemoryInput, *, pipeline: bool | None) -> Call[Decision]:
    """`remember` with the pipeline switch, which REST does not expose."""
    query = (
        "mutation($s: String!, $f: FactInput!, $p: Boolean) "
        f"{{ remember(scope: $s, fact: $f, pipeline: $p) {{ {DECISION_FIELDS} }} }}"
    )
    variables = {"s": scope, "f": item.to_graphql(), "p": pipeline}
    return graphql(query, variables, lambda data: Decision.from_graphql(data["remember"]))


def remember_many(items: Sequence[MemoryLike]) -> Call[list[Decision]]:
    body = {"memories": [rest_item(item) for item in items]}
    return rest(
        "POST",
        "/api/v1/memories/batch",
        body,
        lambda answer: [Decision.from_rest(r) for r in answer["results"]],
    )


def search(
    query: str,
    *,
    top_k: int,
    partitions: Sequence[str] | None,
    tags: Sequence[str] | None,
    weights: Mapping[str, float] | None,
    prev_turns: int,
    next_turns: int,
    min_score: float,
    standing_limit: int = 5,
    thread: bool = False,
) -> Call[SearchResult]:
    body: dict[str, Any] = {"query": query, "top_k": top_k}
    if standing_limit != 5:
        body["standing_limit"] = standing_limit
    if thread:
        body["thread"] = True
    if partitions:
        body["partition_ids"] = list(partitions)
    if tags:
        body["tags"] = list(tags)
    for name, value in (weights or {}).items():
        body[f"weight_{name}"] = value
    if prev_turns:
        body["prev_turns"] = prev_turns
    if next_turns:
        body["next_turns"] = next_turns
    if min_score:
        body["threshold"] = min_score  # REST's name for it, as mem0's
    return rest("POST", "/api/v1/search", body, SearchResult.from_rest)


def get(
    scope: str, fact_id: str, *, as_of: datetime | None, include_quarantined: bool
) -> Call[Fact | None]:
    query = (
        "query($s: String!, $id: ID!, $asOf: DateTime, $q: Boolean!) "
        f"{{ fact(scope: $s, id: $id, asOf: $asOf, includeQuarantined: $q) {{ {FACT_FIELDS} }} }}"
    )
    variables = {
        "s": scope,
        "id": fact_id,
        "asOf": as_of.isoformat() if as_of else None,
        "q": include_quarantined,
    }
    return graphql(query, variables, lambda data: _fact_or_none(data["fact"]))


def standing(kind: str | None) -> Call[list[Standing]]:
    path = "/api/v1/standing" + (f"?kind={quoted(kind)}" if kind else "")
    return rest("GET", path, None, lambda body: [Standing.from_rest(s) for s in body["standing"]])


def history(fact_id: str) -> Call[list[Fact]]:
    return rest(
        "GET",
        f"/api/v1/memories/{quoted(fact_id)}/history",
        None,
        lambda body: [Fact.from_rest(f) for f in body["history"]],
    )


def forget(scope: str, fact_id: str, reason: str) -> Call[Fact]:
    return _transition("forget", scope, fact_id, reason)


def reject(scope: str, fact_id: str, reason: str) -> Call[Fact]:
    return _transition("reject", scope, fact_id, reason)


def validate(scope: str, fact_id: str, reason: str) -> Call[Decision]:
    query = (
        "mutation($s: String!, $id: ID!, $r: String!) "
        f"{{ validate(scope: $s, id: $id, reason: $r) {{ {DECISION_FIELDS} }} }}"
    )
    variables = {"s": scope, "id": fact_id, "r": reason}
    return graphql(query, variables, lambda data: Decision.from_graphql(data["validate"]))


def supersede(scope: str, fact_id: str, item: MemoryInput, reason: str) -> Call[Decision]:
    query = (
        "mutation($s: String!, $id: ID!, $f: FactInput!, $r: String!) "
        f"{{ supersede(scope: $s, id: $id, fact: $f, reason: $r) {{ {DECISION_FIELDS} }} }}"
    )
    variables = {"s": scope, "id": fact_id, "f": item.to_graphql(), "r": reason}
    return graphql(query, variables, lambda data: Decision.from_graphql(data["supersede"]))


def timeline(
    scope: str,
    *,
    first: int,
    after: str | None,
    partition: str | None,
    session_id: str | None,
    since: datetime | None,
    until: datetime | None,
) -> Call[FactPage]:
    query = (
        "query($s: String!, $first: Int!, $after: String, $p: String, $sid: String, "
        "$since: DateTime, $until: DateTime) { timeline(scope: $s, first: $first, "
        "after: $after, partition: $p, sessionId: $sid, since: $since, until: $until) "
        f"{{ edges {{ node {{ {FACT_FIELDS} }} }} pageInfo {{ hasNextPage endCursor }} }} }}"
    )
    variables = {
        "s": scope,
        "first": first,
        "after": after,
        "p": partition,
        "sid": session_id,
        "since": since.isoformat() if since else None,
        "until": until.isoformat() if until else None,
    }

    def read(data: Any) -> FactPage:
        connection = data["timeline"]
        info = connection["pageInfo"]
        return FactPage(
            items=[Fact.from_graphql(edge["node"]) for edge in connection["edges"]],
            next_cursor=info["endCursor"] if info["hasNextPage"] else None,
        )

    return graphql(query, variables, read)


def review_queue(scope: str, *, first: int, after: str | None) -> Call[FactPage]:
    query = (
        "query($s: String!, $first: Int!, $after: String) "
        "{ reviewQueue(scope: $s, first: $first, after: $after) "
        f"{{ items {{ {FACT_FIELDS} }} nextCursor }} }}"
    )
    variables = {"s": scope, "first": first, "after": after}

    def read(data: Any) -> FactPage:
        page = data["reviewQueue"]
        return FactPage(
            items=[Fact.from_graphql(f) for f in page["items"]], next_cursor=page["nextCursor"]
        )

    return graphql(query, variables, read)


def raw_graphql(query: str, variables: Mapping[str, Any] | None) -> Call[dict[str, Any]]:
    return graphql(query, variables or {}, lambda data: dict(data))


def _transition(name: str, scope: str, fact_id: str, reason: str) -> Call[Fact]:
    query = (
        "mutation($s: String!, $id: ID!, $r: String!) "
        f"{{ {name}(scope: $s, id: $id, reason: $r) {{ {FACT_FIELDS} }} }}"
    )
    variables = {"s": scope, "id": fact_id, "r": reason}
    return graphql(query, variables, lambda data: Fact.from_graphql(data[name]))


def _fact_or_none(body: Any) -> Fact | None:
    return Fact.from_graphql(body) if body else None
