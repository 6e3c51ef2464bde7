"""/openapi.json: a valid OpenAPI 3.1 document of every REST route, which real answers match.

The answers are those of the real service: every route is driven through its successes and
its errors (bad input, unknown id, unpaired surrogate, oversized body, and on a server that
requires keys, no key and a key of another scope), and each body is validated against the
schema the document gives for its route and status. A status the document does not list for
the route fails, and so does a documented answer that no request here produced (but overload).
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator, FormatChecker
from openapi_spec_validator import validate
from starlette.applications import Starlette

from factgraph.cli import main
from graph.auth.apikeys import KeyStore
from graph.memory import Memory
from graph.storage.db import Database
from resolvers.app import create_app
from resolvers.http.openapi import document_text, operations
from resolvers.mem0 import requests as mem0_requests
from resolvers.rest import memories as rest_memories
from resolvers.rest import search as rest
from tests.mem0_helpers import drop

ROOT = Path(__file__).resolve().parent.parent

# Routes of the app that are not REST, each described elsewhere: GraphQL by schema.graphql,
# MCP by its tool list, and pages and files for people.
NOT_REST = {
    "/": "redirects to /graphql",
    "/graphql": "GraphQL (schema.graphql)",
    "/mcp": "the Model Context Protocol endpoint",
    "/mcp/factgraph": "the Model Context Protocol endpoint of one tool set",
    "/mcp/memory": "the Model Context Protocol endpoint of one tool set",
    "/mcp/neo4j-memory": "the Model Context Protocol endpoint of one tool set",
    "/console": "the console page",
    "/console/": "the console page",
    "/docs": "this document's page (Swagger UI)",
    "/docs/": "this document's page (Swagger UI)",
    "/neo4j-browser/style.grass": "a style file for Neo4j Browser",
    "/neo4j-browser/guide.html": "a guide for Neo4j Browser",
    "/favicon.ico": "the service's icon",
    "/favicon.svg": "the service's icon",
}
# Statuses no request of a test can produce on purpose: overload and an unreachable Neo4j.
UNDRIVEN = {"503"}


@dataclass(frozen=True)
class Answer:
    method: str
    path: str
    response: httpx.Response


@pytest.fixture(scope="module")
def doc() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((ROOT / "openapi.json").read_text())
    return loaded


def test_openapi_json_is_printed_from_the_code(capsys: pytest.CaptureFixture[str]) -> None:
    committed = (ROOT / "openapi.json").read_text()
    assert committed == document_text(create_app().routes), "run `make schema` and commit"
    assert main(["schema", "openapi"]) == 0
    assert capsys.readouterr().out == committed


def test_the_document_is_valid_openapi_3_1(doc: dict[str, Any]) -> None:
    assert doc["openapi"].startswith("3.1")
    validate(doc)
    for schema in doc["components"]["schemas"].values():
        Draft202012Validator.check_schema(schema)


def test_every_route_of_the_app_is_described_unless_it_is_not_rest() -> None:
    """A route added without `@described` (resolvers/http/openapi.py) fails here until it is
    described, or named above as not REST."""
    found = operations(create_app().routes)
    undescribed = sorted({route.path for route, _, op in found if op is None} - set(NOT_REST))
    assert undescribed == []
    paths = {route.path for route, _, _ in found}
    assert set(NOT_REST) <= paths, "a route named as not REST is gone: drop it from NOT_REST"
    assert {"/api/v1/search", "/api/v1/memories", "/healthz", "/openapi.json"} <= paths
    assert {"/v1/ping/", "/v3/memories/add/", "/v3/memories/search/"} <= paths  # mem0's


def test_the_server_serves_the_document(http: httpx.Client, doc: dict[str, Any]) -> None:
    response = http.get("/openapi.json")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.json() == doc


def test_the_request_schemas_name_the_fields_the_handlers_accept(doc: dict[str, Any]) -> None:
    schemas = doc["components"]["schemas"]
    assert set(schemas["SearchRequest"]["properties"]) == rest.FIELDS
    assert set(schemas["MemoryWrite"]["properties"]) == set(rest_memories.FIELDS)
    assert schemas["SearchRequest"]["required"] == ["query"]
    assert schemas["SearchRequest"]["additionalProperties"] is False


def test_mem0_requests_are_described_with_the_fields_its_routes_accept(
    doc: dict[str, Any],
) -> None:
    """What mem0's routes accept in a body or a query string is what the document names:
    `known` refuses any other field (400)."""
    schemas, paths = doc["components"]["schemas"], doc["paths"]
    for name, fields in [
        ("Mem0AddRequest", mem0_requests.ADD_FIELDS),
        ("Mem0SearchRequest", mem0_requests.SEARCH_FIELDS),
        ("Mem0ListRequest", mem0_requests.LIST_FIELDS),
        ("Mem0UpdateRequest", mem0_requests.UPDATE_FIELDS),
    ]:
        assert set(schemas[name]["properties"]) == set(fields), name
    assert {"async_mode", "rerank", "org_id"} <= set(mem0_requests.SEARCH_FIELDS) | set(
        mem0_requests.ADD_FIELDS
    )
    query = {p["name"] for p in paths["/v1/memories/"]["get"]["parameters"] if p["in"] == "query"}
    assert query == set(mem0_requests.LIST_FIELDS) | {"scope"}
    search = paths["/v3/memories/search/"]["post"]
    assert search["operationId"] == "memories_search_v3"  # mem0's own name for it
    unauthenticated = search["responses"]["401"]["content"]["application/json"]["schema"]
    assert unauthenticated["$ref"].endswith("/Mem0ErrorBody")  # with mem0's `detail`


# -- real answers ---------------------------------------------------------------------------


class Driver:
    """Sends requests to one server, in one scope, and keeps every answer."""

    def __init__(self, answers: list[Answer], client: httpx.Client, scope: str) -> None:
        self.answers = answers
        self.client = client
        self.scope = scope

    def __call__(
        self, method: str, path: str, headers: dict[str, str] | None = None, **kw: Any
    ) -> httpx.Response:
        sent = {"X-Scope": self.scope, **(headers or {})}
        response = self.client.request(method, path, headers=sent, **kw)
        self.answers.append(Answer(method, path, response))
        return response


def write(drive: Driver) -> str:
    """Every decision a write can answer, and bad writes; the id of a superseding memory."""
    now = datetime.now(UTC)
    lisbon = {
        "content": "Melanie lives in Lisbon",
        "subject": "Melanie",
        "predicate": "lives_in",
        "object": "Lisbon",
        "tags": ["home"],
        "importance_score": 7,
        "partition_id": "people",
        "metadata": {"room": "kitchen"},
        "source": "chat",
        "expires_at": (now + timedelta(days=3)).isoformat(),
        "session_id": "s1",
        "turn": 1,
        "valid_from": (now - timedelta(days=1)).isoformat(),
    }
    assert drive("POST", "/api/v1/memories", json=lisbon).json()["decision"] == "insert"
    assert drive("POST", "/api/v1/memories", json=lisbon).json()["decision"] == "dedup"
    oslo = {**lisbon, "content": "Melanie lives in Oslo", "object": "Oslo", "turn": 2}
    del oslo["valid_from"]
    moved = drive("POST", "/api/v1/memories", json=oslo).json()
    assert moved["decision"] == "supersede"
    cat = {"content": "Her cat is called Tom", "partition_id": "people", "session_id": "s1"}
    assert drive("POST", "/api/v1/memories", json={**cat, "turn": 3}).status_code == 201
    held = drive("POST", "/api/v1/memories", json={"content": "a rumour", "source": "web"})
    assert held.json()["decision"] == "quarantine"
    for bad in [{"content": "x", "colour": "red"}, {"tags": ["x"]}, {"importance_score": 11}]:
        assert drive("POST", "/api/v1/memories", json=bad).status_code == 422
    assert drive("POST", "/api/v1/memories", content=b"{not json").status_code == 422

    two = {"memories": [{"content": "Tea at five"}, {"content": "Coffee at nine"}]}
    assert drive("POST", "/api/v1/memories/batch", json=two).status_code == 201
    one_bad = {"memories": [{"content": "fine"}, {"content": ""}]}
    refused = drive("POST", "/api/v1/memories/batch", json=one_bad)
    assert refused.json()["error"]["field"] == "memories[1].content"
    return str(moved["id"])


def read(drive: Driver, fact_id: str) -> None:
    """Search with the turns around its hits, history, and bad reads."""
    around = {"query": "where does Melanie live", "top_k": 1, "prev_turns": 1, "next_turns": 1}
    found = drive("POST", "/api/v1/search", json=around)
    assert found.json()["results"] and found.json()["related"], found.text
    for bad in [{"query": "x", "top_k": 0}, {"query": "x", "colour": 1}, {}, []]:
        assert drive("POST", "/api/v1/search", json=bad).status_code == 422
    assert len(drive("GET", f"/api/v1/memories/{fact_id}/history").json()["history"]) == 2
    assert drive("GET", "/api/v1/memories/no-such-id/history").status_code == 404
    refused = drive("GET", "/api/v1/memories/no%00such/history")
    assert refused.status_code == 422 and refused.json()["error"]["field"] == "memory_id"
    assert drive("GET", "/api/v1/standing").status_code == 200
    assert drive("GET", "/api/v1/standing", params={"kind": "rule"}).status_code == 422


def refuse_bodies(drive: Driver) -> None:
    """What the middlewares refuse before a route runs: a lone surrogate, a body too large."""
    surrogate = b'{"content": "broken \\ud800 text"}'
    huge = json.dumps({"content": "x" * 1_100_000}).encode()
    typed = {"Content-Type": "application/json"}
    for path in ["/api/v1/memories", "/api/v1/memories/batch", "/api/v1/search"]:
        assert drive("POST", path, content=surrogate, headers=typed).status_code == 400
        assert drive("POST", path, content=huge, headers=typed).status_code == 413


def refuse_callers(drive: Driver, token: str, fact_id: str) -> None:
    """On a server that requires keys: no key (401), a key of another scope (403)."""
    keyed = {"Authorization": f"Bearer {token}"}
    for method, path, body in [
        ("POST", "/api/v1/memories", {"content": "x"}),
        ("POST", "/api/v1/memories/batch", {"memories": [{"content": "x"}]}),
        ("POST", "/api/v1/search", {"query": "x"}),
        ("GET", f"/api/v1/memories/{fact_id}/history", None),
        ("GET", "/api/v1/standing", None),
    ]:
        assert drive(method, path, json=body).status_code == 401
        assert drive(method, path, json=body, headers=keyed).status_code == 403
    mem0_keyed = {"Authorization": f"Token {token}"}  # as mem0's clients send it
    for method, path, body in MEM0_CALLS:
        assert mem0_call(drive, method, path, body).status_code == 401
        assert mem0_call(drive, method, path, body, headers=mem0_keyed).status_code == 403


# -- mem0's routes (resolvers/mem0/): the project is the X-Scope the driver sends -------------


def mem0_writes(drive: Driver) -> tuple[str, str]:
    """Adds through both versions, updates, batches, feedback; the ids of two live memories."""
    alice = {"user_id": "alice", "infer": False}
    said = [{"role": "user", "content": "Alice lives in Porto"}]
    first = drive("POST", "/v1/memories/", json={**alice, "messages": said})
    porto = first.json()["results"][0]["id"]
    added = drive(
        "POST",
        "/v3/memories/add/",
        json={
            "messages": [{"role": "user", "content": "Alice plays the cello"}],
            "filters": {"user_id": "alice"},
            "metadata": {"topic": "music"},
            "infer": False,
        },
    )
    cello = added.json()["results"][0]["id"]
    event = drive("GET", f"/v1/event/{added.json()['event_id']}/")
    assert event.json()["status"] == "SUCCEEDED", event.text
    assert drive("GET", "/v1/event/no-such-id/").status_code == 404
    assert drive("GET", "/v1/event/no-such-id/", params={"colour": "red"}).status_code == 400
    tea = [{"role": "user", "content": "Bob likes tea"}]
    drive("POST", "/v3/memories/add/", json={"messages": tea, "user_id": "bob"})
    assert drive("POST", "/v1/memories/", json=alice).status_code == 400  # no messages
    assert drive("POST", "/v3/memories/add/", json={"messages": tea}).status_code == 400  # no id
    bare = {"messages": "Bob likes tea", "user_id": "bob"}  # mem0 takes a list only
    assert drive("POST", "/v3/memories/add/", json=bare).status_code == 400

    moved = drive("PUT", f"/v1/memories/{porto}/", json={"text": "Alice lives in Braga"})
    assert moved.status_code == 200, moved.text
    porto = moved.json()["id"]
    held = {"text": "Alice plays the cello"}  # another live memory's text
    assert drive("PUT", f"/v1/memories/{porto}/", json=held).status_code == 409
    assert drive("PUT", f"/v1/memories/{porto}/", json={}).status_code == 400
    assert drive("PUT", "/v1/memories/no-such-id/", json={"text": "x"}).status_code == 404

    batch = {"memories": [{"memory_id": cello, "metadata": {"topic": "strings"}}]}
    assert drive("PUT", "/v1/batch/", json=batch).status_code == 200
    assert drive("PUT", "/v1/batch/", json={"memories": []}).status_code == 400
    unknown = {"memories": [{"memory_id": "no-such-id", "text": "x"}]}
    assert drive("PUT", "/v1/batch/", json=unknown).status_code == 404
    clash = {"memories": [{"memory_id": cello, "text": "Alice lives in Braga"}]}
    assert drive("PUT", "/v1/batch/", json=clash).status_code == 409

    liked = {"memory_id": cello, "feedback": "POSITIVE", "feedback_reason": "true"}
    assert drive("POST", "/v1/feedback/", json=liked).status_code == 200
    assert drive("POST", "/v1/feedback/", json={**liked, "feedback": "meh"}).status_code == 400
    gone = {**liked, "memory_id": "no-such-id"}
    assert drive("POST", "/v1/feedback/", json=gone).status_code == 404
    return porto, cello


def mem0_reads(drive: Driver, porto: str, cello: str) -> None:
    """Ping, get, history, the three lists, the two searches, entities; bad reads."""
    odd = {"colour": "red"}  # a query field no route knows
    assert drive("GET", "/v1/ping/").json()["project_id"] == drive.scope
    assert drive("GET", "/v1/ping/", params=odd).status_code == 400
    assert drive("GET", f"/v1/memories/{porto}/").json()["memory"] == "Alice lives in Braga"
    assert drive("GET", f"/v1/memories/{porto}/", params=odd).status_code == 400
    assert drive("GET", "/v1/memories/no-such-id/").status_code == 404
    assert len(drive("GET", f"/v1/memories/{porto}/history/").json()) == 2
    assert drive("GET", f"/v1/memories/{porto}/history/", params=odd).status_code == 400
    assert drive("GET", "/v1/memories/no-such-id/history/").status_code == 404

    alice = {"user_id": "alice"}
    assert len(drive("GET", "/v1/memories/", params=alice).json()) == 2  # a list
    paged = drive("GET", "/v1/memories/", params={**alice, "page": 1, "page_size": 1})
    assert paged.json()["count"] == 2 and paged.json()["next"]
    assert drive("GET", "/v1/memories/", params=odd).status_code == 400
    for path in ["/v2/memories/", "/v3/memories/"]:
        assert drive("POST", path, json={"filters": alice}).status_code == 200
        assert drive("POST", path, json={"filters": {"colour": 1}}).status_code == 400
    asked = {"query": "which instrument does she play?", "filters": alice}
    for path in ["/v2/memories/search/", "/v3/memories/search/"]:
        found = drive("POST", path, json={**asked, "threshold": 0.01})
        hits = found.json() if path.startswith("/v2/") else found.json()["results"]
        assert hits and hits[0]["id"] == cello, found.text
        assert drive("POST", path, json={**asked, "threshold": 2}).status_code == 400
    assert drive("GET", "/v1/entities/").json()["total_users"] == 2
    assert drive("GET", "/v1/entities/", params=odd).status_code == 400


def mem0_deletes(drive: Driver, porto: str, cello: str) -> None:
    """One memory, a batch, the memories of ids, an entity; bad and unknown ones."""
    assert drive("DELETE", f"/v1/memories/{porto}/").status_code == 200
    assert drive("DELETE", f"/v1/memories/{porto}/").status_code == 404  # already forgotten
    assert drive("DELETE", f"/v1/memories/{cello}/", params={"x": "1"}).status_code == 400
    unknown = {"memories": [{"memory_id": "no-such-id"}]}
    assert drive("DELETE", "/v1/batch/", json=unknown).status_code == 404
    assert drive("DELETE", "/v1/batch/", json={"memories": "all"}).status_code == 400
    batch = {"memories": [{"memory_id": cello}]}
    assert drive("DELETE", "/v1/batch/", json=batch).status_code == 200
    assert drive("DELETE", "/v1/memories/", params={"user_id": "bob"}).json()["deleted"] == 1
    assert drive("DELETE", "/v1/memories/").status_code == 400  # names no id
    assert drive("DELETE", "/v2/entities/user/alice/").status_code == 200
    assert drive("DELETE", "/v2/entities/colour/red/").status_code == 400


def mem0_server(drive: Driver) -> None:
    """mem0's open-source server routes: create, list, get, update, history, search, delete,
    delete by ids, entities, reset; bad and unknown ones."""
    odd = {"colour": "red"}
    said = [{"role": "user", "content": "Cleo grows tomatoes"}]
    created = drive("POST", "/memories", json={"messages": said, "user_id": "cleo"})
    memory_id = created.json()["results"][0]["id"]
    assert drive("POST", "/memories", json={"messages": said}).status_code == 400  # no id
    assert drive("GET", "/memories", params={"user_id": "cleo"}).json()["results"]
    assert drive("GET", "/memories").json()["results"]  # every memory (an admin's call)
    assert drive("GET", "/memories", params=odd).status_code == 400
    assert drive("GET", f"/memories/{memory_id}").json()["id"] == memory_id
    assert drive("GET", "/memories/no-such-id").json() is None
    assert drive("GET", f"/memories/{memory_id}", params=odd).status_code == 400
    moved = drive("PUT", f"/memories/{memory_id}", json={"text": "Cleo grows peppers"})
    assert moved.status_code == 200, moved.text
    assert drive("PUT", f"/memories/{memory_id}", json={}).status_code == 400
    assert drive("PUT", "/memories/no-such-id", json={"text": "x"}).status_code == 404
    assert len(drive("GET", f"/memories/{memory_id}/history").json()) == 2
    assert drive("GET", f"/memories/{memory_id}/history", params=odd).status_code == 400
    asked = {"query": "what does Cleo grow?", "filters": {"user_id": "cleo"}, "threshold": 0}
    assert drive("POST", "/search", json=asked).json()["results"]
    assert drive("POST", "/search", json={"query": "x"}).status_code == 400  # names no id
    assert drive("DELETE", f"/memories/{memory_id}", params=odd).status_code == 400
    assert drive("DELETE", f"/memories/{memory_id}").status_code == 200
    assert drive("DELETE", f"/memories/{memory_id}").status_code == 404
    assert drive("DELETE", "/memories").status_code == 400  # names no id
    assert drive("DELETE", "/memories", params={"user_id": "cleo"}).status_code == 200
    drive("POST", "/memories", json={"messages": said, "user_id": "dora", "infer": False})
    assert ("user", "dora") in {(e["type"], e["id"]) for e in drive("GET", "/entities").json()}
    assert drive("GET", "/entities", params=odd).status_code == 400
    assert drive("DELETE", "/entities/user/dora").json() == {"message": "Entity deleted"}
    assert drive("DELETE", "/entities/app/dora").status_code == 400  # not a kind it knows
    assert drive("POST", "/reset", params=odd).status_code == 400
    assert drive("POST", "/reset").json() == {"message": "All memories reset"}
    for method, path in [
        ("POST", "/configure"),
        ("GET", "/configure"),
        ("GET", "/configure/providers"),
        ("POST", "/generate-instructions"),
    ]:
        assert drive(method, path).status_code == 501


# Each mem0 route with a request its handler would serve: for the refusals below.
MEM0_CALLS: list[tuple[str, str, Any]] = [
    ("GET", "/v1/ping/", None),
    ("POST", "/v1/memories/", {"messages": [{"role": "user", "content": "x"}], "user_id": "a"}),
    ("POST", "/v3/memories/add/", {"messages": [{"role": "user", "content": "x"}], "user_id": "a"}),
    ("GET", "/v1/event/e1/", None),
    ("GET", "/v1/memories/", {"user_id": "a"}),
    ("POST", "/v2/memories/", {"filters": {"user_id": "a"}}),
    ("POST", "/v3/memories/", {"filters": {"user_id": "a"}}),
    ("POST", "/v2/memories/search/", {"query": "x", "filters": {"user_id": "a"}}),
    ("POST", "/v3/memories/search/", {"query": "x", "filters": {"user_id": "a"}}),
    ("GET", "/v1/memories/m1/", None),
    ("PUT", "/v1/memories/m1/", {"text": "x"}),
    ("DELETE", "/v1/memories/m1/", None),
    ("DELETE", "/v1/memories/", {"user_id": "a"}),
    ("GET", "/v1/memories/m1/history/", None),
    ("GET", "/v1/entities/", None),
    ("DELETE", "/v2/entities/user/a/", None),
    ("PUT", "/v1/batch/", {"memories": [{"memory_id": "m1", "text": "x"}]}),
    ("DELETE", "/v1/batch/", {"memories": [{"memory_id": "m1"}]}),
    ("POST", "/v1/feedback/", {"memory_id": "m1"}),
    ("POST", "/memories", {"messages": [{"role": "user", "content": "x"}], "user_id": "a"}),
    ("GET", "/memories", {"user_id": "a"}),
    ("DELETE", "/memories", {"user_id": "a"}),
    ("GET", "/memories/m1", None),
    ("PUT", "/memories/m1", {"text": "x"}),
    ("DELETE", "/memories/m1", None),
    ("GET", "/memories/m1/history", None),
    ("POST", "/search", {"query": "x", "filters": {"user_id": "a"}}),
    ("POST", "/reset", None),
    ("GET", "/entities", None),
    ("DELETE", "/entities/user/a", None),
]


def mem0_call(drive: Driver, method: str, path: str, body: Any, **kw: Any) -> httpx.Response:
    """A query string for GET and DELETE on a collection, else a JSON body."""
    if body is not None and method in ("GET", "DELETE") and path.rstrip("/").endswith("/memories"):
        return drive(method, path, params=body, **kw)
    return drive(method, path, json=body, **kw)


def mem0_refusals(drive: Driver) -> None:
    """A lone surrogate and a body too large, on every mem0 route that takes a body."""
    surrogate = b'{"messages": "broken \\ud800 text", "user_id": "a"}'
    huge = json.dumps({"messages": "x" * 1_100_000}).encode()
    typed = {"Content-Type": "application/json"}
    for method, path, body in MEM0_CALLS:
        collection = path.rstrip("/").endswith("/memories")
        if body is None or method == "GET" or (collection and method == "DELETE"):
            continue
        assert drive(method, path, content=surrogate, headers=typed).status_code == 400
        assert drive(method, path, content=huge, headers=typed).status_code == 413


@pytest.fixture(scope="module")
def answers(
    server_url: str, secured: tuple[Starlette, str], db: Database, memory: Memory
) -> Iterator[list[Answer]]:
    """Every route, through its successes and errors, on the real service (module scope: the
    tests below read the same answers)."""
    scope = f"test-{uuid.uuid4().hex[:12]}"
    keys: KeyStore = secured[0].state.gate.keys
    key, token = keys.create([f"{scope}-other"], "writer")
    found: list[Answer] = []
    try:
        with httpx.Client(base_url=server_url, timeout=120) as http:
            drive = Driver(found, http, scope)
            for path in ["/healthz", "/metrics", "/openapi.json"]:
                assert drive("GET", path).status_code == 200
            fact_id = write(drive)
            read(drive, fact_id)
            refuse_bodies(drive)
            porto, cello = mem0_writes(drive)
            mem0_reads(drive, porto, cello)
            mem0_deletes(drive, porto, cello)
            mem0_server(drive)
            mem0_refusals(drive)
        with httpx.Client(base_url=secured[1], timeout=120) as http:
            refuse_callers(Driver(found, http, scope), token, fact_id)
        yield found
    finally:
        keys.delete(key.id)
        db.write("scope_delete", {"scope": scope})
        drop(memory, scope)  # the mem0 project's scopes


def operation_of(doc: dict[str, Any], answer: Answer) -> tuple[str, dict[str, Any]]:
    for template, methods in doc["paths"].items():
        pattern = re.sub(r"\{[^}]+\}", "[^/]+", template)
        if re.fullmatch(pattern, answer.path) and answer.method.lower() in methods:
            return template, methods[answer.method.lower()]
    raise AssertionError(f"{answer.method} {answer.path} is not in the document")


def offset_date_time(value: object) -> bool:
    """RFC 3339's date-time: ISO 8601 with its offset."""
    return not isinstance(value, str) or datetime.fromisoformat(value).tzinfo is not None


