"""A thread search: the facts of the query's topic in the order they were said, through the
Python API and GraphQL, against the real Neo4j and the real model."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from mcp.client.session import ClientSession

from factgraph_client import Client
from graph.errors import ValidationError
from graph.memory import Memory
from tests.conftest import GraphQLClient
from tests.mcp_helpers import ok, over_http

T0 = datetime(2025, 3, 1, tzinfo=UTC)
# The auth work, told over three sessions, with other talk between; (text, day, session, turn).
STORY = [
    ("The auth work starts: we add OAuth login for the admin console", 0, "1", 2),
    ("Auth update: OAuth login works, now adding refresh tokens to the admin console", 9, "2", 30),
    ("Auth is done: the admin console login uses OAuth with refresh tokens and 2FA", 21, "3", 61),
]
NOISE = [
    ("The office plants need watering twice a week", 3, "1", 5),
    ("Lunch on Friday is at the Thai place near the station", 12, "2", 33),
    ("The quarterly budget review moved to next Tuesday", 18, "3", 58),
]
QUESTION = "how did the auth work on the admin console go?"


@pytest.fixture
def story(memory: Memory, scope: str) -> list[str]:
    """The story's ids in the order they were said; written newest first, so that the order
    a thread returns is when they were said, not when they were written."""
    ids = {}
    for text, day, session, turn in reversed(STORY + NOISE):
        ids[text] = memory.remember(
            scope,
            {
                "text": text,
                "valid_from": T0 + timedelta(days=day),
                "session_id": session,
                "turn": turn,
            },
        ).id
    return [ids[text] for text, *_ in STORY]


def test_a_thread_is_the_topics_messages_in_time_order(
    memory: Memory, scope: str, story: list[str]
) -> None:
    result = memory.search(scope, QUESTION, top_k=3, thread=True)
    assert [h.fact.id for h in result.hits] == story
    said = [h.fact.valid_from for h in result.hits]
    assert said == sorted(said)
    # The same hits without the option come by score: the best match first, whatever its date.
    plain = memory.search(scope, QUESTION, top_k=3)
    assert {h.fact.id for h in plain.hits} == set(story)
    scores = [h.score for h in plain.hits]
    assert scores == sorted(scores, reverse=True)


def test_a_thread_through_graphql(gql: GraphQLClient, scope: str, story: list[str]) -> None:
    data = gql.data(
        """query($scope: String!, $q: String!) {
          search(scope: $scope, query: $q, options: {topK: 3, thread: true}) {
            hits { fact { id validFrom } } } }""",
        scope=scope,
        q=QUESTION,
    )
    assert [h["fact"]["id"] for h in data["search"]["hits"]] == story


def test_a_thread_through_rest_mcp_and_the_client(
    http: httpx.Client, server_url: str, scope: str, story: list[str]
) -> None:
    rest = http.post(
        "/api/v1/search",
        json={"query": QUESTION, "top_k": 3, "thread": True},
        headers={"X-Scope": scope},
    )
    assert rest.status_code == 200, rest.text
    assert [r["memory"]["id"] for r in rest.json()["results"]] == story

    async def steps(session: ClientSession) -> dict[str, Any]:
        return ok(
            await session.call_tool("search", {"query": QUESTION, "top_k": 3, "thread": True})
        )

    assert [r["id"] for r in over_http(server_url, steps, scope=scope)["results"]] == story
    with Client(server_url, scope=scope, timeout=300) as client:
        found = client.search(QUESTION, top_k=3, thread=True)
    assert [h.fact.id for h in found.hits] == story


def test_the_thread_option_is_checked(memory: Memory, http: httpx.Client, scope: str) -> None:
    with pytest.raises(ValidationError) as caught:
        memory.search(scope, "anything", thread="yes")
    assert caught.value.field == "thread"
    bad = http.post(
        "/api/v1/search", json={"query": "anything", "thread": "true"}, headers={"X-Scope": scope}
    )
    assert bad.status_code == 422 and bad.json()["error"]["field"] == "thread"
