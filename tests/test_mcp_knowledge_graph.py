"""The `memory` tool set: what `@modelcontextprotocol/server-memory` promises, kept by factgraph.

Every behaviour its own suite asserts (src/memory/__tests__/knowledge-graph.test.ts and
resource.test.ts), written anew and driven through the MCP SDK's client over HTTP at
/mcp/memory against the real service; a host's session over stdio (`factgraph mcp --tools
memory`) is the last test. Then what factgraph adds: entities are Entity nodes, observations
and relations are facts, a delete forgets and history keeps it, and search ranks with
factgraph's hybrid search.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import mcp_types as types
import pytest
from mcp.client.session import ClientSession

from graph.auth.apikeys import KeyStore
from graph.config import ConsolidationSettings
from graph.consolidation import Consolidator
from graph.memory import Memory
from graph.storage.db import Database
from tests.graph_snapshot import snapshot
from tests.mcp_helpers import ToolsOverHttp, ok, over_stdio, text_of

REFERENCE = json.loads((Path(__file__).parent / "data" / "server_memory_tools.json").read_text())


def person(name: str, *observations: str, kind: str = "person") -> dict[str, Any]:
    return {"name": name, "entityType": kind, "observations": list(observations)}


def link(source: str, target: str, kind: str) -> dict[str, Any]:
    return {"from": source, "to": target, "relationType": kind}


@pytest.fixture
def kg(server_url: str, scope: str) -> ToolsOverHttp:
    return ToolsOverHttp(server_url, "/mcp/memory", scope)


def names(graph: dict[str, Any]) -> list[str]:
    return [e["name"] for e in graph["entities"]]


def observations_of(kg: ToolsOverHttp, name: str) -> list[str]:
    (found,) = [e for e in kg.ok("read_graph")["entities"] if e["name"] == name]
    return list(found["observations"])


# -- the tools as the reference lists them ----------------------------------------------------
def test_the_nine_tools_are_listed_exactly_as_the_reference_lists_them(kg: ToolsOverHttp) -> None:
    async def steps(session: ClientSession) -> dict[str, Any]:
        return {t.name: t.model_dump(by_alias=True) for t in (await session.list_tools()).tools}

    listed = kg.run(steps)
    assert list(listed) == [t["name"] for t in REFERENCE["tools"]]
    for expected in REFERENCE["tools"]:
        tool = listed[expected["name"]]
        assert tool["title"] == expected["title"]
        assert tool["description"] == expected["description"]
        assert tool["inputSchema"] == expected["inputSchema"]
        assert tool["outputSchema"] == expected["outputSchema"]
        hints = {k: v for k, v in tool["annotations"].items() if k.endswith("Hint")}
        assert hints == expected["annotations"]


def test_answers_carry_the_reference_texts(kg: ToolsOverHttp) -> None:
    """The texts @modelcontextprotocol/server-memory answered to these calls, word for word."""
    made = kg.call(
        "create_entities",
        entities=[person("Alice", "works at Acme Corp"), {**person("Bob"), "extra": 1}],
    )
    assert text_of(made) == (
        '[\n  {\n    "name": "Alice",\n    "entityType": "person",\n    "observations": [\n'
        '      "works at Acme Corp"\n    ]\n  },\n  {\n    "name": "Bob",\n'
        '    "entityType": "person",\n    "observations": []\n  }\n]'
    )
    assert text_of(kg.call("create_entities", entities=[person("Alice")])) == "[]"
    related = kg.call("create_relations", relations=[link("Alice", "Bob", "knows")])
    assert text_of(related) == (
        '[\n  {\n    "from": "Alice",\n    "to": "Bob",\n    "relationType": "knows"\n  }\n]'
    )
    added = kg.call(
        "add_observations", observations=[{"entityName": "Alice", "contents": ["likes coffee"]}]
    )
    assert text_of(added) == (
        '[\n  {\n    "entityName": "Alice",\n    "addedObservations": [\n'
        '      "likes coffee"\n    ]\n  }\n]'
    )
    missing = kg.call(
        "add_observations", observations=[{"entityName": "Nobody", "contents": ["x"]}]
    )
    assert missing.is_error and text_of(missing) == "Entity with name Nobody not found"
    assert missing.structured_content is None  # the reference's errors are text alone
    removed = kg.call(
        "delete_observations", deletions=[{"entityName": "Alice", "observations": ["likes coffee"]}]
    )
    assert text_of(removed) == "Observations deleted successfully"
    assert removed.structured_content == {
        "success": True,
        "message": "Observations deleted successfully",
    }
    unlinked = kg.call("delete_relations", relations=[link("Alice", "Bob", "knows")])
    assert text_of(unlinked) == "Relations deleted successfully"
    assert text_of(kg.call("read_graph")) == (
        '{\n  "entities": [\n    {\n      "name": "Alice",\n      "entityType": "person",\n'
        '      "observations": [\n        "works at Acme Corp"\n      ]\n    },\n    {\n'
        '      "name": "Bob",\n      "entityType": "person",\n      "observations": []\n'
        '    }\n  ],\n  "relations": []\n}'
    )
    assert text_of(kg.call("delete_entities", entityNames=["Bob"])) == (
        "Entities deleted successfully"
    )


# -- create_entities --------------------------------------------------------------------------
def test_create_entities_creates_new_entities(kg: ToolsOverHttp) -> None:
    entities = [person("Alice", "works at Acme Corp"), person("Bob", "likes programming")]
    assert kg.ok("create_entities", entities=entities) == {"entities": entities}
    assert kg.ok("read_graph")["entities"] == entities


def test_create_entities_skips_an_entity_that_exists(kg: ToolsOverHttp) -> None:
    entities = [person("Alice", "works at Acme Corp")]
    kg.ok("create_entities", entities=entities)
    assert kg.ok("create_entities", entities=entities) == {"entities": []}
    assert names(kg.ok("read_graph")) == ["Alice"]


def test_create_entities_takes_an_empty_list(kg: ToolsOverHttp) -> None:
    assert kg.ok("create_entities", entities=[]) == {"entities": []}


# -- create_relations -------------------------------------------------------------------------
def test_create_relations_creates_new_relations(kg: ToolsOverHttp) -> None:
    kg.ok("create_entities", entities=[person("Alice"), person("Bob")])
    relations = [link("Alice", "Bob", "knows")]
    assert kg.ok("create_relations", relations=relations) == {"relations": relations}
    assert kg.ok("read_graph")["relations"] == relations


def test_create_relations_skips_a_relation_that_exists(kg: ToolsOverHttp) -> None:
    kg.ok("create_entities", entities=[person("Alice"), person("Bob")])
    relations = [link("Alice", "Bob", "knows")]
    kg.ok("create_relations", relations=relations)
    assert kg.ok("create_relations", relations=relations) == {"relations": []}
    assert kg.ok("read_graph")["relations"] == relations


def test_create_relations_takes_an_empty_list(kg: ToolsOverHttp) -> None:
    assert kg.ok("create_relations", relations=[]) == {"relations": []}


# -- add_observations -------------------------------------------------------------------------
def test_add_observations_adds_to_an_existing_entity(kg: ToolsOverHttp) -> None:
    kg.ok("create_entities", entities=[person("Alice", "works at Acme Corp")])
    added = kg.ok(
        "add_observations",
        observations=[{"entityName": "Alice", "contents": ["likes coffee", "has a dog"]}],
    )
    assert added == {
        "results": [{"entityName": "Alice", "addedObservations": ["likes coffee", "has a dog"]}]
    }
    assert observations_of(kg, "Alice") == ["works at Acme Corp", "likes coffee", "has a dog"]


def test_add_observations_skips_an_observation_the_entity_holds(kg: ToolsOverHttp) -> None:
    kg.ok("create_entities", entities=[person("Alice", "works at Acme Corp")])
    kg.ok("add_observations", observations=[{"entityName": "Alice", "contents": ["likes coffee"]}])
    added = kg.ok(
        "add_observations",
        observations=[{"entityName": "Alice", "contents": ["likes coffee", "has a dog"]}],
    )
    assert added["results"] == [{"entityName": "Alice", "addedObservations": ["has a dog"]}]
    assert len(observations_of(kg, "Alice")) == 3


def test_add_observations_to_a_missing_entity_is_an_error_and_saves_nothing(
    kg: ToolsOverHttp,
) -> None:
    kg.ok("create_entities", entities=[person("Alice")])
    refused = kg.failed(
        "add_observations",
        observations=[
            {"entityName": "Alice", "contents": ["likes tea"]},
            {"entityName": "NonExistent", "contents": ["some observation"]},
        ],
    )
    assert refused["message"] == "Entity with name NonExistent not found"
    assert refused["code"] == "NOT_FOUND"
    assert observations_of(kg, "Alice") == []


# -- delete_entities --------------------------------------------------------------------------
def test_delete_entities_deletes_them(kg: ToolsOverHttp) -> None:
    kg.ok("create_entities", entities=[person("Alice"), person("Bob")])
    kg.ok("delete_entities", entityNames=["Alice"])
    assert names(kg.ok("read_graph")) == ["Bob"]


def test_deleting_an_entity_deletes_its_relations(kg: ToolsOverHttp) -> None:
    kg.ok("create_entities", entities=[person("Alice"), person("Bob"), person("Charlie")])
    kg.ok(
        "create_relations",
        relations=[link("Alice", "Bob", "knows"), link("Bob", "Charlie", "knows")],
    )
    kg.ok("delete_entities", entityNames=["Bob"])
    graph = kg.ok("read_graph")
    assert names(graph) == ["Alice", "Charlie"]
    assert graph["relations"] == []


def test_deleting_an_entity_keeps_what_is_said_about_another_that_names_it(
    kg: ToolsOverHttp, memory: Memory, scope: str
) -> None:
    """The consolidator links "Alice: works at Acme Corp" to Acme Corp as a mention; the fact
    is still Alice's observation, and only Alice's deletion may take it."""
    kg.ok(
        "create_entities",
        entities=[person("Alice", "works at Acme Corp"), person("Acme Corp", kind="company")],
    )
    kg.ok("create_relations", relations=[link("Alice", "Acme Corp", "works_at")])
    Consolidator(memory, ConsolidationSettings(time=False, mentions=True)).run(scope)
    (said,) = [e.node for e in memory.timeline(scope).edges if e.node.object is None]
    linked = memory.node(scope, said.id)
    assert linked is not None
    assert ("entity:acme corp", "mention") in {(n.id, n.relation) for n in linked.neighbours}

    kg.ok("delete_entities", entityNames=["Acme Corp"])
    alice = {"name": "Alice", "entityType": "person", "observations": ["works at Acme Corp"]}
    assert kg.ok("read_graph") == {"entities": [alice], "relations": []}


def test_deleting_a_missing_entity_is_no_error(kg: ToolsOverHttp) -> None:
    assert kg.ok("delete_entities", entityNames=["NonExistent"])["success"] is True
    assert kg.ok("read_graph") == {"entities": [], "relations": []}


# -- delete_observations ----------------------------------------------------------------------
def test_delete_observations_deletes_them(kg: ToolsOverHttp) -> None:
    kg.ok("create_entities", entities=[person("Alice", "works at Acme Corp", "likes coffee")])
    kg.ok(
        "delete_observations", deletions=[{"entityName": "Alice", "observations": ["likes coffee"]}]
    )
    assert observations_of(kg, "Alice") == ["works at Acme Corp"]


def test_deleting_observations_of_a_missing_entity_is_no_error(kg: ToolsOverHttp) -> None:
    kg.ok(
        "delete_observations",
        deletions=[{"entityName": "NonExistent", "observations": ["some observation"]}],
    )
    assert kg.ok("read_graph")["entities"] == []


# -- delete_relations -------------------------------------------------------------------------
def test_delete_relations_deletes_only_the_relations_named(kg: ToolsOverHttp) -> None:
    kg.ok("create_entities", entities=[person("Alice"), person("Bob")])
    kg.ok(
        "create_relations",
        relations=[link("Alice", "Bob", "knows"), link("Alice", "Bob", "works_with")],
    )
    kg.ok("delete_relations", relations=[link("Alice", "Bob", "knows")])
    assert kg.ok("read_graph")["relations"] == [link("Alice", "Bob", "works_with")]


# -- read_graph -------------------------------------------------------------------------------
def test_read_graph_of_a_new_memory_is_empty(kg: ToolsOverHttp) -> None:
    assert kg.ok("read_graph") == {"entities": [], "relations": []}


def test_read_graph_returns_entities_and_relations_even_to_itself(kg: ToolsOverHttp) -> None:
    kg.ok("create_entities", entities=[person("Alice", "works at Acme Corp")])
    kg.ok("create_relations", relations=[link("Alice", "Alice", "self")])
    assert kg.ok("read_graph") == {
        "entities": [person("Alice", "works at Acme Corp")],
        "relations": [link("Alice", "Alice", "self")],
    }


# -- search_nodes -----------------------------------------------------------------------------
@pytest.fixture
def acme(kg: ToolsOverHttp) -> ToolsOverHttp:
    kg.ok(
        "create_entities",
        entities=[
            person("Alice", "works at Acme Corp", "likes programming"),
            person("Bob", "works at TechCo"),
            person("Acme Corp", "tech company", kind="company"),
        ],
    )
    kg.ok(
        "create_relations",
        relations=[link("Alice", "Acme Corp", "works_at"), link("Bob", "Acme Corp", "competitor")],
    )
    return kg


@pytest.mark.parametrize(
    ("query", "found"),
    [
        ("Alice", ["Alice"]),  # a name
        ("company", ["Acme Corp"]),  # a type
        ("programming", ["Alice"]),  # an observation
        ("ALICE", ["Alice"]),  # any case
        ("NonExistent", []),
    ],
)
def test_search_nodes_matches_names_types_and_observations_in_any_case(
    acme: ToolsOverHttp, query: str, found: list[str]
) -> None:
    assert names(acme.ok("search_nodes", query=query)) == found


def test_search_nodes_returns_the_relations_with_an_end_among_the_entities_found(
    acme: ToolsOverHttp,
) -> None:
    both = acme.ok("search_nodes", query="Acme")
    assert sorted(names(both)) == ["Acme Corp", "Alice"]
    assert len(both["relations"]) == 2  # Alice -> Acme Corp, and Bob -> Acme Corp
    alice = acme.ok("search_nodes", query="Alice")
    assert alice["relations"] == [link("Alice", "Acme Corp", "works_at")]
    assert acme.ok("search_nodes", query="NonExistent") == {"entities": [], "relations": []}


# -- open_nodes -------------------------------------------------------------------------------
@pytest.fixture
def chain(kg: ToolsOverHttp) -> ToolsOverHttp:
    kg.ok("create_entities", entities=[person("Alice"), person("Bob"), person("Charlie")])
    kg.ok(
        "create_relations",
        relations=[link("Alice", "Bob", "knows"), link("Bob", "Charlie", "knows")],
    )
    return kg


def test_open_nodes_opens_the_entities_named(chain: ToolsOverHttp) -> None:
    opened = chain.ok("open_nodes", names=["Alice", "Bob"])
    assert names(opened) == ["Alice", "Bob"]
    assert opened["relations"] == [link("Alice", "Bob", "knows"), link("Bob", "Charlie", "knows")]


@pytest.mark.parametrize(
    ("opened", "relations"),
    [
        (["Bob"], [link("Alice", "Bob", "knows"), link("Bob", "Charlie", "knows")]),
        (["Alice"], [link("Alice", "Bob", "knows")]),  # outgoing, to an entity not opened
        (["Charlie"], [link("Bob", "Charlie", "knows")]),  # incoming, from one not opened
    ],
)
def test_open_nodes_returns_every_relation_touching_an_entity_opened(
    chain: ToolsOverHttp, opened: list[str], relations: list[dict[str, Any]]
) -> None:
    found = chain.ok("open_nodes", names=opened)
    assert names(found) == opened
    assert found["relations"] == relations


def test_open_nodes_of_missing_names_or_none_is_empty(chain: ToolsOverHttp) -> None:
    assert chain.ok("open_nodes", names=["NonExistent"]) == {"entities": [], "relations": []}
    assert chain.ok("open_nodes", names=[]) == {"entities": [], "relations": []}


def test_answers_hold_only_the_fields_of_entities_and_relations(acme: ToolsOverHttp) -> None:
    """The reference strips its file's `type` marker; nothing of factgraph's leaks either."""
    for answer in (
        acme.ok("read_graph"),
        acme.ok("search_nodes", query="Alice"),
        acme.ok("open_nodes", names=["Alice", "Bob"]),
    ):
        assert answer["entities"] and answer["relations"]
        assert all(set(e) == {"name", "entityType", "observations"} for e in answer["entities"])
        assert all(set(r) == {"from", "to", "relationType"} for r in answer["relations"])


# -- the knowledge-graph resource -------------------------------------------------------------
def test_the_graph_is_a_resource_too(acme: ToolsOverHttp) -> None:
    async def steps(session: ClientSession) -> tuple[Any, Any]:
        listed = (await session.list_resources()).resources
        return listed, (await session.read_resource("memory://knowledge-graph")).contents

    listed, contents = acme.run(steps)
    assert [(r.name, r.title, str(r.uri), r.mime_type) for r in listed] == [
        ("knowledge-graph", "Knowledge Graph", "memory://knowledge-graph", "application/json")
    ]
    (content,) = contents
    assert (
        content.mime_type == "application/json" and str(content.uri) == "memory://knowledge-graph"
    )
    assert isinstance(content, types.TextResourceContents)
    assert json.loads(content.text) == acme.ok("read_graph")


# -- what factgraph keeps ---------------------------------------------------------------------
def test_entities_are_entity_nodes_and_observations_and_relations_are_facts(
    acme: ToolsOverHttp, db: Database, scope: str
) -> None:
    held = snapshot(db, scope)
    assert held.entities["alice"]["type"] == "person"
    assert held.entities["acme corp"]["type"] == "company"
    by_text = {f["text"]: f for f in held.facts.values()}
    observation = by_text["Alice: works at Acme Corp"]
    assert (observation["subject"], observation["partition"]) == ("Alice", "knowledge-graph")
    relation = by_text["Alice works_at Acme Corp"]
    assert (relation["subject"], relation["predicate"], relation["object"]) == (
        "Alice",
        "works_at",
        "Acme Corp",
    )
    # The Browser shows a relation as the fact between its two Entity nodes.
    assert (relation["id"], "subject", "alice") in held.mentions
    assert (relation["id"], "object", "acme corp") in held.mentions


def test_a_delete_forgets_and_history_keeps_what_was_deleted(
    acme: ToolsOverHttp, db: Database, memory: Memory, scope: str
) -> None:
    acme.ok(
        "delete_observations",
        deletions=[{"entityName": "Alice", "observations": ["likes programming"]}],
    )
    acme.ok("delete_entities", entityNames=["Acme Corp"])
    graph = acme.ok("read_graph")
    assert names(graph) == ["Alice", "Bob"] and graph["relations"] == []
    assert observations_of(acme, "Alice") == ["works at Acme Corp"]
    status = {f["text"]: f["status"] for f in snapshot(db, scope).facts.values()}
    assert status == {
        "Alice: works at Acme Corp": "active",
        "Alice: likes programming": "forgotten",
        "Bob: works at TechCo": "active",
        "Acme Corp: tech company": "forgotten",
        "Alice works_at Acme Corp": "forgotten",
        "Bob competitor Acme Corp": "forgotten",
    }
    (gone,) = [
        f for f in snapshot(db, scope).facts.values() if f["text"] == "Alice: likes programming"
    ]
    trail = memory.audit_trail(scope, gone["id"])
    assert [(e.kind, e.reason) for e in trail][-1] == ("forget", "delete_observations")
    assert memory.get(scope, gone["id"]) is None  # out of every read, but not out of history


def test_an_entity_deleted_and_created_again_starts_empty(acme: ToolsOverHttp) -> None:
    acme.ok("delete_entities", entityNames=["Alice"])
    assert acme.ok("create_entities", entities=[person("Alice", kind="engineer")])["entities"]
    assert acme.ok("open_nodes", names=["Alice"]) == {
        "entities": [person("Alice", kind="engineer")],
        "relations": [],
    }


def test_names_are_folded_as_factgraph_folds_entity_names(acme: ToolsOverHttp) -> None:
    """A documented difference: the reference compares names exactly, so there "alice" and
    "Alice's" would be two more entities."""
    assert acme.ok("create_entities", entities=[person("alice")]) == {"entities": []}
    assert acme.ok("create_entities", entities=[person("Alice's")]) == {"entities": []}
    assert names(acme.ok("open_nodes", names=["ALICE", "acme corp"])) == ["Alice", "Acme Corp"]
    assert names(acme.ok("open_nodes", names=["Alice's"])) == ["Alice"]
    added = acme.ok(
        "add_observations",
        observations=[{"entityName": "alice", "contents": ["Likes Programming"]}],
    )
    assert added["results"] == [{"entityName": "alice", "addedObservations": []}]


def test_search_also_finds_any_word_of_the_query_and_ranks_with_hybrid_search(
    kg: ToolsOverHttp,
) -> None:
    kg.ok(
        "create_entities",
        entities=[
            person("Initech", kind="company"),  # found by its type alone: no fact to rank
            person("Bob", "works for a software company"),
            person("Carol", "has a dog"),
            person("Dave", "likes tea"),
        ],
    )
    # Ranked by factgraph's hybrid search over the observations, not in the order created.
    assert names(kg.ok("search_nodes", query="software company")) == ["Bob", "Initech"]
    # The whole query is in no entity, each word is in one: every one is found.
    either = names(kg.ok("search_nodes", query="company dog"))
    assert sorted(either) == ["Bob", "Carol", "Initech"] and either[-1] == "Initech"
    assert names(kg.ok("search_nodes", query="dogs")) == ["Carol"]  # plurals fold
    assert names(kg.ok("search_nodes", query="")) == ["Initech", "Bob", "Carol", "Dave"]


def test_the_graph_lives_beside_the_scopes_other_facts(
    acme: ToolsOverHttp, memory: Memory, server_url: str, scope: str
) -> None:
    memory.remember(
        scope,
        {
            "text": "Alice lives in Oslo",
            "subject": "Alice",
            "predicate": "lives_in",
            "object": "Oslo",
        },
    )
    graph = acme.ok("read_graph")
    assert "Oslo" not in names(graph)
    assert link("Alice", "Oslo", "lives_in") not in graph["relations"]
    # factgraph's own tools find the graph's observations, which read on their own.
    factgraph = ToolsOverHttp(server_url, "/mcp", scope)
    found = factgraph.ok("search", query="Which company does Alice work for?")
    assert "Alice: works at Acme Corp" in [r["text"] for r in found["results"]]


def test_bad_input_is_a_tool_error_naming_the_field_and_saves_nothing(kg: ToolsOverHttp) -> None:
    cases: list[tuple[str, dict[str, Any], str]] = [
        (
            "create_entities",
            {"entities": [{"name": "Alice", "observations": []}]},
            "entities.0.entityType",
        ),
        ("create_entities", {"entities": [person("Alice"), person("  ")]}, "entities.1.name"),
        ("create_entities", {"entities": [person("Alice", "")]}, "entities.0.observations.0"),
        ("create_entities", {"entities": [person("A" * 513)]}, "entities.0.name"),
        (
            "create_relations",
            {"relations": [link("Alice", "Bob", " ")]},
            "relations.0.relationType",
        ),
        (
            "add_observations",
            {"observations": [{"entityName": "Alice"}]},
            "observations.0.contents",
        ),
        ("open_nodes", {"names": "Alice"}, "names"),
    ]
    for name, arguments, field in cases:
        refused = kg.failed(name, **arguments)
        assert (refused["code"], refused["field"]) == ("BAD_USER_INPUT", field), refused
    assert kg.ok("read_graph") == {"entities": [], "relations": []}


# -- choosing the tool set, and who may call what ---------------------------------------------
def test_the_tool_set_is_chosen_by_path_or_query_parameter(server_url: str, scope: str) -> None:
    async def tool_names(session: ClientSession) -> list[str]:
        return [t.name for t in (await session.list_tools()).tools]

    by_query = ToolsOverHttp(server_url, "/mcp?tools=memory", scope).run(tool_names)
    by_path = ToolsOverHttp(server_url, "/mcp/memory", scope).run(tool_names)
    assert by_query == by_path == [t["name"] for t in REFERENCE["tools"]]
    assert "remember" in ToolsOverHttp(server_url, "/mcp", scope).run(tool_names)
    unknown = httpx.post(
        f"{server_url}/mcp?tools=letta",
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={"Accept": "application/json, text/event-stream", "X-Scope": scope},
    )
    assert unknown.status_code == 400
    assert unknown.json()["error"]["message"].startswith("tools: must be one of factgraph, memory")


def test_a_reader_key_reads_the_graph_and_cannot_change_it(secured: Any, scope: str) -> None:
    app, url = secured
    store: KeyStore = app.state.gate.keys
    reader, reader_token = store.create([scope], "reader")
    writer, writer_token = store.create([scope], "writer")
    try:
        as_writer = ToolsOverHttp(url, "/mcp/memory", scope, token=writer_token)
        as_reader = ToolsOverHttp(url, "/mcp/memory", scope, token=reader_token)

        async def tool_names(session: ClientSession) -> list[str]:
            return [t.name for t in (await session.list_tools()).tools]

        assert as_reader.run(tool_names) == ["read_graph", "search_nodes", "open_nodes"]
        assert len(as_writer.run(tool_names)) == 9
        as_writer.ok("create_entities", entities=[person("Alice")])
        assert names(as_reader.ok("read_graph")) == ["Alice"]
        refused = as_reader.failed("delete_entities", entityNames=["Alice"])
        assert refused["code"] == "FORBIDDEN"
        assert names(as_writer.ok("read_graph")) == ["Alice"]
        unkeyed = httpx.post(
            f"{url}/mcp/memory",
            json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
            headers={"Accept": "application/json, text/event-stream"},
        )
        assert unkeyed.status_code == 401
    finally:
        store.delete(reader.id)
        store.delete(writer.id)


# -- a host over stdio ------------------------------------------------------------------------
def test_a_host_session_over_stdio_shares_the_graph_with_http(
    kg: ToolsOverHttp, scope: str
) -> None:
    """`factgraph mcp --tools memory`: the one line a host's configuration changes."""
    kg.ok("create_entities", entities=[person("Alice", "works at Acme Corp")])

    async def steps(session: ClientSession) -> dict[str, Any]:
        tools = [t.name for t in (await session.list_tools()).tools]
        ok(await session.call_tool("create_entities", {"entities": [person("Bob", "likes tea")]}))
        ok(
            await session.call_tool(
                "create_relations", {"relations": [link("Bob", "Alice", "knows")]}
            )
        )
        found = ok(await session.call_tool("search_nodes", {"query": "acme"}))
        return {"tools": tools, "found": found}

    seen = over_stdio(["--tools", "memory", "--scope", scope], steps)
    assert seen["tools"] == [t["name"] for t in REFERENCE["tools"]]
    assert seen["found"] == {
        "entities": [person("Alice", "works at Acme Corp")],
        "relations": [link("Bob", "Alice", "knows")],
    }
    assert names(kg.ok("read_graph")) == ["Alice", "Bob"]  # what stdio wrote, read over HTTP
