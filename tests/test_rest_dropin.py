"""The REST API is a drop-in: the documented calls of the API we reproduce work unchanged.

`DOCUMENTED` is the Search API page of hebb-mind (docs/api/search.md, served at
https://afx-team.github.io/hebb-mind/api/search.html): its four curl requests, byte for byte;
`GETTING_STARTED` the two calls of its getting-started guide (docs/guide/getting-started.md):
store a first memory, then search.
They name no scope and their turn window reads `metadata.session_id` / `metadata.turn`, so
the server must pick the scope itself (the key's only scope, else FACTGRAPH_DEFAULT_SCOPE) and
take a fact's session and turn from its metadata when the top-level fields are absent.
"""

from __future__ import annotations

import io
import json
import shlex
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from graph.bulk.exporter import export
from graph.bulk.importer import ImportOptions, run_import
from graph.errors import ValidationError
from graph.memory import Memory
from graph.storage.db import Database
from resolvers.app import create_app
from tests.conftest import GraphQLClient
from tests.live_server import serve

# A search with no hits: nothing found, and nothing in the scope answers it.
EMPTY_ANSWER = {
    "results": [],
    "related": [],
    "standing": [],
    "answerable": False,
    "answerability": 0.0,
}

DOCUMENTED_PORT = "http://localhost:8321"
DOCUMENTED = {
    "basic": """curl -X POST http://localhost:8321/api/v1/search \\
  -H "Content-Type: application/json" \\
  -d '{"query": "UI preferences"}'""",
    "filtered": """curl -X POST http://localhost:8321/api/v1/search \\
  -H "Content-Type: application/json" \\
  -d '{
    "query": "UI preferences",
    "top_k": 5,
    "partition_ids": ["mem_preference"],
    "tags": ["ui"]
  }'""",
    "weighted": """curl -X POST http://localhost:8321/api/v1/search \\
  -H "Content-Type: application/json" \\
  -d '{
    "query": "recent deployment issues",
    "top_k": 10,
    "weight_relevance": 2.0,
    "weight_importance": 1.0,
    "weight_recency": 3.0
  }'""",
    "turns": """curl -X POST http://localhost:8321/api/v1/search \\
  -H "Content-Type: application/json" \\
  -d '{
    "query": "what country did Melanie move from",
    "top_k": 10,
    "prev_turns": 2,
    "next_turns": 2
  }'""",
}
GETTING_STARTED = {
    "store": """curl -X POST http://localhost:8321/api/v1/memories \\
  -H "Content-Type: application/json" \\
  -d '{
    "content": "User prefers dark mode and compact layout",
    "tags": ["preference", "ui"],
    "importance_score": 7.5
  }'""",
    "search": """curl -X POST http://localhost:8321/api/v1/search \\
  -H "Content-Type: application/json" \\
  -d '{"query": "UI preferences", "top_k": 5}'""",
}
MEMORY_FIELDS = {
    "id": str,
    "partition_id": str,
    "content": str,
    "importance_score": float,
    "tags": list,
    "metadata": dict,
    "source": (str, type(None)),
    "created_at": str,
    "updated_at": (str, type(None)),
    "last_accessed_at": (str, type(None)),
    "access_count": int,
    "expires_at": (str, type(None)),
}
RESULT_FIELDS = {"memory", "score", "recency_score", "importance_score_normalized"} | {
    "relevance_score"
}
# A conversation long enough that top_k 10 leaves turns for the window to bring back.
DIALOGUE = [
    "Caroline: Hey Mel, how was your week?",
    "Melanie: Busy! I took the kids to the pottery workshop on Saturday.",
    "Caroline: That sounds fun, what did you make?",
    "Melanie: A small bowl with a painted sunflower on it.",
    "Caroline: I went to a support group meeting on Tuesday.",
    "Melanie: How did it go?",
    "Caroline: It was powerful, people shared their stories.",
    "Melanie: I remember when I moved here from my home country.",
    "Melanie: Sweden, four years ago now, and I still miss the winters.",
    "Caroline: That must have been hard at first.",
    "Melanie: My friends here made it much easier.",
    "Caroline: I am thinking about adopting a child next year.",
    "Melanie: That is wonderful, you would be a great mom.",
    "Caroline: Thanks, the agency interview is in June.",
    "Melanie: Let me know if you want help preparing.",
    "Caroline: I will. Are you still running every morning?",
    "Melanie: Yes, five kilometres before the kids wake up.",
    "Caroline: I should join you one day.",
]


