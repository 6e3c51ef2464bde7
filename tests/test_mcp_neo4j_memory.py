"""The `neo4j-memory` tool set: what `mcp-neo4j-memory` promises, kept by factgraph.

Its integration tests (tests/integration/test_neo4j_memory_IT.py, test_http_transport_IT.py,
test_stdio_transport_IT.py) and its namespacing, written anew and driven through the MCP SDK's
client over HTTP at /mcp/neo4j-memory against the real service, with a host's session over
stdio (`factgraph mcp --tools neo4j-memory --namespace ...`) last. It shares one knowledge
graph with the `memory` tool set (tests/test_mcp_knowledge_graph.py), in its own shapes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp.client.session import ClientSession

from tests.mcp_helpers import ToolsOverHttp, ok, over_stdio, text_of

SERVER = json.loads((Path(__file__).parent / "data" / "mcp_neo4j_memory_tools.json").read_text())
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


def entity(name: str, kind: str, *observations: str) -> dict[str, Any]:
    return {"name": name, "type": kind, "observations": list(observations)}


def relation(source: str, target: str, kind: str) -> dict[str, Any]:
    return {"source": source, "target": target, "relationType": kind}


@pytest.fixture
def neo(server_url: str, scope: str) -> ToolsOverHttp:
    return ToolsOverHttp(server_url, "/mcp/neo4j-memory", scope)


def by_name(graph: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {e["name"]: e for e in graph["entities"]}


def test_the_tools_are_listed_exactly_as_mcp_neo4j_memory_lists_them(neo: ToolsOverHttp) -> None:
    async def steps(session: ClientSession) -> dict[str, Any]:
        return {t.name: t.model_dump(by_alias=True) for t in (await session.list_tools()).tools}

    listed = neo.run(steps)
    assert list(listed) == [t["name"] for t in SERVER["tools"]]
    for expected in SERVER["tools"]:
        tool = listed[expected["name"]]
        assert tool["title"] == expected["title"]
        # Its descriptions are docstrings: the same lines, without their trailing spaces.
        assert tool["description"].splitlines() == [
            line.rstrip() for line in expected["description"].splitlines()
        ]
        assert tool["inputSchema"] == expected["inputSchema"]
        assert tool["annotations"] == expected["annotations"]


def test_create_and_read_entities(neo: ToolsOverHttp) -> None:
    given = [
        entity("Alice", "Person", "Likes reading", "Works at Company X"),
        entity("Bob", "Person", "Enjoys hiking"),
    ]
    created = neo.call("create_entities", entities=given)
    assert created.structured_content == {"result": given}
    assert json.loads(text_of(created)) == given
    graph = by_name(neo.ok("read_graph"))
    assert set(graph) == {"Alice", "Bob"}
    assert graph["Alice"]["type"] == "Person"
    assert "Likes reading" in graph["Alice"]["observations"]
    assert "Enjoys hiking" in graph["Bob"]["observations"]


def test_create_and_read_relations(neo: ToolsOverHttp) -> None:
    neo.ok("create_entities", entities=[entity("Alice", "Person"), entity("Bob", "Person")])
    created = neo.ok("create_relations", relations=[relation("Alice", "Bob", "KNOWS")])
    assert created == {"result": [relation("Alice", "Bob", "KNOWS")]}
    assert neo.ok("read_graph")["relations"] == [relation("Alice", "Bob", "KNOWS")]


def test_add_observations(neo: ToolsOverHttp) -> None:
    neo.ok("create_entities", entities=[entity("Charlie", "Person", "Initial observation")])
    added = neo.ok(
        "add_observations",
        observations=[
            {"entityName": "Charlie", "observations": ["New observation 1", "New observation 2"]}
        ],
    )
    assert added == {
        "result": [
            {
                "entityName": "Charlie",
                "addedObservations": ["New observation 1", "New observation 2"],
            }
        ]
    }
    charlie = by_name(neo.ok("read_graph"))["Charlie"]
    assert charlie["observations"] == [
        "Initial observation",
        "New observation 1",
        "New observation 2",
    ]


def test_delete_observations(neo: ToolsOverHttp) -> None:
    neo.ok(
        "create_entities",
        entities=[entity("Dave", "Person", "Observation 1", "Observation 2", "Observation 3")],
    )
    done = neo.call(
        "delete_observations", deletions=[{"entityName": "Dave", "observations": ["Observation 2"]}]
    )
    assert text_of(done) == "Observations deleted successfully"
    assert done.structured_content == {"result": "Observations deleted successfully"}
    dave = by_name(neo.ok("read_graph"))["Dave"]
    assert dave["observations"] == ["Observation 1", "Observation 3"]


def test_delete_entities(neo: ToolsOverHttp) -> None:
    neo.ok("create_entities", entities=[entity("Eve", "Person"), entity("Frank", "Person")])
    done = neo.call("delete_entities", entityNames=["Eve"])
    assert text_of(done) == "Entities deleted successfully"
    assert set(by_name(neo.ok("read_graph"))) == {"Frank"}


def test_delete_relations(neo: ToolsOverHttp) -> None:
    neo.ok("create_entities", entities=[entity("Grace", "Person"), entity("Hank", "Person")])
    neo.ok(
        "create_relations",
        relations=[relation("Grace", "Hank", "KNOWS"), relation("Grace", "Hank", "WORKS_WITH")],
    )
    done = neo.call("delete_relations", relations=[relation("Grace", "Hank", "KNOWS")])
    assert text_of(done) == "Relations deleted successfully"
    assert neo.ok("read_graph")["relations"] == [relation("Grace", "Hank", "WORKS_WITH")]


def test_search_memories(neo: ToolsOverHttp) -> None:
    neo.ok(
        "create_entities",
        entities=[
            entity("Ian", "Person", "Likes coffee"),
            entity("Jane", "Person", "Likes tea"),
            entity("coffee", "Beverage", "Hot drink"),
        ],
    )
    found = set(by_name(neo.ok("search_memories", query="coffee")))
    assert found == {"Ian", "coffee"}  # Jane's tea is near coffee in meaning, and not found


def test_search_memories_takes_any_of_several_words(neo: ToolsOverHttp) -> None:
    """Its own description's example: "engineer software" finds either word."""
    neo.ok(
        "create_entities",
        entities=[
            entity("Ana", "Person", "Senior engineer"),
            entity("Lin", "Person", "Writes software for banks"),
            entity("Max", "Person", "Plays the drums"),
        ],
    )
    assert set(by_name(neo.ok("search_memories", query="engineer software"))) == {"Ana", "Lin"}


