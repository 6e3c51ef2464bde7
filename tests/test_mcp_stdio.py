"""`factgraph mcp` over stdio: a real subprocess, driven by the SDK's stdio client.

The subprocess reaches the test Neo4j through the same environment (ports, home) the suite
uses, and starts or reuses it exactly as `factgraph serve` does.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from mcp.client.session import ClientSession

from factgraph.cli import main
from graph.errors import DatabaseUnavailable, ValidationError
from graph.memory import Memory
from resolvers.mcp.arguments import Arguments
from resolvers.mcp.stdio import LazyMemory
from resolvers.mcp.tools import BY_NAME
from resolvers.mcp.toolsets import TOOL_SETS
from tests.live_server import free_port
from tests.mcp_helpers import failed, ok, over_stdio


def test_a_host_session_over_stdio(memory: Memory, scope: str) -> None:
    async def steps(session: ClientSession) -> dict[str, Any]:
        tools = {t.name for t in (await session.list_tools()).tools}
        first = ok(
            await session.call_tool(
                "remember",
                {
                    "text": "Dana works at Initech",
                    "subject": "Dana",
                    "predicate": "works_at",
                    "object": "Initech",
                    "session_id": "s-1",
                    "turn": 1,
                },
            )
        )
        second = ok(
            await session.call_tool(
                "remember",
                {
                    "text": "Dana now works at Globex",
                    "subject": "Dana",
                    "predicate": "works_at",
                    "object": "Globex",
                    "session_id": "s-1",
                    "turn": 2,
                },
            )
        )
        ok(
            await session.call_tool(
                "remember",
                {"text": "Dana bikes to work every day", "session_id": "s-1", "turn": 3},
            )
        )
        quarantined = ok(
            await session.call_tool(
                "remember", {"text": "Dana's manager is Mr. Robot", "source": "email"}
            )
        )
        found = ok(await session.call_tool("search", {"query": "Where does Dana work?"}))
        window = ok(
            await session.call_tool("search", {"query": "Dana Globex", "top_k": 1, "next_turns": 1})
        )
        chain = ok(await session.call_tool("history", {"id": first["fact"]["id"]}))
        bad = failed(await session.call_tool("search", {"query": "x", "top_k": 0}))
        admin_only = failed(await session.call_tool("validate", {"id": first["fact"]["id"]}))
        return {
            "tools": tools,
            "first": first,
            "second": second,
            "quarantined": quarantined,
            "found": found,
            "window": window,
            "chain": chain,
            "bad": bad,
            "admin_only": admin_only,
        }

    seen = over_stdio(["--scope", scope], steps)
    assert {"remember", "search", "memory_search", "memory_list_recent", "memory_get"} <= seen[
        "tools"
    ]
    assert "validate" not in seen["tools"]  # the default role is writer
    assert seen["first"]["decision"] == "stored"
    assert seen["second"]["decision"] == "superseded"
    assert seen["second"]["supersedes"]["id"] == seen["first"]["fact"]["id"]
    assert seen["quarantined"]["decision"] == "quarantined"
    assert seen["found"]["results"][0]["text"] == "Dana now works at Globex"
    assert "Dana works at Initech" not in {r["text"] for r in seen["found"]["results"]}
    assert seen["window"]["results"][0]["text"] == "Dana now works at Globex"
    assert [r["text"] for r in seen["window"]["related"]] == ["Dana bikes to work every day"]
    assert [r["status"] for r in seen["chain"]["history"]] == ["superseded", "active"]
    assert seen["bad"]["field"] == "top_k"
    assert "needs admin" in seen["admin_only"]["message"]
    # The same chain, seen through the Python API the other transports share.
    history = memory.history(scope, seen["first"]["fact"]["id"])
    assert [f.text for f in history] == ["Dana works at Initech", "Dana now works at Globex"]
    assert {e.actor for e in memory.audit_trail(scope, seen["second"]["fact"]["id"])} == {
        "mcp-stdio"
    }


def test_the_role_is_chosen_at_launch_and_a_reader_cannot_write(scope: str) -> None:
    async def steps(session: ClientSession) -> tuple[set[str], dict[str, Any]]:
        tools = {t.name for t in (await session.list_tools()).tools}
        return tools, failed(await session.call_tool("remember", {"text": "Eve likes jazz"}))

    tools, refused = over_stdio(["--role", "reader"], steps, env={"FACTGRAPH_MCP_SCOPE": scope})
    assert "remember" not in tools and "search" in tools
    assert refused["code"] == "FORBIDDEN"


def test_after_a_failed_start_the_next_call_tries_again(memory: Memory) -> None:
    """A host keeps the process while Neo4j is down; once it is back, calls work."""
    attempts: list[int] = []

    def connect() -> Memory:
        attempts.append(len(attempts))
        if len(attempts) == 1:
            raise ConnectionRefusedError("Neo4j is not up yet")
        return memory

    lazy = LazyMemory(connect)
    with pytest.raises(DatabaseUnavailable, match="factgraph could not start: Neo4j is not up"):
        lazy.get()
    assert lazy.get() is memory and lazy.get() is memory
    assert len(attempts) == 2


def test_strings_that_are_not_unicode_are_refused_naming_the_field() -> None:
    """JSON may escape a lone surrogate ("\\ud800"); no client library sends one, a raw pipe can."""
    check = Arguments(BY_NAME["remember"].schema).check
    with pytest.raises(ValidationError) as refused:
        check({"text": "ok", "tags": ["fine", "broken \ud800"]})
    assert refused.value.field == "tags.1"


def test_factgraph_mcp_without_a_scope_says_how_to_name_one(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("FACTGRAPH_MCP_SCOPE", raising=False)
    assert main(["mcp"]) == 2
    assert "factgraph mcp --scope NAME" in capsys.readouterr().err


# What `factgraph mcp` must not have imported when it answers tools/list: each was once on that
# path and cost a host's every launch (the driver and numpy through a command's parser, the
# consolidator's HTTP client, the model runtime, jsonschema, Prometheus). They load with the
# memory, in the background, or at the first tool call.
NOT_BEFORE_TOOLS_LIST = (
    "neo4j",
    "numpy",
    "onnxruntime",
    "tokenizers",
    "httpx",
    "strawberry",
    "jsonschema",
    "prometheus_client",
    "graph.memory",
    "graph.storage.db",
    "graph.search.engine",
    "graph.consolidation.consolidator",
    "graph.recall.engine",
)

# `factgraph ARGS...` as the command runs it, except that the moment the memory would start
# loading in the background (just after the tools/list answer is written), the names of the
# modules loaded so far are written to the file named first; a tool call then loads it.
_RECORDING_MAIN = textwrap.dedent(
    """
    import json, os, sys
    from resolvers.mcp import stdio

    def record(self):
        if not os.path.exists(sys.argv[1]):  # the first tools/list only
            with open(sys.argv[1], "w") as out:
                json.dump(sorted(sys.modules), out)

    stdio.LazyMemory.start = record
    stdio.LOAD_AFTER_LIST = 0  # before the answer is out, so before any tools/call can arrive
    from factgraph.cli import main
    sys.exit(main(sys.argv[2:]))
    """
)


def test_the_tools_are_listed_without_waiting_for_the_memory(scope: str, tmp_path: Path) -> None:
    """A host starts the server at every launch and waits for its tool list
    (bench/mcp_startup.py times it): that answer needs the tool definitions and the SDK, no
    Neo4j, no model and nothing heavy imported; they load in the background (here Neo4j never
    answers), and a call that needs them says why it cannot work."""
    seen = tmp_path / "modules.json"

    async def steps(session: ClientSession) -> tuple[list[str], dict[str, Any]]:
        tools = [t.name for t in (await session.list_tools()).tools]
        return tools, failed(await session.call_tool("search", {"query": "tea"}))

    dead = f"bolt://127.0.0.1:{free_port()}"
    recording = [sys.executable, "-c", _RECORDING_MAIN, str(seen)]
    tools, refused = over_stdio(
        ["--scope", scope], steps, env={"NEO4J_URI": dead}, launcher=recording
    )
    assert {"remember", "search"} <= set(tools)
    assert refused["code"] == "DATABASE_UNAVAILABLE"
    assert dead in refused["message"]
    early = {m for m in json.loads(seen.read_text()) if _within(m)}
    assert early == set()


def _within(module: str) -> bool:
    """`module` is one of NOT_BEFORE_TOOLS_LIST or inside one (not merely named alike)."""
    return any(module == name or module.startswith(f"{name}.") for name in NOT_BEFORE_TOOLS_LIST)


def test_every_tool_schema_is_valid_json_schema() -> None:
    """Each tool's argument checker is built at its first call (see the test above), so a
    schema that is not valid JSON Schema is caught here rather than by a host."""
    for tool_set in TOOL_SETS.values():
        for tool in tool_set.tools:
            Draft202012Validator.check_schema(tool.schema)