@dataclass(frozen=True)
class Documented:
    """One documented curl request, parsed: what goes on the wire, unchanged."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes


def parse_curl(command: str) -> Documented:
    words = shlex.split(command.replace("\\\n", " "))  # the shell joins continued lines
    assert words[0] == "curl"
    method, url, headers, body = "GET", "", {}, b""
    i = 1
    while i < len(words):
        word = words[i]
        if word == "-X":
            method, i = words[i + 1], i + 2
        elif word == "-H":
            name, _, value = words[i + 1].partition(":")
            headers[name.strip()] = value.strip()
            i += 2
        elif word == "-d":
            body, i = words[i + 1].encode(), i + 2
        else:
            url, i = word, i + 1
    assert url.startswith(DOCUMENTED_PORT), url
    return Documented(method, url[len(DOCUMENTED_PORT) :], headers, body)


@pytest.fixture(scope="module")
def default_scope(db: Database) -> Iterator[str]:
    """The server's configured default scope: the documented calls, naming none, land here."""
    name = f"test-default-{uuid.uuid4().hex[:8]}"
    yield name
    db.write("scope_delete", {"scope": name})


@pytest.fixture(scope="module")
def dropin(memory: Memory, default_scope: str) -> Iterator[str]:
    """A loopback server without keys whose FACTGRAPH_DEFAULT_SCOPE is `default_scope`."""
    settings = memory.settings.with_overrides(default_scope=default_scope)
    with serve(create_app(memory=memory, settings=settings)) as url:
        yield url


@pytest.fixture(scope="module")
def seeded(memory: Memory, default_scope: str) -> dict[str, str]:
    """Memories as the documented client writes them: session and turn only in metadata."""
    ids = {
        "dark": memory.remember(
            default_scope,
            {
                "text": "User prefers dark mode and compact layout",
                "partition": "mem_preference",
                "tags": ["preference", "ui"],
                "importance": 7.5,
                "source": "consolidation",
            },
        ).id,
        "contrast": memory.remember(
            default_scope,
            {
                "text": "User enabled high-contrast accessibility settings",
                "partition": "mem_preference",
                "tags": ["preference", "accessibility"],
                "importance": 6.0,
                "source": "api",
            },
        ).id,
        "deploy": memory.remember(
            default_scope,
            {
                "text": "The Friday deployment failed: the database migration timed out",
                "tags": ["deploy"],
                "importance": 8.0,
            },
        ).id,
    }
    for turn, text in enumerate(DIALOGUE, start=1):
        fact = memory.remember(
            default_scope, {"text": text, "metadata": {"session_id": "sess1", "turn": turn}}
        )
        ids[f"turn{turn}"] = fact.id
    return ids


def replay(url: str, name: str) -> httpx.Response:
    request = parse_curl(DOCUMENTED.get(name) or GETTING_STARTED[name])
    with httpx.Client(base_url=url, timeout=60) as client:
        return client.request(
            request.method, request.path, headers=request.headers, content=request.body
        )


def check_memory(item: dict[str, Any]) -> None:
    """Every field of the documented memory record, with its documented type."""
    assert set(item) == set(MEMORY_FIELDS)
    for field, kind in MEMORY_FIELDS.items():
        value = item[field]
        if kind is float:
            assert isinstance(value, int | float) and not isinstance(value, bool), field
        else:
            assert isinstance(value, kind), (field, value)  # type: ignore[arg-type]
    assert all(isinstance(tag, str) for tag in item["tags"])
    assert 0 <= item["importance_score"] <= 10
    assert item["access_count"] >= 0
    for field in ("created_at", "updated_at", "last_accessed_at", "expires_at"):
        if item[field] is not None:
            assert datetime.fromisoformat(item[field]).tzinfo is not None, field


def check_response(body: dict[str, Any], top_k: int) -> None:
    assert set(body) == {"results", "related", "standing", "answerable", "answerability"}
    assert 0 < len(body["results"]) <= top_k
    scores = [r["score"] for r in body["results"]]
    assert scores == sorted(scores, reverse=True)
    for result in body["results"]:
        assert set(result) == RESULT_FIELDS
        check_memory(result["memory"])
        assert 0 <= result["recency_score"] <= 1
        assert 0 <= result["relevance_score"] <= 1
        importance = result["memory"]["importance_score"]
        assert result["importance_score_normalized"] == pytest.approx(importance / 10)
    for item in body["related"]:
        check_memory(item)


