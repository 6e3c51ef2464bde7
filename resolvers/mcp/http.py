"""MCP over streamable HTTP at /mcp, behind the same API keys, scopes and roles as GraphQL.

`resolvers.http.observe.AuthMiddleware` has verified the key before a request gets here (as for
/graphql and /api/). This endpoint then binds the request to one scope, the agent's memory:
the `X-Scope` header (or `?scope=`), or, when the key is bound to exactly one scope, that one;
`resolvers.http.context.authorize` checks the key may read it, and each tool checks its own role.
A refused request never reaches the SDK: 400 / 401 / 403 with the service's JSON error body.

The SDK runs stateless with JSON responses: every POST carries its key and is answered on its
own, so no session can outlive a revoked key or be reused by another key. Its session manager
must be running (`lifespan()`, entered from the Starlette app's lifespan) before requests come.

Each tool set (resolvers/mcp/toolsets/) has its own endpoint: /mcp serves factgraph's
tools, /mcp/memory and /mcp/neo4j-memory the knowledge-graph tools of the servers of those
names (`/mcp?tools=NAME` says the same), behind the same keys and scopes.

Stateless, the SDK serves POST (a call) and GET (the event stream) and nothing else: no session
to end with DELETE, no HEAD. Every other method gets one 405 from here, whatever the route
or the SDK would have said, with the one `Allow` header that says so (`SERVED`).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from mcp.server import ServerRequestContext
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import HTTPConnection, Request
from starlette.routing import Match, Route
from starlette.types import Receive, Scope, Send

from graph.auth.roles import Role, Unauthenticated
from graph.errors import FactgraphError, ValidationError
from graph.memory import Memory
from graph.write.validation import check_scope
from resolvers.http.context import authorize, principal_of
from resolvers.http.observe import send_error
from resolvers.mcp.server import build_server
from resolvers.mcp.toolset import Caller, ToolSet
from resolvers.mcp.toolsets import FACTGRAPH, TOOL_SETS, tool_set

PATH = "/mcp"
SERVED = ("GET", "POST")
SCOPE_HEADER = "x-scope"
_BOUND = "factgraph.mcp_scope"
# When no key is required the server only answers loopback callers; checking Host and Origin
# as well keeps a web page from reaching it through DNS rebinding.
_LOCAL = TransportSecuritySettings(
    enable_dns_rebinding_protection=True,
    allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*", "127.0.0.1", "localhost", "[::1]"],
    allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
)


def bound_scope(connection: HTTPConnection) -> str:
    """The scope this request works on; ValidationError when it cannot be told."""
    named = connection.headers.get(SCOPE_HEADER) or connection.query_params.get("scope")
    if named:
        return check_scope(named)
    key = principal_of(connection)
    if key is not None and key.only_scope is not None:
        return key.only_scope
    raise ValidationError(
        "scope",
        "send the X-Scope header (or ?scope=NAME) to choose which memory this connection uses",
    )


def _memory_of(ctx: ServerRequestContext[Any]) -> Memory:
    request = ctx.request
    assert isinstance(request, Request)
    memory: Memory = request.app.state.memory
    return memory


def _caller_of(ctx: ServerRequestContext[Any]) -> Caller:
    request = ctx.request
    if not isinstance(request, Request) or _BOUND not in request.scope:
        raise Unauthenticated("this MCP request did not pass the /mcp endpoint")
    key = principal_of(request)
    if key is None:  # keys are off: only loopback callers got here, and they may do anything
        return Caller(scope=request.scope[_BOUND], role=Role.ADMIN, actor="mcp")
    return Caller(scope=request.scope[_BOUND], role=key.role, actor=key.id)


async def refused_method(scope: Scope, send: Send) -> bool:
    """Answer a method MCP does not serve with 405 and `Allow`; whether it was one."""
    method = scope.get("method", "")
    if method in SERVED:
        return False
    message = f"/mcp serves {' and '.join(SERVED)}, not {method}"
    await send_error(scope, send, 405, "METHOD_NOT_ALLOWED", message, allow=", ".join(SERVED))
    return True


class _McpRoute(Route):
    """A route that hands every method to its endpoint, which answers those it does not serve
    (Starlette's own 405 would list HEAD, which it adds beside GET, but the SDK does not serve)."""

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        match, child = super().matches(scope)
        return (Match.FULL if match is Match.PARTIAL else match), child

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app(scope, receive, send)


class McpEndpoint:
    """The ASGI app of one tool set (/mcp for factgraph's own)."""

    def __init__(self, *, keys_required: bool, tools: ToolSet = FACTGRAPH) -> None:
        self.server = build_server(_memory_of, _caller_of, tool_set=tools)
        self.manager = StreamableHTTPSessionManager(
            app=self.server,
            stateless=True,
            json_response=True,
            security_settings=None if keys_required else _LOCAL,
        )

    @contextlib.asynccontextmanager
    async def lifespan(self) -> AsyncIterator[None]:
        async with self.manager.run():
            yield

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if await refused_method(scope, send):
            return
        connection = HTTPConnection(scope)
        try:
            name = bound_scope(connection)
            authorize(connection, name, "reader")
        except FactgraphError as exc:
            status = getattr(exc, "http_status", None) or 400
            challenge = "Bearer" if status == 401 else None
            extra = {"field": exc.field} if isinstance(exc, ValidationError) else None
            await send_error(
                scope, send, status, exc.code, str(exc), extra=extra, challenge=challenge
            )
            return
        scope[_BOUND] = name
        await self.manager.handle_request(scope, receive, send)


class McpEndpoints:
    """Every tool set's endpoint: /mcp (factgraph's tools, or `?tools=NAME`) and /mcp/NAME."""

    def __init__(self, *, keys_required: bool) -> None:
        self.by_name = {
            name: McpEndpoint(keys_required=keys_required, tools=tools)
            for name, tools in TOOL_SETS.items()
        }

    @contextlib.asynccontextmanager
    async def lifespan(self) -> AsyncIterator[None]:
        async with contextlib.AsyncExitStack() as stack:
            for endpoint in self.by_name.values():
                await stack.enter_async_context(endpoint.lifespan())
            yield

    def routes(self) -> list[Route]:
        methods = list(SERVED)
        named = [
            _McpRoute(f"{PATH}/{name}", e, methods=methods) for name, e in self.by_name.items()
        ]
        return [_McpRoute(PATH, self, methods=methods), *named]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """/mcp: the tool set `?tools=` names (factgraph's own without it)."""
        if await refused_method(scope, send):
            return
        named = HTTPConnection(scope).query_params.get("tools") or FACTGRAPH.name
        try:
            endpoint = self.by_name[tool_set(named).name]
        except FactgraphError as exc:
            await send_error(scope, send, 400, exc.code, str(exc))
            return
        await endpoint(scope, receive, send)
