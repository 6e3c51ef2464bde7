"""Driving factgraph's MCP server as a host does: the SDK's own client over HTTP or stdio.

Tests are plain functions; each runs one client session with `anyio.run` and a coroutine that
receives the initialised `ClientSession`.
"""

from __future__ import annotations

import os
import ssl
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
import httpx2
import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from resolvers.mcp.server import ERROR_META

T = TypeVar("T")
# One TLS context for every client a test makes: httpx builds a new one per client otherwise,
# loading the CA bundle each time (a sixth of the MCP tests' CPU), though they speak plain HTTP.
TLS = ssl.create_default_context()
Steps = Callable[[ClientSession], Awaitable[T]]


def over_http(
    url: str,
    steps: Steps[T],
    *,
    token: str | None = None,
    scope: str | None = None,
    path: str = "/mcp",
) -> T:
    """Run `steps` in a session with the server at `url` + `path`, sending the key and X-Scope."""
    headers = {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if scope:
        headers["X-Scope"] = scope

    async def main() -> T:
        async with (
            httpx2.AsyncClient(headers=headers, timeout=60, verify=TLS) as client,
            streamable_http_client(f"{url}{path}", http_client=client) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return await steps(session)

    return anyio.run(main)


def factgraph_command() -> str:
    return str(Path(sys.executable).with_name("factgraph"))


def server_environment() -> dict[str, str]:
    """What the subprocess needs to reach the test Neo4j and model (the SDK passes only a
    minimal environment on): every NEO4J_* and FACTGRAPH_* variable, and an absolute home."""
    env = {k: v for k, v in os.environ.items() if k.startswith(("NEO4J_", "FACTGRAPH_"))}
    env.setdefault("FACTGRAPH_HOME", str(Path(".factgraph").resolve()))
    return env


def over_stdio(
    args: list[str],
    steps: Steps[T],
    *,
    env: dict[str, str] | None = None,
    launcher: list[str] | None = None,
) -> T:
    """Run `steps` in a session with a real `factgraph mcp ARGS` subprocess (started by
    `launcher` + ["mcp", *ARGS] when given, a command that runs factgraph's main on them)."""
    command, *before = launcher or [factgraph_command()]
    params = StdioServerParameters(
        command=command,
        args=[*before, "mcp", *args],
        env={**server_environment(), **(env or {})},
        cwd=str(Path.cwd()),
    )

    async def main() -> T:
        with open(os.devnull, "w") as quiet:  # the server's start-up lines go to its stderr
            async with (
                stdio_client(params, errlog=quiet) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                return await steps(session)

    return anyio.run(main)


def ok(result: types.CallToolResult) -> dict[str, Any]:
    """The structured answer of a call that must have succeeded."""
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return dict(result.structured_content)


def failed(result: types.CallToolResult) -> dict[str, Any]:
    """The error of a call that must have failed as a tool error (not a protocol error): its
    code, message and field from `_meta`, which `structuredContent.error` repeats exactly when
    the tool declares no output schema."""
    assert result.is_error, result.structured_content
    assert result.meta is not None
    error = result.meta[ERROR_META]
    tool = result.structured_content
    assert tool is None or tool == {"error": error}, tool
    text = result.content[0]
    assert isinstance(text, types.TextContent)
    assert "Traceback" not in text.text and error["message"] in text.text
    return dict(error)


class ToolsOverHttp:
    """One tool set at `url` + `path`, bound to `scope`: each call its own short session, so a
    specification reads as a list of calls (`tools.ok("read_graph")`)."""

    def __init__(self, url: str, path: str, scope: str, token: str | None = None) -> None:
        self.url, self.path, self.scope, self.token = url, path, scope, token

    def run(self, steps: Steps[T]) -> T:
        return over_http(self.url, steps, token=self.token, scope=self.scope, path=self.path)

    def call(self, name: str, **arguments: Any) -> types.CallToolResult:
        async def steps(session: ClientSession) -> types.CallToolResult:
            return await session.call_tool(name, arguments)

        return self.run(steps)

    def ok(self, name: str, **arguments: Any) -> dict[str, Any]:
        return ok(self.call(name, **arguments))

    def failed(self, name: str, **arguments: Any) -> dict[str, Any]:
        return failed(self.call(name, **arguments))


def text_of(result: types.CallToolResult) -> str:
    """The text content of a tool result (the one text block every answer has)."""
    (block,) = result.content
    assert isinstance(block, types.TextContent)
    return block.text
