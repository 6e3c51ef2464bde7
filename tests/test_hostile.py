"""Hostile input: limits on documents and bodies, hostile strings everywhere, a schema fuzzer.

The contract under test: whatever a caller sends, the answer is a 2xx/4xx (never a 5xx), it is
JSON or a short text, and it never carries a stack trace. Property tests count every input they
send; `-s` prints the totals (the closing note of issue 9 quotes them).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

import graphql
import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_graphql import Mode, from_schema
from neo4j import ManagedTransaction, Record

from graph.errors import ValidationError
from graph.memory import Memory
from graph.storage.db import Database, run
from resolvers.graphql.limits import MAX_ALIASES, MAX_DEPTH, MAX_TOKENS
from resolvers.graphql.schema import schema
from tests.mcp_helpers import ToolsOverHttp

TRIED: Counter[str] = Counter()

HOSTILE = [
    "",
    " ",
    "\t\n\r",
    '" OR 1=1 --',
    "title:(foo AND bar) OR baz~0.8 AND qux^10",
    'AND OR NOT ~ * ? \\ : ( ) [ ] { } ^ " / + - && || !',
    "*:*",
    "/.*/",
    "\\",
    '"unterminated',
    "foo~~~~~~~~~~~~~~~~",
    "(((((((((((((((((((((((((((((((x",
    "') MATCH (n) DETACH DELETE n //",
    '"}) MATCH (f:Fact) RETURN f //',
    "$scope",
    "{scope: 'other'}",
    "CALL db.index.fulltext.queryNodes('fact_fulltext', '*')",
    "`; DROP CONSTRAINT fact_id;`",
    "\u202eevil\u202c",
    "zero\u200bwidth\u200djoiner\ufeff",
    "e\u0301\u0301\u0301\u0301\u0301",
    "\U0001f9e0\U0001f525" * 50,
    "\x00nul",
    "\ud800 lone surrogate",
    "\uffff\ufffe",
    "Ω≈ç√∫µ≤≥÷ 田中さん ﷽",
    "a" * 9_000,
    "word " * 4_000,
    "%s%n%x%d",
    "${jndi:ldap://x}",
    "<script>alert(1)</script>",
    "../../../../etc/passwd",
]

hostile_text = st.one_of(st.sampled_from(HOSTILE), st.text(max_size=300))
FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def assert_clean(response: httpx.Response) -> None:
    """No 5xx, no stack trace, a JSON body unless it is one of strawberry's short 400 texts."""
    assert response.status_code < 500, response.text[:500]
    assert "Traceback" not in response.text and 'File "' not in response.text
    if response.headers.get("content-type", "").startswith("application/json"):
        body = json.loads(response.text)
        errors = body.get("errors") if isinstance(body, dict) else None
        codes = {(e.get("extensions") or {}).get("code") for e in errors or []}
        assert "INTERNAL_SERVER_ERROR" not in codes, response.text[:500]
    else:
        assert response.status_code in (400, 404, 405, 413) and len(response.text) < 500


@pytest.fixture(scope="module", autouse=True)
def report() -> Iterator[None]:
    yield
    print(f"\nhostile inputs tried: {dict(TRIED)} total={sum(TRIED.values())}")


def post_json(
    http: httpx.Client, path: str, payload: object, headers: dict[str, str] | None = None
) -> httpx.Response:
    """POST with ASCII-escaped JSON, so lone surrogates travel as `\\ud800` like any client's."""
    body = json.dumps(payload, ensure_ascii=True)
    response = http.post(
        path, content=body, headers={"content-type": "application/json", **(headers or {})}
    )
    assert_clean(response)
    return response


def gql(http: httpx.Client, query: str, **variables: Any) -> httpx.Response:
    return post_json(http, "/graphql", {"query": query, "variables": variables})


# -- limits --------------------------------------------------------------------------------
def test_too_deep_a_document_is_refused(http: httpx.Client) -> None:
    """Today's schema has no cycles; the limit guards the day one is added."""
    query = "{ health " + "{ x " * (MAX_DEPTH + 2) + "}" * (MAX_DEPTH + 3)
    messages = [e["message"] for e in gql(http, query).json()["errors"]]
    assert any("exceeds maximum operation depth" in m for m in messages), messages


