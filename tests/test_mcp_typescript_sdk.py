"""factgraph's MCP server as hosts built on the TypeScript SDK see it.

Most desktop hosts and editors are built on `@modelcontextprotocol/sdk`. Its client checks a
result's structured content against the tool's output schema, errors included, so a tool
error must be what the reference server answers: text with `isError: true` and no structured
content, or the client throws instead of showing the tool's message. One node process per
transport (tests/mcp_clients/typescript_sdk.cjs) lists the tools, calls one that succeeds and
two that fail, over stdio (a `factgraph mcp` it spawns) and over HTTP (/mcp/memory,
/mcp/neo4j-memory and /mcp).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.mcp_helpers import factgraph_command, server_environment
from tests.npm_packages import installed

SDK = "@modelcontextprotocol/sdk@1.32"
SCRIPT = Path(__file__).parent / "mcp_clients" / "typescript_sdk.cjs"

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs node and npm")


def typescript_client(*args: str) -> dict[str, Any]:
    """Run the script with the SDK installed, and read the JSON it printed last."""
    folder = installed("mcp-typescript-sdk", SDK)
    done = subprocess.run(
        ["node", str(SCRIPT), str(folder), *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **server_environment()},
        check=False,
    )
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


def assert_the_memory_tools_answer_as_the_reference_does(seen: dict[str, Any]) -> None:
    assert seen["tools"][0] == ["create_entities", True]  # every tool declares an output schema
    assert all(declared for _, declared in seen["tools"])
    created = {"name": "Alice", "entityType": "person", "observations": ["likes tea"]}
    assert seen["created"]["structured"] == {"entities": [created]}
    assert seen["opened"]["structured"] == {"entities": [created], "relations": []}
    message = "Entity with name Nobody not found"
    # A structured error here made the client throw "Structured content does not match the
    # tool's output schema" instead of handing back the result.
    assert seen["missing"] == {
        "isError": True,
        "text": message,
        "structured": None,
        "meta": {"factgraph/error": {"code": "NOT_FOUND", "message": message}},
    }
    bad_name = seen["badName"]
    assert bad_name["isError"] and bad_name["structured"] is None, bad_name
    assert bad_name["text"] == "entities.0.name: must not be empty"
    assert bad_name["meta"]["factgraph/error"]["field"] == "entities.0.name"


def test_a_typescript_host_over_stdio_reads_the_tools_errors(scope: str) -> None:
    seen = typescript_client(
        "stdio", factgraph_command(), "mcp", "--tools", "memory", "--scope", scope
    )
    assert seen["memory"]["server"] == "factgraph"
    assert_the_memory_tools_answer_as_the_reference_does(seen["memory"])


def test_a_typescript_host_over_http_reads_the_tools_errors(server_url: str, scope: str) -> None:
    seen = typescript_client("http", server_url, scope)
    assert_the_memory_tools_answer_as_the_reference_does(seen["memory"])
    neo4j_memory = seen["neo4jMemory"]  # no output schemas: structured errors are harmless
    assert neo4j_memory["found"]["structured"]["entities"][0]["name"] == "Alice"
    assert neo4j_memory["missing"]["isError"]
    assert neo4j_memory["missing"]["text"] == "Entity with name Nobody not found"
    own = seen["factgraph"]
    assert ["remember", False] in own["tools"]
    assert own["remembered"]["structured"]["decision"] == "stored"
    assert own["searched"]["structured"]["results"][0]["text"] == "Alice drinks green tea"
    error = {
        "code": "BAD_USER_INPUT",
        "message": "top_k: must be at most 100, got 500",
        "field": "top_k",
    }
    assert own["badTopK"] == {
        "isError": True,
        "text": f"BAD_USER_INPUT: {error['message']}",
        "structured": {"error": error},  # no output schema to conform to: kept, as documented
        "meta": {"factgraph/error": error},
    }
