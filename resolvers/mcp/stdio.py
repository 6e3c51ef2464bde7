"""`factgraph mcp`: the MCP server over stdin / stdout, for hosts that launch a local command.

The process is the operator's own (it holds the Neo4j credentials), so there is no API key:
the scope and role are chosen when the host starts it (`--scope` / FACTGRAPH_MCP_SCOPE,
`--role` / FACTGRAPH_MCP_ROLE, default writer), and so is the tool set (`--tools`, with an
optional `--namespace` prefix on its tool names, as mcp-neo4j-memory's). stdout carries the
protocol and nothing else: while it serves, the SDK points fd 1 at stderr, so everything
factgraph prints goes there.

A host starts this process at every launch and waits for `initialize` and `tools/list`, which
need only the tool definitions. The memory (starting or reaching Neo4j, loading the model,
checking the schema: 1.5-2 s here, minutes when Neo4j must start) loads in a thread once the
host has its tool list, and the first call that needs it waits for it (`LazyMemory`); nothing
heavy is imported before (graph/__init__.py).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import anyio
from mcp.server import ServerRequestContext
from mcp.server.stdio import stdio_server

from graph.auth.roles import Role
from graph.errors import DatabaseUnavailable, FactgraphError
from graph.platform.neo4j_local import Neo4jSetupError
from graph.write.validation import check_scope
from resolvers.mcp.server import build_server
from resolvers.mcp.toolset import Caller, ToolSet
from resolvers.mcp.toolsets import FACTGRAPH

if TYPE_CHECKING:
    from graph.config import Settings
    from graph.memory import Memory

log = logging.getLogger("factgraph.mcp")

# Seconds from a tools/list answer to the start of the memory's load (see `_serve`).
LOAD_AFTER_LIST = 0.05


class LazyMemory:
    """The process's `Memory`, connected on first need: `start()` begins in a thread, `get()`
    waits for it. A failed connection is logged, and the next `get()` tries again, so a call
    made once Neo4j is back works without restarting the host."""

    def __init__(self, connect: Callable[[], Memory]) -> None:
        self._connect = connect
        self._lock = threading.Lock()
        self._memory: Memory | None = None
        self._attempts = 0
        self._failure: FactgraphError | None = None
        self._started = False

    def start(self) -> None:
        """Begin loading in a thread (once: later calls do nothing)."""
        if self._started:
            return
        self._started = True
        threading.Thread(target=self._preload, name="factgraph-mcp-load", daemon=True).start()

    def _preload(self) -> None:
        try:
            self.get()
        except FactgraphError as exc:
            log.error("%s", exc)

    def get(self) -> Memory:
        """The memory, or the error saying why it could not be had (an attempt that failed
        while this call waited for it is that answer; a later call tries again)."""
        seen = self._attempts
        with self._lock:
            if self._memory is None:
                if self._attempts > seen and self._failure is not None:
                    raise self._failure
                self._attempts += 1
                try:
                    self._memory = self._connect()
                except FactgraphError as exc:
                    self._failure = exc
                    raise
                except Exception as exc:  # a setup failure: the operator's to fix, not a crash
                    # Neo4j that cannot be set up or refuses us says why in words, as the
                    # command line says it; anything else is logged with its traceback.
                    from neo4j.exceptions import Neo4jError  # loaded by the connect by now

                    known = isinstance(exc, Neo4jSetupError | Neo4jError)
                    log.error("factgraph could not start: %s", exc, exc_info=None if known else exc)
                    self._failure = DatabaseUnavailable(f"factgraph could not start: {exc}")
                    raise self._failure from exc
            return self._memory

    def close(self) -> None:
        """Close the memory if it was loaded (a load still running is left to the exit)."""
        if self._lock.acquire(blocking=False):
            try:
                if self._memory is not None:
                    self._memory.close()
            finally:
                self._lock.release()


def connect(settings: Settings) -> Memory:
    """Start or reuse the local Neo4j exactly as `factgraph serve` does, then connect."""
    from graph.memory import Memory
    from graph.platform.neo4j_start import ensure_neo4j

    ensure_neo4j(settings)
    return Memory.connect(settings)


def run_stdio(settings: Settings, scope: str, role: Role, tools: ToolSet = FACTGRAPH) -> None:
    """Serve one MCP client on stdio until it leaves; the memory loads in the background."""
    caller = Caller(scope=check_scope(scope), role=role, actor="mcp-stdio")
    memory = LazyMemory(lambda: connect(settings))
    try:
        anyio.run(_serve, memory, caller, tools)
    finally:
        memory.close()


async def _serve(memory: LazyMemory, caller: Caller, tools: ToolSet) -> None:
    def memory_of(_: ServerRequestContext[Any]) -> Memory:
        return memory.get()

    def caller_of(_: ServerRequestContext[Any]) -> Caller:
        return caller

    loop = asyncio.get_running_loop()

    def listed() -> None:
        # The memory (the driver, the model runtime, Neo4j) loads once the host has its tool
        # list: loading it from the start took the cores and the GIL from initialize and
        # tools/list, which a host waits for at every launch. A tool called before any
        # tools/list loads it itself (LazyMemory.get). The delay lets the answer be written.
        loop.call_later(LOAD_AFTER_LIST, memory.start)

    server = build_server(memory_of, caller_of, tool_set=tools, on_listed=listed)
    async with stdio_server() as (read_stream, write_stream):
        # Prints go to stderr from here on: the SDK has moved fd 1 off the protocol.
        await server.run(read_stream, write_stream, server.create_initialization_options())
