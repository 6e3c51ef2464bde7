"""mem0's open-source server API (mem0ai/mem0 `server/main.py`), called as its documentation
shows (docs/open-source/features/rest-api.mdx: plain HTTP with `X-API-Key`), against a real
factgraph server: agents built against a self-hosted mem0 switch by URL. mem0's Python package
ships no client for that server, so these are plain httpx calls.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import datetime

import httpx
import pytest
from starlette.applications import Starlette

from graph.memory import Memory
from resolvers.http.mem0_paths import is_mem0_path, route_label
from tests.mem0_helpers import project


@pytest.fixture
def server(secured: tuple[Starlette, str], memory: Memory) -> Iterator[tuple[httpx.Client, str]]:
    """An HTTP client sending a writer key bound to a project of the test's own (the routes
    work on the key's project), and an admin key for the same project."""
    app, url = secured
    with project(app, memory) as (name, token):
        admin_key, admin = app.state.gate.keys.create([f"{name}/*"], "admin")
        headers = {"X-API-Key": token}
        try:
            with httpx.Client(base_url=url, headers=headers, timeout=60) as http:
                yield http, admin
        finally:
            app.state.gate.keys.delete(admin_key.id)


def test_create_search_list_as_mem0s_server_docs_show(
    server: tuple[httpx.Client, str],
) -> None:
    http, _ = server
    said = {"messages": [{"role": "user", "content": "I love fresh vegetable pizza."}]}
    created = http.post("/memories", json={**said, "user_id": "alice"})
    assert created.status_code == 200, created.text
    [result] = created.json()["results"]
    assert (result["memory"], result["event"], result["role"]) == (
        "I love fresh vegetable pizza.",
        "ADD",
        "user",
    )
    http.post("/memories", json={**said, "user_id": "bob", "infer": False})

    found = http.post("/search", json={"query": "vegetable", "user_id": "alice"}).json()
    assert [(r["id"], r["user_id"]) for r in found["results"]] == [(result["id"], "alice")]
    assert 0.1 <= found["results"][0]["score"] <= 1.0  # mem0's default threshold, 0.1
    filtered = http.post(
        "/search", json={"query": "pizza", "filters": {"user_id": "alice"}, "top_k": 5}
    )
    assert [r["id"] for r in filtered.json()["results"]] == [result["id"]]
    http.post(
        "/memories",
        json={
            "messages": [{"role": "user", "content": "I order pizza on Fridays"}],
            "user_id": "alice",
            "metadata": {"topic": "habits"},
            "infer": False,
        },
    )
    # mem0's server reads a filter key that is not an id as a metadata key.
    habits = {"query": "pizza", "filters": {"user_id": "alice", "topic": "habits"}}
    assert [r["memory"] for r in http.post("/search", json=habits).json()["results"]] == [
        "I order pizza on Fridays"
    ]
    wide = http.post("/search", json={"query": "pizza", "filters": {"user_id": "*"}}).json()
    assert {r["user_id"] for r in wide["results"]} == {"alice", "bob"}

    listed = http.get("/memories", params={"user_id": "alice"}).json()
    assert [(m["id"], m["memory"]) for m in listed["results"]][-1] == (
        result["id"],
        "I love fresh vegetable pizza.",
    )
    assert "agent_id" not in listed["results"][0]  # present only when the memory has one
    assert listed["results"][0]["metadata"] == {"topic": "habits"}
    got = http.get(f"/memories/{result['id']}").json()
    assert got["user_id"] == "alice" and got["hash"] and got["role"] == "user"
    assert http.get(f"/memories/{uuid.uuid4()}").json() is None  # mem0's server: null


def test_update_keeps_the_id_and_history_tells_each_change(
    server: tuple[httpx.Client, str],
) -> None:
    http, _ = server
    said = [{"role": "user", "content": "I work at Acme"}]
    first = http.post("/memories", json={"messages": said, "user_id": "fay", "infer": False})
    memory_id = first.json()["results"][0]["id"]
    created = http.get(f"/memories/{memory_id}").json()["created_at"]
    updated = http.put(f"/memories/{memory_id}", json={"text": "I work at Globex"})
    assert updated.json() == {"message": "Memory updated successfully!"}
    got = http.get(f"/memories/{memory_id}").json()
    assert (got["id"], got["memory"], got["created_at"]) == (
        memory_id,
        "I work at Globex",
        created,
    )
    labelled = http.put(f"/memories/{memory_id}", json={"metadata": {"team": "sales"}})
    assert labelled.status_code == 200
    assert http.get(f"/memories/{memory_id}").json()["metadata"] == {"team": "sales"}
    assert http.put(f"/memories/{memory_id}", json={}).status_code == 400
    assert http.put(f"/memories/{uuid.uuid4()}", json={"text": "x"}).status_code == 404

    deleted = http.delete(f"/memories/{memory_id}")
    assert deleted.json() == {"message": "Memory deleted successfully"}
    assert http.get(f"/memories/{memory_id}").json() is None
    assert http.delete(f"/memories/{memory_id}").status_code == 404
    history = http.get(f"/memories/{memory_id}/history").json()
    assert [(h["event"], h["old_memory"], h["new_memory"]) for h in history] == [
        ("ADD", None, "I work at Acme"),
        ("UPDATE", "I work at Acme", "I work at Globex"),
        ("DELETE", "I work at Globex", None),
    ]
    assert {h["memory_id"] for h in history} == {memory_id}
    assert history[-1]["is_deleted"] is True
    assert http.get(f"/memories/{uuid.uuid4()}/history").json() == []