def test_the_documented_requests_are_sent_unchanged() -> None:
    basic = parse_curl(DOCUMENTED["basic"])
    assert (basic.method, basic.path) == ("POST", "/api/v1/search")
    assert basic.headers == {"Content-Type": "application/json"}
    assert basic.body == b'{"query": "UI preferences"}'
    assert "scope" not in json.loads(parse_curl(DOCUMENTED["turns"]).body)


def test_basic_search_without_a_scope_uses_the_default_scope(
    dropin: str, seeded: dict[str, str]
) -> None:
    response = replay(dropin, "basic")
    assert response.status_code == 200, response.text
    body = response.json()
    check_response(body, top_k=10)
    top = body["results"][0]["memory"]
    assert top["id"] == seeded["dark"]
    assert top["content"] == "User prefers dark mode and compact layout"
    assert top["partition_id"] == "mem_preference"
    assert top["tags"] == ["preference", "ui"]
    assert top["importance_score"] == 7.5
    assert top["source"] == "consolidation"
    assert top["metadata"] == {}
    assert top["expires_at"] is None


def test_filtered_search_keeps_to_the_partition_and_tags(
    dropin: str, seeded: dict[str, str]
) -> None:
    body = replay(dropin, "filtered").json()
    check_response(body, top_k=5)
    assert [r["memory"]["id"] for r in body["results"]] == [seeded["dark"]]


def test_weighted_search_finds_the_deployment_issue(dropin: str, seeded: dict[str, str]) -> None:
    body = replay(dropin, "weighted").json()
    check_response(body, top_k=10)
    top = body["results"][0]
    assert top["memory"]["id"] == seeded["deploy"]
    parts = (top["relevance_score"], top["importance_score_normalized"], top["recency_score"])
    weighted = (2.0 * parts[0] + 1.0 * parts[1] + 3.0 * parts[2]) / 6.0
    assert top["score"] == pytest.approx(weighted)


def test_turn_window_reads_metadata_session_and_turn(
    dropin: str, memory: Memory, default_scope: str, seeded: dict[str, str]
) -> None:
    body = replay(dropin, "turns").json()
    check_response(body, top_k=10)
    hits = {r["memory"]["id"] for r in body["results"]}
    related = [item["id"] for item in body["related"]]
    assert len(related) == len(set(related)) and not hits & set(related)
    turn_of = {fid: int(key[4:]) for key, fid in seeded.items() if key.startswith("turn")}
    hit_turns = {turn_of[h] for h in hits if h in turn_of}
    window = [item for item in body["related"] if item["metadata"].get("session_id") == "sess1"]
    assert window, "the window brought back no turns"
    for item in window:
        assert any(abs(item["metadata"]["turn"] - t) <= 2 for t in hit_turns)
    # "Sweden" (turn 9) answers the question; it comes back as a hit or through the window.
    assert seeded["turn9"] in hits | set(related)
    stored = memory.get(default_scope, seeded["turn9"])
    assert stored is not None and (stored.session_id, stored.turn) == ("sess1", 9)


def test_a_key_with_one_scope_searches_it_without_naming_it(
    memory: Memory, default_scope: str, scope: str, seeded: dict[str, str]
) -> None:
    memory.remember(scope, {"text": "User prefers light mode on weekends"})
    settings = memory.settings.with_overrides(default_scope=default_scope)
    app = create_app(memory=memory, settings=settings, require_auth=True)
    with serve(app) as url:
        store = app.state.gate.keys
        one, one_token = store.create([scope], "reader")
        many, many_token = store.create([scope, default_scope], "reader")
        other, other_token = store.create([f"{scope}-else"], "reader")
        try:
            request = parse_curl(DOCUMENTED["basic"])

            def send(token: str) -> httpx.Response:
                headers = {**request.headers, "Authorization": f"Bearer {token}"}
                return httpx.post(
                    url + request.path, headers=headers, content=request.body, timeout=60
                )

            mine = send(one_token).json()
            assert [r["memory"]["content"] for r in mine["results"]] == [
                "User prefers light mode on weekends"
            ]
            # Several scopes: the configured default, which this key may use.
            assert send(many_token).json()["results"][0]["memory"]["id"] == seeded["dark"]
            # One scope that is not the default: still its own scope, never the default.
            assert send(other_token).json() == EMPTY_ANSWER
        finally:
            for key in (one, many, other):
                store.delete(key.id)