def test_find_memories_by_name(neo: ToolsOverHttp) -> None:
    neo.ok(
        "create_entities",
        entities=[entity("Kevin", "Person"), entity("Laura", "Person"), entity("Mike", "Person")],
    )
    neo.ok("create_relations", relations=[relation("Kevin", "Mike", "KNOWS")])
    found = neo.ok("find_memories_by_name", names=["Kevin", "Laura"])
    assert set(by_name(found)) == {"Kevin", "Laura"}
    assert found["relations"] == [relation("Kevin", "Mike", "KNOWS")]


def test_answers_carry_the_servers_texts(neo: ToolsOverHttp) -> None:
    """As mcp-neo4j-memory writes them: lists by `json.dumps`, graphs compact and unescaped."""
    made = neo.call("create_entities", entities=[entity("Zoë", "Person", "café regular")])
    assert text_of(made) == (
        '[{"name": "Zo\\u00eb", "type": "Person", "observations": ["caf\\u00e9 regular"]}]'
    )
    assert text_of(neo.call("read_graph")) == (
        '{"entities":[{"name":"Zoë","type":"Person","observations":["café regular"]}],'
        '"relations":[]}'
    )


def test_create_entities_merges_into_an_entity_that_exists(neo: ToolsOverHttp) -> None:
    neo.ok("create_entities", entities=[entity("Nina", "Person", "Likes jazz")])
    again = entity("Nina", "Musician", "Plays bass", "Likes jazz")
    assert neo.ok("create_entities", entities=[again]) == {"result": [again]}
    assert neo.ok("read_graph")["entities"] == [
        entity("Nina", "Musician", "Likes jazz", "Plays bass")
    ]


def test_relations_are_made_only_between_entities_that_exist(neo: ToolsOverHttp) -> None:
    neo.ok("create_entities", entities=[entity("Olga", "Person")])
    made = neo.ok(
        "create_relations",
        relations=[relation("Olga", "Nobody", "KNOWS"), relation("Olga", "Olga", "IS")],
    )
    assert made == {"result": [relation("Olga", "Olga", "IS")]}
    assert neo.ok("read_graph")["relations"] == [relation("Olga", "Olga", "IS")]