def test_too_many_aliases_are_refused(http: httpx.Client) -> None:
    query = "{ " + " ".join(f"a{i}: health {{ ok }}" for i in range(MAX_ALIASES + 1)) + " }"
    body = gql(http, query).json()
    assert "aliases" in body["errors"][0]["message"].lower()


def test_limits_hold_for_a_document_sent_again(http: httpx.Client) -> None:
    """Validation is done once per distinct document; a refused one is refused every time."""
    deep = "{ health " + "{ x " * (MAX_DEPTH + 2) + "}" * (MAX_DEPTH + 3)
    many = "{ " + " ".join(f"a{i}: health {{ ok }}" for i in range(MAX_ALIASES + 1)) + " }"
    for _ in range(3):
        assert gql(http, deep).json()["errors"]
        assert gql(http, many).json()["errors"]
    for _ in range(3):  # and a valid document stays valid, errors and data alike
        assert gql(http, "{ health { ok } }").json() == {"data": {"health": {"ok": True}}}
        unknown = gql(http, "{ health { nope } }").json()
        assert "Cannot query field 'nope'" in unknown["errors"][0]["message"]


def test_too_many_tokens_are_refused(http: httpx.Client) -> None:
    query = "{ health { " + "ok " * MAX_TOKENS + "} }"
    body = gql(http, query).json()
    assert "token" in body["errors"][0]["message"].lower()


def test_an_oversized_body_is_413_announced_or_streamed(http: httpx.Client) -> None:
    big = json.dumps({"query": "{ health { ok } }", "pad": "x" * 2_000_000})
    announced = http.post("/graphql", content=big, headers={"content-type": "application/json"})
    assert announced.status_code == 413
    assert announced.json()["errors"][0]["extensions"]["code"] == "PAYLOAD_TOO_LARGE"

    def chunks() -> Iterator[bytes]:
        data = big.encode()
        for i in range(0, len(data), 65_536):
            yield data[i : i + 65_536]

    streamed = http.post("/graphql", content=chunks(), headers={"content-type": "application/json"})
    assert streamed.status_code == 413


def test_garbage_bodies_are_400_not_500(http: httpx.Client) -> None:
    for body in (b"", b"{", b"[]", b"null", b'{"query": 5}', b"\xff\xfe", b'{"query": "{"}'):
        response = http.post("/graphql", content=body, headers={"content-type": "application/json"})
        TRIED["garbage_body"] += 1
        assert_clean(response)


# -- hostile strings -----------------------------------------------------------------------
REMEMBER = """mutation($scope: String!, $text: String!, $subject: String, $tags: [String!]) {
  remember(scope: $scope, fact: {text: $text, subject: $subject, tags: $tags}) { kind }
}"""
GET = "query($scope: String!, $id: ID!) { fact(scope: $scope, id: $id) { id } }"


@FUZZ
@given(text=hostile_text, subject=hostile_text)
def test_hostile_strings_in_writes(http: httpx.Client, scope: str, text: str, subject: str) -> None:
    TRIED["graphql_remember"] += 1
    gql(http, REMEMBER, scope=scope, text=text, subject=subject, tags=[subject[:60]])


@FUZZ
@given(value=hostile_text)
def test_hostile_strings_as_ids_and_scopes(http: httpx.Client, value: str) -> None:
    TRIED["graphql_get"] += 2
    gql(http, GET, scope=value or "x", id=value)
    gql(http, GET, scope="hostile-probe", id=value)


@FUZZ
@given(query=hostile_text)
def test_hostile_search_queries(http: httpx.Client, scope: str, query: str) -> None:
    if "search" not in schema.as_str():
        pytest.skip("no search field in this build")
    TRIED["graphql_search"] += 1
    gql(
        http,
        "query($s: String!, $q: String!) { search(scope: $s, query: $q) { __typename } }",
        s=scope,
        q=query,
    )
    TRIED["rest_search"] += 1
    post_json(http, "/api/v1/search", {"query": query}, {"X-Scope": scope})