def test_a_key_outside_the_default_scope_is_refused(memory: Memory, scope: str) -> None:
    app = create_app(memory=memory, require_auth=True)
    with serve(app) as url:
        store = app.state.gate.keys
        key, token = store.create([scope, f"{scope}-2"], "reader")
        try:
            request = parse_curl(DOCUMENTED["basic"])
            headers = {**request.headers, "Authorization": f"Bearer {token}"}
            response = httpx.post(url + request.path, headers=headers, content=request.body)
            assert response.status_code == 403
            assert response.json()["error"]["code"] == "FORBIDDEN"
        finally:
            store.delete(key.id)


def test_storing_through_rest_needs_the_writer_role(memory: Memory, scope: str) -> None:
    app = create_app(memory=memory, require_auth=True)
    with serve(app) as url:
        store = app.state.gate.keys
        reader, reader_token = store.create([scope], "reader")
        writer, writer_token = store.create([scope], "writer")
        try:
            request = parse_curl(GETTING_STARTED["store"])

            def send(token: str) -> httpx.Response:
                headers = {**request.headers, "Authorization": f"Bearer {token}"}
                return httpx.post(
                    url + request.path, headers=headers, content=request.body, timeout=60
                )

            refused = send(reader_token)
            assert refused.status_code == 403 and refused.json()["error"]["code"] == "FORBIDDEN"
            stored = send(writer_token)
            assert stored.status_code == 201, stored.text
            assert memory.get(scope, stored.json()["id"]) is not None  # the key's only scope
        finally:
            for key in (reader, writer):
                store.delete(key.id)


REMEMBER = """
mutation($scope: String!, $fact: FactInput!) {
  remember(scope: $scope, fact: $fact) { fact { id sessionId turn metadata } }
}"""
SEARCH = """
query($scope: String!) {
  search(scope: $scope, query: "Sweden", options: {topK: 1, prevTurns: 2, nextTurns: 2}) {
    hits { fact { turn } } related { fact { turn sessionId } } } }"""
TIMELINE = """
query($scope: String!) {
  timeline(scope: $scope, sessionId: "sess1") { edges { node { turn } } } }"""


def test_graphql_remember_takes_session_and_turn_from_metadata(
    gql: GraphQLClient, scope: str
) -> None:
    lines = ["I moved", "from my home country", "Sweden", "four years ago", "in winter"]
    for turn, text in enumerate(lines, start=1):
        meta = {"session_id": "sess1", "turn": turn}
        fact = gql.data(REMEMBER, scope=scope, fact={"text": text, "metadata": meta})
        stored = fact["remember"]["fact"]
        assert (stored["sessionId"], stored["turn"]) == ("sess1", turn)
        assert stored["metadata"] == meta
    found = gql.data(SEARCH, scope=scope)["search"]
    assert [h["fact"]["turn"] for h in found["hits"]] == [3]
    assert sorted(r["fact"]["turn"] for r in found["related"]) == [1, 2, 4, 5]
    timeline = gql.data(TIMELINE, scope=scope)["timeline"]["edges"]
    assert sorted(e["node"]["turn"] for e in timeline) == [1, 2, 3, 4, 5]


def test_top_level_session_and_turn_win_over_metadata(memory: Memory, scope: str) -> None:
    fact = memory.remember(
        scope,
        {
            "text": "Top-level fields are the truth",
            "session_id": "top",
            "turn": 9,
            "metadata": {"session_id": "meta", "turn": 1},
        },
    )
    assert (fact.session_id, fact.turn) == ("top", 9)
    assert fact.metadata == {"session_id": "meta", "turn": 1}
    half = memory.remember(
        scope, {"text": "Only the turn is top-level", "turn": 4, "metadata": {"session_id": "m"}}
    )
    assert (half.session_id, half.turn) == ("m", 4)


def test_a_metadata_turn_that_is_not_a_turn_is_refused(memory: Memory, scope: str) -> None:
    for bad in ("three", -1, True, 2.5, ["1"]):
        with pytest.raises(ValidationError) as caught:
            memory.remember(scope, {"text": "x", "metadata": {"session_id": "s", "turn": bad}})
        assert caught.value.field == "metadata.turn"
    numeric = memory.remember(scope, {"text": "y", "metadata": {"session_id": 7, "turn": "3"}})
    assert (numeric.session_id, numeric.turn) == ("7", 3)


