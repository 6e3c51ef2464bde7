"""`factgraph mcp`: the MCP server over stdin / stdout, for hosts that launch a local command.

The process is the operator's own (it holds the Neo4j credentials), so there is no API key:
the scope and role are chosen when the host starts it (`--scope` / FACTGRAPH_MCP_SCOPE,
`--role` / FACTGRAPH_MCP_ROLE, default writer), and so is the tool set (`--tools`, with an
optional `--namespace` prefix on its tool names, as mcp-neo4j-memory's). stdout carries the
protocol and nothing else: everything factgraph prints while starting goes to stderr.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any

import anyio
from mcp.server import ServerRequestContext
from mcp.server.stdio import stdio_server

from graph.auth.roles import Role
from graph.config import Settings
from graph.memory import Memory
from graph.write.validation import check_scope
from resolvers.mcp.server import build_server
from resolvers.mcp.toolset import Caller, ToolSet
from resolvers.mcp.toolsets import FACTGRAPH


def run_stdio(settings: Settings, scope: str, role: Role, tools: ToolSet = FACTGRAPH) -> None:
    """Connect to Neo4j and the model, then serve one MCP client on stdio until it leaves."""
    caller = Caller(scope=check_scope(scope), role=role, actor="mcp-stdio")
    with contextlib.redirect_stdout(sys.stderr):  # keep stray prints off the protocol
        memory = Memory.connect(settings)
    try:
        anyio.run(_serve, memory, caller, tools)
    finally:
        memory.close()


async def _serve(memory: Memory, caller: Caller, tools: ToolSet) -> None:
    def memory_of(_: ServerRequestContext[Any]) -> Memory:
        return memory

    def caller_of(_: ServerRequestContext[Any]) -> Caller:
        return caller

    server = build_server(memory_of, caller_of, tool_set=tools)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