def test_deleting_all_and_resetting_need_an_admin_key(server: tuple[httpx.Client, str]) -> None:
    """As on mem0's server: `DELETE /memories` (with ids), `POST /reset` and listing every
    memory (no ids) are admin calls."""
    http, admin = server
    for user in ("gus", "hal"):
        said = [{"role": "user", "content": f"{user} owns a boat"}]
        http.post("/memories", json={"messages": said, "user_id": user, "infer": False})
    assert http.delete("/memories", params={"user_id": "gus"}).status_code == 403
    assert http.post("/reset").status_code == 403
    assert http.get("/memories").status_code == 403
    as_admin = {"X-API-Key": admin}
    assert http.delete("/memories", headers=as_admin).status_code == 400  # names no id
    gone = http.delete("/memories", params={"user_id": "gus"}, headers=as_admin)
    assert gone.json() == {"message": "All relevant memories deleted"}
    everything = http.get("/memories", headers=as_admin).json()["results"]
    assert [m["memory"] for m in everything] == ["hal owns a boat"]
    assert http.post("/reset", headers=as_admin).json() == {"message": "All memories reset"}
    assert http.get("/memories", headers=as_admin).json() == {"results": []}


def test_entities_are_listed_and_deleted_with_their_memories(
    server: tuple[httpx.Client, str],
) -> None:
    """`GET /entities` and `DELETE /entities/{type}/{id}`, as the server's dashboard calls
    them (docs/open-source/features/rest-api.mdx): deleting one is an admin call."""
    http, admin = server
    for text, ids in [
        ("Alice likes tea", {"user_id": "alice"}),
        ("Alice plans a trip", {"user_id": "alice", "agent_id": "planner"}),
        ("Bob runs daily", {"user_id": "bob", "run_id": "r-7"}),
    ]:
        said = [{"role": "user", "content": text}]
        http.post("/memories", json={"messages": said, **ids, "infer": False})
    listed = http.get("/entities").json()
    assert [(e["type"], e["id"], e["total_memories"]) for e in listed] == [
        ("agent", "planner", 1),
        ("run", "r-7", 1),
        ("user", "alice", 2),
        ("user", "bob", 1),
    ]
    alice = listed[2]
    assert set(alice) == {"id", "type", "total_memories", "created_at", "updated_at"}
    assert datetime.fromisoformat(alice["created_at"]) <= datetime.fromisoformat(
        alice["updated_at"]
    )

    assert http.delete("/entities/user/alice").status_code == 403
    as_admin = {"X-API-Key": admin}
    gone = http.delete("/entities/user/alice", headers=as_admin)
    assert gone.status_code == 200 and gone.json() == {"message": "Entity deleted"}
    assert [(e["type"], e["id"]) for e in http.get("/entities").json()] == [
        ("run", "r-7"),
        ("user", "bob"),
    ]
    assert http.get("/memories", params={"user_id": "alice"}).json() == {"results": []}
    again = http.delete("/entities/user/alice", headers=as_admin)  # nothing left: still fine
    assert again.json() == {"message": "Entity deleted"}
    unknown = http.delete("/entities/app/bob", headers=as_admin)
    assert unknown.status_code == 400 and unknown.json()["error"]["field"] == "entity_type"


def test_bad_calls_get_mem0s_errors(server: tuple[httpx.Client, str]) -> None:
    http, _ = server
    said = [{"role": "user", "content": "I like tea"}]
    unowned = http.post("/memories", json={"messages": said})
    assert unowned.status_code == 400
    assert "At least one identifier" in unowned.json()["detail"]
    unscoped = http.post("/search", json={"query": "tea"})
    assert unscoped.status_code == 400
    assert "filters must contain at least one of" in unscoped.json()["detail"]
    explained = http.post("/search", json={"query": "tea", "user_id": "jo", "explain": {}})
    assert explained.status_code == 400 and explained.json()["error"]["field"] == "explain"
    odd_id = http.post("/search", json={"query": "tea", "user_id": "jo", "run_id": {}})
    assert odd_id.status_code == 400 and odd_id.json()["error"]["field"] == "run_id"
    odd = http.post("/memories", json={"messages": said, "user_id": "jo", "colour": "red"})
    assert odd.status_code == 400 and odd.json()["error"]["field"] == "colour"
    root = str(http.base_url).rstrip("/")
    keyless = httpx.post(f"{root}/memories", json={"messages": said, "user_id": "jo"})
    assert keyless.status_code == 401
    bearer = {"Authorization": f"Bearer {http.headers['X-API-Key']}"}  # mem0's other scheme
    listed = httpx.get(f"{root}/memories", params={"user_id": "jo"}, headers=bearer)
    assert listed.json() == {"results": []}


def test_the_server_routes_are_mem0_paths_labelled_without_ids() -> None:
    """The middlewares answer their errors with mem0's `detail`, and metrics label them by
    route, never by a memory's id."""
    assert all(
        is_mem0_path(p)
        for p in ("/memories", "/memories/m1/history", "/search", "/entities/user/u1")
    )
    assert not is_mem0_path("/searches") and not is_mem0_path("/memoriesx")
    assert {route_label(p) for p in ("/memories", "/memories/m1", "/memories/m1/history")} == {
        "/memories"
    }
    assert route_label("/v1/memories/m1/") == "/v1/memories"
    assert route_label("/entities/user/u1") == "/entities"


def test_the_llm_configuration_routes_answer_a_clear_501_not_a_bare_404(
    http: httpx.Client,
) -> None:
    for method, path in [
        ("POST", "/configure"),
        ("GET", "/configure"),
        ("GET", "/configure/providers"),
        ("POST", "/generate-instructions"),
    ]:
        response = http.request(method, path, json={} if method == "POST" else None)
        assert response.status_code == 501, (path, response.text)
        body = response.json()
        assert body["error"]["code"] == "NOT_IMPLEMENTED"
        assert path in body["detail"] and "FACTGRAPH_LLM_" in body["detail"]