@FUZZ
@given(
    body=st.one_of(
        st.dictionaries(
            st.sampled_from(["query", "top_k", "tags", "weight_recency"]),
            st.one_of(
                hostile_text,
                st.integers(),
                st.floats(),
                st.none(),
                st.lists(hostile_text, max_size=3),
            ),
        ),
        st.lists(st.integers(), max_size=3),
        hostile_text,
    ),
    header=hostile_text,
)
def test_hostile_rest_bodies_and_headers(http: httpx.Client, body: object, header: str) -> None:
    TRIED["rest_body"] += 1
    printable = "".join(c for c in header.encode("ascii", "ignore").decode() if c.isprintable())
    post_json(http, "/api/v1/search", body, {"X-Scope": printable[:200].strip() or "x"})


# -- schema fuzzer -------------------------------------------------------------------------
def _scopes_in(document: str) -> set[str]:
    """Scope literals a generated document names, so their data can be deleted afterwards."""
    found: set[str] = set()
    try:
        ast = graphql.parse(document)
    except graphql.GraphQLError:
        return found

    class Visitor(graphql.Visitor):
        def enter_argument(self, node: graphql.ArgumentNode, *_: object) -> None:
            if node.name.value == "scope" and isinstance(node.value, graphql.StringValueNode):
                found.add(node.value.value)

    graphql.visit(ast, Visitor())
    return found


@pytest.fixture
def cleanup(db: Database) -> Iterator[set[str]]:
    scopes: set[str] = set()
    yield scopes
    for name in scopes:
        db.write("scope_delete", {"scope": name})


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(document=from_schema(schema.as_str(), mode=Mode.POSITIVE))
def test_schema_fuzz_valid_documents(http: httpx.Client, cleanup: set[str], document: str) -> None:
    TRIED["fuzz_valid"] += 1
    cleanup.update(_scopes_in(document))
    post_json(http, "/graphql", {"query": document})


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(document=from_schema(schema.as_str(), mode=Mode.NEGATIVE))
def test_schema_fuzz_invalid_documents(
    http: httpx.Client, cleanup: set[str], document: str
) -> None:
    TRIED["fuzz_invalid"] += 1
    cleanup.update(_scopes_in(document))
    post_json(http, "/graphql", {"query": document})


# -- scope isolation -----------------------------------------------------------------------
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(text=st.text(min_size=1, max_size=200).filter(lambda t: t.strip() and "\x00" not in t))
def test_nothing_written_in_one_scope_is_visible_from_another(
    http: httpx.Client, memory: Memory, scope: str, other_scope: str, text: str
) -> None:
    TRIED["isolation"] += 1
    try:
        fact = memory.remember(scope, {"text": text})
    except Exception as exc:  # refused input is fine; it must be a clear FactgraphError
        from graph.errors import FactgraphError

        assert isinstance(exc, FactgraphError)
        return
    assert memory.get(other_scope, fact.id) is None
    seen = gql(http, GET, scope=other_scope, id=fact.id).json()
    assert seen["data"]["fact"] is None
    if hasattr(memory, "search"):
        assert fact.id not in repr(memory.search(other_scope, text))


def test_unpaired_surrogates_are_400_on_graphql_and_rest(http: httpx.Client, scope: str) -> None:
    for path, payload in (
        ("/graphql", {"query": REMEMBER, "variables": {"scope": scope, "text": "a\ud800b"}}),
        ("/api/v1/search", {"query": "\udfff"}),
    ):
        response = post_json(http, path, payload, {"X-Scope": scope})
        TRIED["surrogate"] += 1
        assert response.status_code == 400
        assert "unpaired UTF-16 surrogate" in response.text


# -- values no route could take: refused where they enter, the connection left usable --------
FAR_OFFSET = "2024-01-01T00:00:00+23:00"


def assert_refused(response: httpx.Response, field: str, *, status: tuple[int, ...]) -> None:
    """A 4xx naming `field` (REST's and mem0's `error.field`, GraphQL's extensions)."""
    assert response.status_code in status, response.text[:500]
    body = response.json()
    if "errors" in body:
        error = body["errors"][0]
        assert error["extensions"]["code"] in ("BAD_USER_INPUT", "BAD_REQUEST"), body
        assert field in error["message"], body
    else:
        assert body["error"]["field"] == field, body