def test_bad_input_names_the_field_in_this_servers_words(neo: ToolsOverHttp) -> None:
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("create_entities", {"entities": [entity("Alice", "bad type")]}, "entities.0.type"),
        ("create_entities", {"entities": [entity("", "Person")]}, "entities.0.name"),
        (
            "create_entities",
            {"entities": [entity("Alice", "Person", "")]},
            "entities.0.observations.0",
        ),
        (
            "create_relations",
            {"relations": [relation("A", "B", "has space")]},
            "relations.0.relationType",
        ),
        (
            "add_observations",
            {"observations": [{"entityName": "A", "observations": []}]},
            "observations.0.observations",
        ),
    ]
    for name, arguments, field in cases:
        refused = neo.failed(name, **arguments)
        assert (refused["code"], refused["field"]) == ("BAD_USER_INPUT", field), refused
    missing = neo.failed(
        "add_observations", observations=[{"entityName": "Nobody", "observations": ["x"]}]
    )
    assert missing["message"] == "Entity with name Nobody not found"
    assert neo.ok("read_graph") == {"entities": [], "relations": []}


def test_the_graph_is_the_one_the_memory_tool_set_keeps(server_url: str, scope: str) -> None:
    neo = ToolsOverHttp(server_url, "/mcp/neo4j-memory", scope)
    reference = ToolsOverHttp(server_url, "/mcp/memory", scope)
    neo.ok("create_entities", entities=[entity("Pia", "Person", "Runs marathons")])
    reference.ok(
        "create_relations", relations=[{"from": "Pia", "to": "Pia", "relationType": "TRAINS"}]
    )
    assert reference.ok("read_graph") == {
        "entities": [{"name": "Pia", "entityType": "Person", "observations": ["Runs marathons"]}],
        "relations": [{"from": "Pia", "to": "Pia", "relationType": "TRAINS"}],
    }
    assert neo.ok("read_graph")["relations"] == [relation("Pia", "Pia", "TRAINS")]


# -- its HTTP transport tests -----------------------------------------------------------------
def _post(url: str, body: dict[str, Any], **headers: str) -> httpx.Response:
    return httpx.post(f"{url}/mcp/neo4j-memory", json=body, headers={**MCP_HEADERS, **headers})


def test_over_http_bad_calls_are_errors_and_foreign_hosts_and_pages_are_refused(
    neo: ToolsOverHttp, server_url: str, scope: str
) -> None:
    unknown_tool = neo.call("invalid_tool")
    assert unknown_tool.is_error
    unknown_method = _post(
        server_url, {"jsonrpc": "2.0", "id": 1, "method": "invalid_method"}, **{"X-Scope": scope}
    )
    assert unknown_method.status_code == 200
    assert unknown_method.json()["error"]["code"] == -32601  # JSON-RPC: method not found
    # DNS rebinding: a key-less server answers loopback names only.
    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    foreign = _post(server_url, listing, **{"X-Scope": scope, "Host": "malicious-site.evil"})
    assert foreign.status_code == 421
    assert _post(server_url, listing, **{"X-Scope": scope, "Host": "localhost"}).status_code == 200
    # CORS: with no origins configured (FACTGRAPH_CORS_ORIGINS), no page may call it.
    preflight = httpx.options(
        f"{server_url}/mcp/neo4j-memory",
        headers={"Origin": "http://localhost:3000", "Access-Control-Request-Method": "POST"},
    )
    assert "access-control-allow-origin" not in preflight.headers


# -- a host over stdio ------------------------------------------------------------------------
def test_a_host_session_over_stdio_with_a_namespace(neo: ToolsOverHttp, scope: str) -> None:
    """`factgraph mcp --tools neo4j-memory --namespace myapp`, as `mcp-neo4j-memory
    --namespace myapp` names its tools."""

    async def steps(session: ClientSession) -> dict[str, Any]:
        tools = [t.name for t in (await session.list_tools()).tools]
        ok(
            await session.call_tool(
                "myapp-create_entities", {"entities": [entity("Quinn", "Person", "Likes chess")]}
            )
        )
        found = ok(await session.call_tool("myapp-search_memories", {"query": "chess"}))
        return {"tools": tools, "found": found}

    seen = over_stdio(["--tools", "neo4j-memory", "--namespace", "myapp", "--scope", scope], steps)
    assert seen["tools"] == ["myapp-" + t["name"] for t in SERVER["tools"]]
    assert seen["found"]["entities"] == [entity("Quinn", "Person", "Likes chess")]
    assert neo.ok("find_memories_by_name", names=["Quinn"])["entities"] == seen["found"]["entities"]