def test_import_and_export_carry_metadata_turns(
    memory: Memory, db: Database, scope: str, tmp_path: Path
) -> None:
    rows = [
        {"text": text, "metadata": {"session_id": "imp", "turn": n}}
        for n, text in (
            (1, "The boiler was serviced in March"),
            (2, "Tomatoes grow on the balcony"),
        )
    ]
    source = tmp_path / "turns.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in rows))
    for fast in (False, True):
        db.write("scope_delete", {"scope": scope})
        options = ImportOptions(path=source, scope=scope, fast=fast, progress=False, restart=True)
        assert run_import(memory, options).rejected == 0
        page = memory.timeline(scope, session_id="imp")
        assert sorted(edge.node.turn or 0 for edge in page.edges) == [1, 2], fast
    buffer = io.StringIO()
    export(db, buffer, scopes=[scope], embeddings=False)
    lines = [json.loads(line) for line in buffer.getvalue().splitlines()]
    facts = sorted((r for r in lines if "text" in r), key=lambda r: r["turn"])
    assert [(f["session_id"], f["turn"], f["metadata"]["turn"]) for f in facts] == [
        ("imp", 1, 1),
        ("imp", 2, 2),
    ]


@pytest.fixture
def fresh(memory: Memory, scope: str) -> Iterator[str]:
    """A loopback server whose default scope is this test's own, empty scope."""
    settings = memory.settings.with_overrides(default_scope=scope)
    with serve(create_app(memory=memory, settings=settings)) as url:
        yield url


def test_the_getting_started_calls_store_a_memory_then_find_it(fresh: str) -> None:
    stored = replay(fresh, "store")
    assert stored.status_code == 201, stored.text
    body = stored.json()
    assert (body.pop("decision"), body.pop("matched_id")) == ("insert", None)
    check_memory(body)
    assert body["content"] == "User prefers dark mode and compact layout"
    assert body["tags"] == ["preference", "ui"]
    assert body["importance_score"] == 7.5
    assert body["partition_id"] == "default"
    found = replay(fresh, "search").json()
    check_response(found, top_k=5)
    assert [r["memory"]["id"] for r in found["results"]] == [body["id"]]
    again = replay(fresh, "store").json()
    assert (again["decision"], again["matched_id"]) == ("dedup", body["id"])


def test_turns_stored_through_rest_metadata_come_back_in_the_window(fresh: str) -> None:
    lines = ["I moved", "from my home country", "Sweden", "four years ago", "in winter"]
    with httpx.Client(base_url=fresh, timeout=60) as client:
        for turn, text in enumerate(lines, start=1):
            meta = {"session_id": "sess1", "turn": turn}
            answer = client.post("/api/v1/memories", json={"content": text, "metadata": meta})
            assert answer.status_code == 201 and answer.json()["metadata"] == meta
        found = client.post(
            "/api/v1/search", json={"query": "Sweden", "top_k": 1, "prev_turns": 2, "next_turns": 2}
        ).json()
    assert [r["memory"]["content"] for r in found["results"]] == ["Sweden"]
    assert sorted(m["metadata"]["turn"] for m in found["related"]) == [1, 2, 4, 5]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"content": ""}, "content"),
        ({"tags": ["x"]}, "content"),
        ({"content": "x", "importance_score": 11}, "importance_score"),
        ({"content": "x", "bogus": 1}, "bogus"),
        ({"content": "x", "partition_id": " "}, "partition_id"),
        ({"content": "x", "metadata": {"session_id": "s", "turn": "abc"}}, "metadata.turn"),
        ({"content": "x", "metadata": ["not", "an", "object"]}, "metadata"),
        (["content"], "body"),
    ],
)
def test_bad_memories_get_422_naming_the_field_and_write_nothing(
    fresh: str, memory: Memory, scope: str, body: Any, field: str
) -> None:
    answer = httpx.post(f"{fresh}/api/v1/memories", json=body, timeout=60)
    assert answer.status_code == 422, answer.text
    assert answer.json()["error"]["field"] == field
    assert memory.timeline(scope).edges == []


def test_history_of_an_unknown_memory_is_404(fresh: str) -> None:
    answer = httpx.get(f"{fresh}/api/v1/memories/no-such-id/history", timeout=60)
    assert answer.status_code == 404
    assert answer.json()["error"]["code"] == "NOT_FOUND"