def validator(doc: dict[str, Any], schema: dict[str, Any]) -> Draft202012Validator:
    """`schema` with the document's components beside it, where its `$ref`s point."""
    checker = FormatChecker()
    checker.checks("date-time", raises=ValueError)(offset_date_time)
    return Draft202012Validator({**schema, "components": doc["components"]}, format_checker=checker)


def test_every_answer_matches_its_documented_schema(
    answers: list[Answer], doc: dict[str, Any]
) -> None:
    assert len(answers) > 30
    for answer in answers:
        _, op = operation_of(doc, answer)
        status = str(answer.response.status_code)
        where = f"{answer.method} {answer.path} answered {status}"
        assert status in op["responses"], f"{where}, which the document does not list"
        content = op["responses"][status]["content"]
        media = answer.response.headers["content-type"].split(";")[0]
        assert media in content, f"{where} as {media}"
        body = answer.response.json() if media == "application/json" else answer.response.text
        errors = list(validator(doc, content[media]["schema"]).iter_errors(body))
        assert errors == [], f"{where}: {[e.message for e in errors]}"


def test_every_documented_answer_was_produced(answers: list[Answer], doc: dict[str, Any]) -> None:
    produced = set()
    for answer in answers:
        template, _ = operation_of(doc, answer)
        produced.add((answer.method.lower(), template, str(answer.response.status_code)))
    documented = {
        (method, template, status)
        for template, methods in doc["paths"].items()
        for method, op in methods.items()
        for status in op["responses"]
        if status not in UNDRIVEN
    }
    assert sorted(documented - produced) == []


