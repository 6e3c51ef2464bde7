"""Logs an operator can alert on: ERROR means the service got something wrong.

A request the client got wrong (bad input, a syntax error, an unknown id, a missing key or
role) is one INFO access-log line carrying its request id and code, over GraphQL, REST (and
mem0's API) and MCP alike; a fault of the service is still an ERROR line with its traceback.
The lines are read as the operator reads them: formatted by the service's JSON formatter as
they are written.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from mcp.client.session import ClientSession
from starlette.applications import Starlette

from graph.auth.apikeys import KeyStore
from graph.memory import Memory
from graph.observability.logs import JsonFormatter
from tests.mcp_helpers import failed, over_http

REMEMBER = """mutation($scope: String!, $text: String!) {
  remember(scope: $scope, fact: {text: $text}) { kind }
}"""
SEARCH = (
    "query($scope: String!, $q: String!) { search(scope: $scope, query: $q) { hits { score } } }"
)
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


class JsonLines(logging.Handler):
    """Every log line of the process, as the JSON the service writes (formatted as it is
    written, so the request id and trace of the thread that wrote it are in it)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.setFormatter(JsonFormatter())
        self.lines: list[dict[str, Any]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(json.loads(self.format(record)))

    def errors(self) -> list[dict[str, Any]]:
        return [line for line in self.lines if line["level"] in ("error", "critical")]

    def access(self, request_id: str) -> list[dict[str, Any]]:
        return [
            line
            for line in self.lines
            if line["logger"] == "factgraph.access" and line.get("request_id") == request_id
        ]


@pytest.fixture
def logs(caplog: pytest.LogCaptureFixture) -> Iterator[JsonLines]:
    caplog.set_level(logging.INFO)
    handler = JsonLines()
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield handler
    finally:
        root.removeHandler(handler)


class Keys:
    def __init__(self, store: KeyStore) -> None:
        self.store = store
        self.made: list[str] = []

    def __call__(self, scopes: list[str], role: str) -> str:
        key, token = self.store.create(scopes, role)
        self.made.append(key.id)
        return token


@pytest.fixture
def keys(secured: tuple[Starlette, str]) -> Iterator[Keys]:
    store = secured[0].state.gate.keys
    assert store is not None
    made = Keys(store)
    yield made
    for key_id in made.made:
        store.delete(key_id)


# Arrays nested past the body check's 64 levels (resolvers/http/json_guard.py).
DEEP: Any = []
for _ in range(100):
    DEEP = [DEEP]


def test_a_run_of_bad_requests_writes_no_error_line_and_one_info_line_each(
    secured: tuple[Starlette, str], keys: Keys, logs: JsonLines, scope: str, other_scope: str
) -> None:
    writer = {"Authorization": f"Bearer {keys([scope], 'writer')}"}
    reader = {"Authorization": f"Bearer {keys([scope], 'reader')}"}
    both = {"Authorization": f"Bearer {keys([scope, other_scope], 'reader')}"}
    mine = {"scope": scope}
    # (method, path, headers, JSON body, the code the log line must carry)
    bad: list[tuple[str, str, dict[str, str], Any, str]] = [
        ("POST", "/graphql", writer, {"query": REMEMBER, "variables": {**mine, "text": "   "}},
         "BAD_USER_INPUT"),
        ("POST", "/graphql", writer, {"query": "{ health { ok "}, "GRAPHQL_PARSE_FAILED"),
        ("POST", "/graphql", writer, {"query": "{ nosuch }"}, "GRAPHQL_VALIDATION_FAILED"),
        ("POST", "/graphql", writer,
         {"query": "query($t: DateTime) { fact(scope: \"s\", id: \"x\", asOf: $t) { id } }",
          "variables": {"t": "last tuesday"}}, "GRAPHQL_VALIDATION_FAILED"),
        ("POST", "/graphql", writer,
         {"query": "mutation($scope: String!) { forget(scope: $scope, id: \"nope\") { id } }",
          "variables": mine}, "NOT_FOUND"),
        ("POST", "/graphql", reader, {"query": REMEMBER, "variables": {**mine, "text": "x"}},
         "FORBIDDEN"),
        ("POST", "/graphql", writer,
         {"query": SEARCH, "variables": {"scope": other_scope, "q": "x"}}, "FORBIDDEN"),
        ("POST", "/graphql", {}, {"query": SEARCH, "variables": {**mine, "q": "x"}},
         "UNAUTHENTICATED"),
        ("POST", "/graphql", {"Authorization": "Bearer fgk_nope"}, {"query": "{ health { ok } }"},
         "UNAUTHENTICATED"),
        ("POST", "/api/v1/search", {**writer, "X-Scope": scope}, {"query": 5}, "BAD_USER_INPUT"),
        ("POST", "/api/v1/search", {**writer, "X-Scope": scope}, {"query": "x", "top_k": 0},
         "BAD_USER_INPUT"),
        ("POST", "/api/v1/memories", {**writer, "X-Scope": scope}, {"bogus": 1},
         "BAD_USER_INPUT"),
        ("GET", "/api/v1/memories/nope/history", {**writer, "X-Scope": scope}, None, "NOT_FOUND"),
        ("POST", "/api/v1/memories", {**reader, "X-Scope": scope}, {"content": "x"},
         "FORBIDDEN"),
        ("POST", "/api/v1/memories", {**writer, "X-Scope": scope},
         {"content": "x", "valid_from": "2024-01-01T00:00:00+23:00"}, "BAD_USER_INPUT"),
        ("POST", "/api/v1/memories/batch", {**writer, "X-Scope": scope},
         {"memories": [{"content": "x", "turn": 2**70}]}, "BAD_USER_INPUT"),
        ("POST", "/api/v1/memories", {**writer, "X-Scope": scope}, {"content": DEEP},
         "BAD_USER_INPUT"),
        ("POST", "/v1/memories/", writer, [], "BAD_USER_INPUT"),  # mem0's API
        ("POST", "/mcp", {**both, **MCP_HEADERS}, {}, "BAD_USER_INPUT"),  # which scope?
        ("POST", "/mcp", {**writer, **MCP_HEADERS, "X-Scope": scope},
         {"jsonrpc": "2.0", "id": 1, "method": "tools/nope", "params": {}}, "METHOD_NOT_FOUND"),
        ("POST", "/mcp", {**writer, **MCP_HEADERS, "X-Scope": scope},
         {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
          "params": {"name": "search", "arguments": {"query": 5}}}, "BAD_USER_INPUT"),
        ("POST", "/mcp", {**writer, **MCP_HEADERS, "X-Scope": scope},
         {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
          "params": {"name": "remember", "arguments": {"text": ""}}}, "BAD_USER_INPUT"),
        ("POST", "/mcp", {**reader, **MCP_HEADERS, "X-Scope": scope},
         {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
          "params": {"name": "remember", "arguments": {"text": "x"}}}, "FORBIDDEN"),
    ]  # fmt: skip
    sent: list[tuple[str, str]] = []
    with httpx.Client(base_url=secured[1], timeout=120) as client:
        for method, path, headers, body, code in bad:
            rid = f"bad-{uuid.uuid4().hex[:12]}"
            answer = client.request(
                method, path, json=body, headers={**headers, "X-Request-ID": rid}
            )
            assert answer.status_code < 500, answer.text
            sent.append((rid, code))

    async def mistakes(session: ClientSession) -> list[dict[str, Any]]:  # the SDK's own client
        return [
            failed(await session.call_tool("no_such_tool", {})),
            failed(await session.call_tool("search", {"query": "x", "top_k": 500})),
        ]

    assert [e["code"] for e in over_http(secured[1], mistakes, token=keys([scope], "writer"))] == [
        "BAD_USER_INPUT",
        "BAD_USER_INPUT",
    ]
    assert logs.errors() == []
    for rid, code in sent:
        (line,) = logs.access(rid)  # once: one line per request
        assert line["level"] == "info" and line["code"] == code, line
        assert line["error"] and line["status"] < 500
    assert not any(line["logger"].startswith("strawberry") for line in logs.lines)


def test_a_fault_of_the_service_is_still_an_error_line_with_its_traceback(
    server_url: str,
    memory: Memory,
    logs: JsonLines,
    scope: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the disk is on fire")

    monkeypatch.setattr(memory, "search", broken)
    with httpx.Client(base_url=server_url, timeout=120) as client:
        graphql = client.post(
            "/graphql",
            json={"query": SEARCH, "variables": {"scope": scope, "q": "x"}},
            headers={"X-Request-ID": "fault-graphql"},
        )
        rest = client.post(
            "/api/v1/search",
            json={"query": "x"},
            headers={"X-Scope": scope, "X-Request-ID": "fault-rest"},
        )
        mcp = client.post(
            "/mcp",
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "search", "arguments": {"query": "x"}},
            },
            headers={**MCP_HEADERS, "X-Scope": scope, "X-Request-ID": "fault-mcp"},
        )
    assert graphql.json()["errors"][0]["extensions"]["code"] == "INTERNAL_SERVER_ERROR"
    assert rest.status_code == 500
    assert mcp.json()["result"]["structuredContent"]["error"]["code"] == "INTERNAL_SERVER_ERROR"
    for body in (graphql.text, rest.text, mcp.text):
        assert "disk is on fire" not in body
    errors = logs.errors()
    assert sorted(line["request_id"] for line in errors) == [
        "fault-graphql",
        "fault-mcp",
        "fault-rest",
    ], "each fault is one ERROR line"
    assert all("RuntimeError: the disk is on fire" in line["exception"] for line in errors)