def assert_still_serving(http: httpx.Client, scope: str) -> None:
    """The next request, on the same server and its pool of Neo4j connections, writes and
    reads: a bad offset that reached the driver used to leave a connection out of step."""
    for _ in range(3):  # more than one connection of the pool
        written = http.post(
            "/api/v1/memories", json={"content": "still serving"}, headers={"X-Scope": scope}
        )
        assert written.status_code == 201, written.text
        found = http.post("/api/v1/search", json={"query": "serving"}, headers={"X-Scope": scope})
        assert found.status_code == 200 and found.json()["results"], found.text


def test_a_time_zone_offset_past_18_hours_is_refused_on_every_interface(
    http: httpx.Client, scope: str
) -> None:
    rest = {"content": "far away", "valid_from": FAR_OFFSET}
    assert_refused(
        http.post("/api/v1/memories", json=rest, headers={"X-Scope": scope}),
        "valid_from",
        status=(422,),
    )
    batch = {"memories": [{"content": "far away", "expires_at": FAR_OFFSET}]}
    assert_refused(
        http.post("/api/v1/memories/batch", json=batch, headers={"X-Scope": scope}),
        "memories[0].expires_at",
        status=(422,),
    )
    mem0 = {
        "messages": [{"role": "user", "content": "far away"}],
        "user_id": "u1",
        "infer": False,
        "expiration_date": FAR_OFFSET,
    }
    assert_refused(
        http.post("/v1/memories/", json=mem0, headers={"X-Scope": scope}),
        "expiration_date",
        status=(400,),
    )
    remember = """mutation($scope: String!, $at: DateTime) {
      remember(scope: $scope, fact: {text: "far away", validTo: $at}) { kind } }"""
    search = """query($scope: String!, $at: DateTime) {
      search(scope: $scope, query: "far", options: {asOf: $at}) { hits { score } } }"""
    for document, field in ((remember, "valid_to"), (search, "asOf")):
        answer = http.post(
            "/graphql", json={"query": document, "variables": {"scope": scope, "at": FAR_OFFSET}}
        )
        assert_refused(answer, field, status=(200,))
    assert_still_serving(http, scope)


def test_an_offset_of_18_hours_is_stored(http: httpx.Client, scope: str) -> None:
    """The edge Neo4j keeps: ±18:00 itself."""
    body = {"content": "at the edge", "valid_from": "2024-01-01T00:00:00-18:00"}
    answer = http.post("/api/v1/memories", json=body, headers={"X-Scope": scope})
    assert answer.status_code == 201, answer.text


def test_an_integer_past_64_bits_is_refused(http: httpx.Client, scope: str) -> None:
    """And a turn near 2**63, whose turn window overflowed in Cypher: turns stop at 2**53 - 1,
    the largest integer every JSON client reads exactly."""
    for turn in (175916406307078471680, 2**63 - 1, 2**53):
        batch = {"memories": [{"content": "a long turn", "turn": turn}]}
        assert_refused(
            http.post("/api/v1/memories/batch", json=batch, headers={"X-Scope": scope}),
            "memories[0].turn",
            status=(422,),
        )
    kept = {"content": "the last turn", "session_id": "long", "turn": 2**53 - 1}
    assert http.post("/api/v1/memories", json=kept, headers={"X-Scope": scope}).status_code == 201
    assert_still_serving(http, scope)


def test_an_integer_written_as_a_float_is_that_integer(http: httpx.Client, scope: str) -> None:
    """JSON Schema counts 9.0 as an integer, and JavaScript clients may send it so."""
    body = {"content": "turn nine", "session_id": "s", "turn": 9.0}
    answer = http.post("/api/v1/memories", json=body, headers={"X-Scope": scope})
    assert answer.status_code == 201, answer.text


DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/v1/memories", '{"content": ' + DEEP + "}"),
        ("/v1/memories/", '{"messages": ' + DEEP + "}"),
        ("/graphql", '{"query": "{ health { ok } }", "variables": {"a": ' + DEEP + "}}"),
    ],
)
def test_a_document_nested_100000_deep_is_refused(
    http: httpx.Client, scope: str, path: str, body: str
) -> None:
    answer = http.post(
        path, content=body, headers={"content-type": "application/json", "X-Scope": scope}
    )
    assert_refused(answer, "body", status=(400,))
    assert "deeper than 64 levels" in answer.text


def test_nesting_within_the_limit_is_kept(http: httpx.Client, scope: str) -> None:
    nested: object = "leaf"
    for _ in range(60):
        nested = {"n": nested}
    body = {"content": "deep metadata", "metadata": {"tree": nested}}
    answer = http.post("/api/v1/memories", json=body, headers={"X-Scope": scope})
    assert answer.status_code == 201, answer.text