def test_a_drifting_answer_fails_the_check(doc: dict[str, Any]) -> None:
    """The check bites: a memory record with a field too many, or a date without its offset."""
    schema = doc["paths"]["/api/v1/memories"]["post"]["responses"]["201"]["content"]
    check = validator(doc, schema["application/json"]["schema"])
    record = {
        "id": "f1",
        "partition_id": "default",
        "content": "x",
        "importance_score": 5.0,
        "tags": [],
        "metadata": {},
        "source": None,
        "created_at": "2026-01-01T10:00:00+00:00",
        "updated_at": None,
        "last_accessed_at": None,
        "access_count": 0,
        "expires_at": None,
        "decision": "insert",
        "matched_id": None,
    }
    assert list(check.iter_errors(record)) == []
    assert list(check.iter_errors({**record, "colour": "red"}))
    assert list(check.iter_errors({**record, "created_at": "2026-01-01T10:00:00"}))
    assert list(check.iter_errors({**record, "decision": "maybe"}))


def test_the_docs_page_and_its_assets_are_served_from_here(server_url: str) -> None:
    """/docs, as on mem0's server: Swagger UI over /openapi.json, every file it loads served by
    this server, so it works without internet (tests/test_console.py renders it in Chromium)."""
    with httpx.Client(base_url=server_url, timeout=60) as http:
        page = http.get("/docs")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        linked = re.findall(r'(?:src|href)="([^"]+)"', page.text)
        assert "/docs/assets/swagger-ui-bundle.js" in linked
        assert all(url.startswith("/") and not url.startswith("//") for url in linked), linked
        for url in linked:
            assert http.get(url).status_code == 200, url
        script = http.get("/docs/assets/docs.js").text
        assert 'url: "/openapi.json"' in script and "validatorUrl: null" in script
        assert http.get("/docs/", follow_redirects=True).url.path == "/docs"
