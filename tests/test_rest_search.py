"""`POST /api/v1/search`: the REST contract field by field, and 422s that name the field."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from graph.memory import Memory
from graph.search import recorder
from graph.storage.db import Database

# A search with no hits: nothing found, and nothing in the scope answers it.
EMPTY_ANSWER = {
    "results": [],
    "related": [],
    "standing": [],
    "answerable": False,
    "answerability": 0.0,
}

MEMORY_FIELDS = {
    "id",
    "partition_id",
    "content",
    "importance_score",
    "tags",
    "metadata",
    "source",
    "created_at",
    "updated_at",
    "last_accessed_at",
    "access_count",
    "expires_at",
}
RESULT_FIELDS = {
    "memory",
    "score",
    "recency_score",
    "importance_score_normalized",
    "relevance_score",
}


def post(http: httpx.Client, scope: str, body: Any) -> httpx.Response:
    return http.post("/api/v1/search", json=body, headers={"X-Scope": scope})


@pytest.fixture
def notes(memory: Memory, scope: str) -> dict[str, str]:
    expires = datetime.now(UTC) + timedelta(days=3)
    return {
        "garage": memory.remember(
            scope,
            {
                "text": "The garage key hangs behind the kitchen door",
                "partition": "home",
                "tags": ["keys", "house"],
                "importance": 8,
                "source": "chat",
                "metadata": {"room": "kitchen"},
                "expires_at": expires,
                "session_id": "s",
                "turn": 2,
            },
        ).id,
        "before": memory.remember(
            scope, {"text": "Where did we leave things?", "session_id": "s", "turn": 1}
        ).id,
        "car": memory.remember(
            scope,
            {"text": "The car key is in the blue bowl", "partition": "home", "tags": ["keys"]},
        ).id,
        "office": memory.remember(
            scope, {"text": "Office badge renewal is due in June", "partition": "work"}
        ).id,
    }


def test_response_has_exactly_the_contract_fields(
    http: httpx.Client, memory: Memory, scope: str, notes: dict[str, str]
) -> None:
    response = post(http, scope, {"query": "garage key kitchen", "top_k": 1})
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"results", "related", "standing", "answerable", "answerability"}
    (result,) = body["results"]
    assert set(result) == RESULT_FIELDS
    item = result["memory"]
    assert set(item) == MEMORY_FIELDS
    stored = memory.get(scope, notes["garage"])
    assert stored is not None
    assert item["id"] == notes["garage"]
    assert item["partition_id"] == "home"
    assert item["content"] == "The garage key hangs behind the kitchen door"
    assert item["importance_score"] == 8
    assert item["tags"] == ["keys", "house"]
    assert item["metadata"] == {"room": "kitchen"}
    assert item["source"] == "chat"
    assert datetime.fromisoformat(item["created_at"]) == stored.recorded_at
    assert datetime.fromisoformat(item["updated_at"]) == stored.updated_at
    assert datetime.fromisoformat(item["expires_at"]) == stored.expires_at
    assert item["access_count"] == 0 and item["last_accessed_at"] is None
    assert result["importance_score_normalized"] == pytest.approx(0.8)
    assert 0 < result["relevance_score"] < 1
    assert 0 < result["recency_score"] <= 1
    assert result["score"] == pytest.approx(
        (result["relevance_score"] + 0.8 + result["recency_score"]) / 3
    )


def test_access_is_counted_for_returned_memories(
    http: httpx.Client, db: Database, scope: str, notes: dict[str, str]
) -> None:
    post(http, scope, {"query": "garage key kitchen", "top_k": 1})
    assert recorder(db).flush()
    again = post(http, scope, {"query": "garage key kitchen", "top_k": 1}).json()
    item = again["results"][0]["memory"]
    assert item["access_count"] == 1 and item["last_accessed_at"] is not None


def test_top_k_partitions_and_tags(http: httpx.Client, scope: str, notes: dict[str, str]) -> None:
    body = post(http, scope, {"query": "key badge", "top_k": 2}).json()
    assert len(body["results"]) == 2
    home = post(http, scope, {"query": "key badge", "partition_ids": ["home"]}).json()
    assert {r["memory"]["partition_id"] for r in home["results"]} == {"home"}
    work = post(http, scope, {"query": "key badge", "partition_ids": ["work"]}).json()
    assert [r["memory"]["id"] for r in work["results"]] == [notes["office"]]
    tagged = post(http, scope, {"query": "key", "tags": ["keys", "house"]}).json()
    assert [r["memory"]["id"] for r in tagged["results"]] == [notes["garage"]]


def test_weights_change_the_score(http: httpx.Client, scope: str, notes: dict[str, str]) -> None:
    body = {"query": "car key blue bowl", "top_k": 4}
    only_importance = post(
        http, scope, {**body, "weight_relevance": 0, "weight_importance": 1, "weight_recency": 0}
    ).json()
    first = only_importance["results"][0]
    assert first["memory"]["id"] == notes["garage"]
    assert first["score"] == pytest.approx(0.8)
    only_relevance = post(
        http, scope, {**body, "weight_relevance": 1, "weight_importance": 0, "weight_recency": 0}
    ).json()
    best = only_relevance["results"][0]
    assert best["memory"]["id"] == notes["car"]
    assert best["score"] == pytest.approx(best["relevance_score"])


def test_turn_window_and_shared_tags_fill_related(
    http: httpx.Client, scope: str, notes: dict[str, str]
) -> None:
    body = post(
        http, scope, {"query": "garage key kitchen", "top_k": 1, "prev_turns": 1, "next_turns": 1}
    ).json()
    related = [m["id"] for m in body["related"]]
    assert related == [notes["before"], notes["car"]]  # the window first, then shared tags
    assert all(set(m) == MEMORY_FIELDS for m in body["related"])


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "query"),
        ({"query": None}, "query"),
        ({"query": 42}, "query"),
        ({"query": "x" * 4001}, "query"),
        ({"query": "k", "top_k": 0}, "top_k"),
        ({"query": "k", "top_k": 101}, "top_k"),
        ({"query": "k", "top_k": "10"}, "top_k"),
        ({"query": "k", "top_k": 2.5}, "top_k"),
        ({"query": "k", "top_k": True}, "top_k"),
        ({"query": "k", "partition_ids": "home"}, "partition_ids"),
        ({"query": "k", "partition_ids": [""]}, "partition_ids"),
        ({"query": "k", "tags": [1]}, "tags"),
        ({"query": "k", "weight_relevance": -1}, "weight_relevance"),
        ({"query": "k", "weight_importance": "high"}, "weight_importance"),
        ({"query": "k", "limit": 5}, "limit"),
        ({"query": "k", "prev_turns": -1}, "prev_turns"),
        ({"query": "k", "next_turns": 21}, "next_turns"),
        ({"query": "k", "scope": "other"}, "scope"),
        (["query"], "body"),
    ],
)
def test_bad_requests_get_422_naming_the_field(
    http: httpx.Client, scope: str, body: Any, field: str
) -> None:
    response = post(http, scope, body)
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["field"] == field
    assert error["reason"] and error["code"] == "BAD_USER_INPUT"


def test_all_zero_weights_and_bad_json_are_refused(http: httpx.Client, scope: str) -> None:
    zero = {"query": "k", "weight_relevance": 0, "weight_importance": 0, "weight_recency": 0}
    assert post(http, scope, zero).status_code == 422
    raw = http.post("/api/v1/search", content=b"{not json", headers={"X-Scope": scope})
    assert raw.status_code == 422 and raw.json()["error"]["field"] == "body"


def test_scopes_isolate_and_no_scope_means_the_default_scope(
    http: httpx.Client, memory: Memory, scope: str, other_scope: str, notes: dict[str, str]
) -> None:
    unnamed = http.post("/api/v1/search", json={"query": "garage key kitchen"})
    assert unnamed.status_code == 200  # FACTGRAPH_DEFAULT_SCOPE ("default"), not this scope
    assert notes["garage"] not in {r["memory"]["id"] for r in unnamed.json()["results"]}
    memory.remember(other_scope, {"text": "Other tenant's garage key code 1234"})
    mine = post(http, scope, {"query": "garage key code", "top_k": 10}).json()
    assert notes["garage"] in {r["memory"]["id"] for r in mine["results"]}
    assert all("1234" not in r["memory"]["content"] for r in mine["results"])
    by_param = http.post(f"/api/v1/search?scope={other_scope}", json={"query": "garage"})
    assert [r["memory"]["content"] for r in by_param.json()["results"]] == [
        "Other tenant's garage key code 1234"
    ]


def test_hostile_and_empty_queries_are_not_errors(
    http: httpx.Client, scope: str, notes: dict[str, str]
) -> None:
    for query in ["", "   ", 'key" AND partition:work) OR (*', "\\\\", "🔑" * 100]:
        response = post(http, scope, {"query": query})
        assert response.status_code == 200, response.text
    assert post(http, scope, {"query": ""}).json() == EMPTY_ANSWER