def test_invalid_utf8_is_a_graphql_shaped_400(http: httpx.Client) -> None:
    answer = http.post(
        "/graphql",
        content=b'{"query": "{ health { ok } }\xff"}',
        headers={"content-type": "application/json"},
    )
    assert answer.status_code == 400
    error = answer.json()["errors"][0]
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
    assert "not valid UTF-8" in error["message"]
    too_deep = "[" * 100 + "]" * 100  # a URL holds no more than that
    deep_get = http.get(
        "/graphql", params={"query": "{ health { ok } }", "variables": '{"a": ' + too_deep + "}"}
    )
    assert deep_get.status_code == 400
    assert "deeper than 64 levels" in deep_get.json()["errors"][0]["message"]


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("PUT", "/v1/memories/", "DELETE, GET, HEAD, POST"),
        ("POST", "/v1/memories/some-id/", "DELETE, GET, HEAD, PUT"),
        ("GET", "/v1/batch/", "DELETE, PUT"),
        ("DELETE", "/api/v1/search", "POST"),
    ],
)
def test_405_names_every_method_the_path_serves(
    http: httpx.Client, method: str, path: str, allowed: str
) -> None:
    answer = http.request(method, path)
    assert answer.status_code == 405
    assert answer.headers["allow"] == allowed
    assert answer.json()["error"]["code"] == "METHOD_NOT_ALLOWED"


def test_an_unknown_path_is_a_json_404(http: httpx.Client) -> None:
    answer = http.get("/v1/no-such-route/")
    assert answer.status_code == 404
    assert answer.json()["error"]["code"] == "NOT_FOUND"


def test_an_entity_id_with_a_slash_is_addressable(http: httpx.Client, scope: str) -> None:
    """mem0's ids may hold `/`; the delete route takes the rest of the path as the id, so the
    encoded and the plain form both reach it (decoded once)."""
    for encoded in ("team%2Falice", "team/alice"):
        add = {
            "messages": [{"role": "user", "content": f"Alice is on the team ({encoded})"}],
            "user_id": "team/alice",
            "infer": False,
        }
        written = http.post("/v1/memories/", json=add, headers={"X-Scope": scope})
        assert written.status_code == 200, written.text
        deleted = http.delete(f"/v2/entities/user/{encoded}/", headers={"X-Scope": scope})
        assert deleted.status_code == 200, deleted.text
        assert deleted.json()["deleted"] == 1
    twice = http.delete("/v2/entities/user/team%252Falice/", headers={"X-Scope": scope})
    assert twice.json()["deleted"] == 0  # `%252F` is the id `team%2Falice`: decoded once


def test_a_fact_id_with_a_slash_is_refused_at_write(memory: Memory, scope: str) -> None:
    """A fact id is a path segment of mem0's and REST's routes: one with `/` could never be
    addressed there, so it is not written."""
    with pytest.raises(ValidationError) as refused:
        memory.remember(scope, {"text": "an awkward id", "id": "a/b"})
    assert refused.value.field == "id"


def test_mcp_tool_arguments_get_the_same_checks(server_url: str, scope: str) -> None:
    """MCP's `remember` takes the same values: a tool error naming the field, no fault."""
    tools = ToolsOverHttp(server_url, "/mcp", scope)
    assert tools.failed("remember", text="far away", valid_from=FAR_OFFSET)["field"] == "valid_from"
    assert tools.failed("remember", text="a long turn", turn=2**70)["field"] == "turn"
    assert tools.ok("remember", text="still serving over MCP")


def test_no_query_carries_what_bolt_cannot(db: Database) -> None:
    """The last line, under every check where values enter: a parameter Neo4j would refuse
    mid-transaction (an offset past ±18:00) or the driver could not pack (an integer past 64
    bits) is refused before the query is sent, naming the parameter, and the next query runs."""
    far = datetime(2024, 1, 1, tzinfo=timezone(timedelta(hours=23)))
    cases: list[dict[str, Any]] = [{"at": far}, {"rows": [{"turn": 2**64}]}]
    for params in cases:
        with pytest.raises(ValidationError) as refused:
            db.read("health_ping", params)
        assert refused.value.field in ("at", "turn")

        def work(tx: ManagedTransaction, params: dict[str, Any] = params) -> list[Record]:
            return run(tx, "health_ping", **params)

        with pytest.raises(ValidationError):
            db.write_tx(work)
    assert db.read("health_ping")


