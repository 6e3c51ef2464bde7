"""The MCP server over `Memory`: tools, resources, and turning errors into tool errors.

One `mcp.server.Server` per tool set (the SDK's low-level server, so every tool's JSON schema
is written out rather than derived; resolvers/mcp/toolsets/) serves both transports.
What differs per transport is only who the caller is: `caller_of(ctx)` answers it (a fixed
caller on stdio, the API key and the bound scope of the HTTP request on /mcp). A tool call
that fails for any reason the caller can fix comes back as a tool result with `isError: true`
whose text names the field, and is logged as the request's code at INFO
(`resolvers.http.observe.note_error`); anything unexpected is logged at ERROR and answered as
"Internal server error", never a traceback.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

import anyio.to_thread
import mcp_types as types
import pydantic
from mcp.server import Server, ServerRequestContext
from mcp.server.context import CallNext, HandlerResult
from mcp.shared.exceptions import MCPError

from graph.auth.roles import Forbidden, Unauthenticated, check_role
from graph.errors import FactgraphError, NotFound, ValidationError
from graph.write.facts import DecisionKind
from resolvers.mcp import shapes
from resolvers.mcp.arguments import Arguments
from resolvers.mcp.toolset import Caller, Tool, ToolSet, coded
from resolvers.mcp.toolsets import FACTGRAPH

if TYPE_CHECKING:
    from graph.memory import Memory

log = logging.getLogger("factgraph.mcp")

CallerOf = Callable[[ServerRequestContext[Any]], Caller]
MemoryOf = Callable[[ServerRequestContext[Any]], "Memory"]  # may block: called in a worker thread
A = TypeVar("A")
R = TypeVar("R")


def _listing(tool: Tool) -> types.Tool:
    return types.Tool(
        name=tool.name,
        title=tool.title,
        description=tool.description,
        input_schema=tool.schema,
        output_schema=tool.output_schema,
        annotations=types.ToolAnnotations(
            title=tool.title,
            read_only_hint=tool.read_only,
            destructive_hint=tool.destructive,
            idempotent_hint=tool.read_only if tool.idempotent is None else tool.idempotent,
            open_world_hint=tool.open_world,
        ),
    )


# Where a tool error's code, message and field are kept for programs, beside the text.
ERROR_META = "factgraph/error"


def tool_error(
    code: str,
    message: str,
    field: str | None = None,
    *,
    text: Callable[[str, str], str] = coded,
    structured: bool = True,
) -> types.CallToolResult:
    """A failed call as the model sees it: text with `isError`, worded as the tool set words
    it; the code, message and field in `_meta`. With `structured` (a tool without an output
    schema) they are `structuredContent.error` too: a tool's output schema describes its
    answer, and the TypeScript SDK's client (1.32) checks any structured content against it,
    error or not, so such a tool's errors carry none, as the reference server's do."""
    error: dict[str, Any] = {"code": code, "message": message}
    if field is not None:
        error["field"] = field
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text(code, message))],
        structured_content={"error": error} if structured else None,
        is_error=True,
        _meta={ERROR_META: error},
    )


def note_error(code: str, message: str) -> None:
    """`resolvers.http.observe.note_error`, imported on first use: it brings OpenTelemetry and
    Prometheus' client, which `factgraph mcp` does not need to answer tools/list."""
    from resolvers.http.observe import note_error as note

    note(code, message)


def _record_decisions(tool: str, result: Any) -> None:
    """The metrics of the decisions a write tool made (imported on first use, as above)."""
    from graph.observability import metrics

    if tool in ("remember", "validate"):
        metrics.record_decision(_kind_of(result))
    elif tool == "remember_many":
        for item in result["results"]:
            metrics.record_decision(_kind_of(item))


def error_result(
    exc: Exception, text: Callable[[str, str], str] = coded, *, structured: bool = True
) -> types.CallToolResult:
    """The tool error for `exc`: the caller's mistakes are noted for the request's access-log
    line (INFO, with the code); only an unexpected exception is logged at ERROR."""
    if isinstance(exc, FactgraphError):
        note_error(exc.code, str(exc))
        field = exc.field if isinstance(exc, ValidationError) else None
        return tool_error(exc.code, str(exc), field, text=text, structured=structured)
    log.error("unexpected %s in an MCP tool call", type(exc).__name__, exc_info=exc)
    note_error("INTERNAL_SERVER_ERROR", type(exc).__name__)
    return tool_error(
        "INTERNAL_SERVER_ERROR", "Internal server error", text=text, structured=structured
    )


def refusal(code: int, exc: FactgraphError) -> MCPError:
    """A JSON-RPC error for a request refused for the caller's mistake, noted as such."""
    note_error(exc.code, str(exc))
    return MCPError(code, str(exc))