GQL_REMEMBER = """mutation($scope: String!, $fact: FactInput!) {
  remember(scope: $scope, fact: $fact) { kind } }"""
GQL_SEARCH = """query($scope: String!, $tags: [String!]) {
  search(scope: $scope, query: "x", options: {tags: $tags}) { hits { score } } }"""


def test_control_characters_in_identifiers_are_refused_naming_the_field_on_every_interface(
    http: httpx.Client, server_url: str, scope: str
) -> None:
    """A NUL (or any C0 or C1 control character) in a scope, an id, a tag, a metadata key, an
    entity's name or mem0's ids is refused before anything is written, naming the field."""
    fact = {"text": "Ann keeps bees"}
    graphql = [
        (GQL_REMEMBER, {"scope": "a\x00b", "fact": fact}, "scope"),
        (GQL_SEARCH, {"scope": "a\x01b"}, "scope"),
        (GQL_SEARCH, {"scope": scope, "tags": ["t\x1f"]}, "tags"),
        (GET, {"scope": scope, "id": "id\x00"}, "id"),
        (GQL_REMEMBER, {"scope": scope, "fact": {**fact, "tags": ["a\x00"]}}, "tags"),
        (GQL_REMEMBER, {"scope": scope, "fact": {**fact, "metadata": {"k\x00": 1}}}, "metadata"),
        (GQL_REMEMBER, {"scope": scope, "fact": {**fact, "subject": "Ann\x1b"}}, "subject"),
        (GQL_REMEMBER, {"scope": scope, "fact": {**fact, "id": "x\x7f"}}, "id"),
    ]
    for document, variables, field in graphql:
        answer = http.post("/graphql", json={"query": document, "variables": variables})
        assert_refused(answer, field, status=(200,))
    rest = {"X-Scope": scope}
    for body, field in (
        ({"content": "x", "tags": ["a\x00"]}, "tags"),
        ({"content": "x", "metadata": {"deep": {"k\x85": 1}}}, "metadata"),
        ({"content": "x", "object": "Bees\x00"}, "object"),
    ):
        assert_refused(http.post("/api/v1/memories", json=body, headers=rest), field, status=(422,))
    assert_refused(
        http.post("/api/v1/search", json={"query": "x", "tags": ["t\x00"]}, headers=rest),
        "tags",
        status=(422,),
    )
    for name in ("user_id", "agent_id", "app_id", "run_id"):
        add = {"messages": [{"role": "user", "content": "x"}], name: "al\x00ice", "infer": False}
        assert_refused(http.post("/v1/memories/", json=add, headers=rest), name, status=(400,))
    listed = http.get("/v1/memories/", params={"user_id": "al\x00ice"}, headers=rest)
    assert_refused(listed, "user_id", status=(400,))
    add = {"messages": [{"role": "user", "content": "Ann keeps bees"}], "user_id": "ann"}
    added = http.post("/v1/memories/", json={**add, "infer": False}, headers=rest)
    memory_id = added.json()["results"][0]["id"]
    in_place = {"metadata": {"hive": {"k\x00": 1}}}  # a change of metadata alone, written in place
    updated = http.put(f"/v1/memories/{memory_id}/", json=in_place, headers=rest)
    assert_refused(updated, "metadata", status=(400,))
    tools = ToolsOverHttp(server_url, "/mcp", scope)
    assert tools.failed("remember", text="x", tags=["a\x00"])["field"] == "tags"
    assert tools.failed("get", id="id\x00")["field"] == "id"
    graph_tools = ToolsOverHttp(server_url, "/mcp/memory", scope)
    entity = {"name": "Bob\x00", "entityType": "person", "observations": []}
    refused = graph_tools.failed("create_entities", entities=[entity])
    assert refused["field"] == "entities.0.name"
    unscoped = http.post("/mcp", params={"scope": "a\x00b"}, json={})
    assert_refused(unscoped, "scope", status=(400,))
    assert_still_serving(http, scope)