def visible(caller: Caller, tool_set: ToolSet = FACTGRAPH) -> list[Tool]:
    """The tools this caller's role may call (a reader is not offered remember)."""
    return [tool for tool in tool_set.tools if caller.role >= tool.role]


def build_server(
    memory_of: MemoryOf,
    caller_of: CallerOf,
    *,
    tool_set: ToolSet = FACTGRAPH,
    name: str = "factgraph",
    on_listed: Callable[[], None] | None = None,
) -> Server[Any]:
    """The MCP server of one tool set; `memory_of` / `caller_of` say which service and which
    caller a request has (the app's memory may only exist once its lifespan has started).
    `on_listed` is called each time a tools/list answer is ready (stdio starts loading the
    memory then)."""
    tools = tool_set.by_name
    checkers = {tool.name: Arguments(tool.schema) for tool in tool_set.tools}
    resources = tool_set.resources

    def caller(ctx: ServerRequestContext[Any]) -> Caller:
        try:
            return caller_of(ctx)
        except (Unauthenticated, Forbidden, ValidationError) as exc:
            raise refusal(types.INVALID_REQUEST, exc) from None

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        listed = types.ListToolsResult(tools=[_listing(t) for t in visible(caller(ctx), tool_set)])
        if on_listed is not None:
            on_listed()
        return listed

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        tool = tools.get(params.name)
        try:
            who = caller_of(ctx)
            if tool is None:
                raise ValidationError("name", f"unknown tool {params.name!r}")
            check_role(who.role, tool.role)
            arguments = checkers[tool.name].check(params.arguments)
            result = await anyio.to_thread.run_sync(
                partial(_with_memory, tool.run, memory_of, ctx, who, arguments)
            )
            text = tool.text(result)
        except Exception as exc:  # every failure is the model's to read, never a crash
            structured = tool is None or tool.output_schema is None
            return error_result(exc, tool_set.error_text, structured=structured)
        _record_decisions(tool.name, result)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)],
            structured_content=result,
        )

    async def list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=resources.listed(caller(ctx)))

    async def list_templates(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(
            resource_templates=resources.templates(caller(ctx))
        )

    async def read_resource(
        ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        who = caller(ctx)
        uri = str(params.uri)
        try:
            text = await anyio.to_thread.run_sync(
                partial(_with_memory, resources.read, memory_of, ctx, who, uri)
            )
        except NotFound as exc:
            raise refusal(-32002, exc) from None
        except FactgraphError as exc:
            raise refusal(types.INVALID_PARAMS, exc) from None
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type="application/json", text=text)]
        )

    server = Server(
        name,
        version=_version(),
        title=tool_set.title,
        instructions=tool_set.instructions,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
    )
    server.middleware.append(note_protocol_errors)
    return server


# JSON-RPC's error codes by name, for the access-log line of an MCP request refused by the SDK.
_JSONRPC_CODES = {
    types.PARSE_ERROR: "PARSE_ERROR",
    types.INVALID_REQUEST: "INVALID_REQUEST",
    types.METHOD_NOT_FOUND: "METHOD_NOT_FOUND",
    types.INVALID_PARAMS: "INVALID_PARAMS",
    types.INTERNAL_ERROR: "INTERNAL_ERROR",
    -32002: "NOT_FOUND",  # an unknown resource
}


async def note_protocol_errors(
    ctx: ServerRequestContext[Any, Any], call_next: CallNext
) -> HandlerResult:
    """The SDK's own refusals (an unknown method, malformed params) noted with their JSON-RPC
    code for the request's access-log line, as the tools' errors are (a middleware of the
    SDK's server: it sees every request's failure)."""
    try:
        return await call_next(ctx)
    except MCPError as exc:
        code = exc.error.code
        note_error(_JSONRPC_CODES.get(code, f"JSONRPC_{code}"), exc.error.message)
        raise
    except pydantic.ValidationError:
        note_error("INVALID_PARAMS", "Invalid request parameters")
        raise


def _with_memory(
    work: Callable[[Memory, Caller, A], R],
    memory_of: MemoryOf,
    ctx: ServerRequestContext[Any],
    who: Caller,
    argument: A,
) -> R:
    """`work` on the request's memory, in the worker thread: on stdio `memory_of` waits while
    the memory loads, which must not hold up the event loop (pings, other requests)."""
    return work(memory_of(ctx), who, argument)


def _kind_of(result: dict[str, Any]) -> str:
    outcome = result.get("decision")
    kinds = {word: kind.value for kind, word in shapes.OUTCOME.items()}
    return kinds.get(str(outcome), DecisionKind.INSERT.value)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("factgraph")
    except PackageNotFoundError:
        return "0"
