"""The Starlette application: GraphQL at /graphql (GraphiQL in a browser, subscriptions over a
WebSocket: resolvers/graphql/subscriptions.py), REST under /api/ (described at /openapi.json),
mem0's API under /v1/, /v2/, /v3/ (resolvers/mem0/), MCP at /mcp, the console for people at
/console, the REST API's documentation page at /docs, /healthz, /metrics.

The memory service is created once per process in the lifespan, or handed in by the caller
(tests and embedding applications), and reached by resolvers through `app.state.memory`.
Every request passes the same middlewares: CORS for the configured origins (resolvers/http/cors.py),
request id and access log, body-size limit (resolvers/http/observe.py), the JSON check of every
body (resolvers/http/json_guard.py), admission control
(resolvers/http/admission.py, fair between tenants) with streams bounded apart
(resolvers/http/streams.py), API-key check, and the bookmark round trip that gives
read-your-writes across replicas (resolvers/http/bookmarks.py); `app.state.gate` says whether keys
are required. WebSockets pass these by: their key is checked at connection_init instead.
"""

from __future__ import annotations

import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route, WebSocketRoute
from strawberry.asgi import GraphQL
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL

from graph.auth.apikeys import KeyStore
from graph.auth.roles import auth_required
from graph.config import Settings
from graph.consolidation import BackgroundConsolidator
from graph.errors import Conflict, DatabaseUnavailable, FactgraphError, NotFound, ValidationError
from graph.memory import Memory
from graph.observability import metrics
from graph.observability.health import HealthJson, health_report, unreachable
from graph.platform import warmup
from resolvers.graphql.graphiql import assets_route
from resolvers.graphql.schema import schema
from resolvers.graphql.subscriptions import LiveGraphQL
from resolvers.http import openapi
from resolvers.http.admission import Admission
from resolvers.http.bookmarks import CausalConsistency
from resolvers.http.context import Gate, memory_of
from resolvers.http.cors import Cors
from resolvers.http.fallbacks import method_not_allowed, not_found
from resolvers.http.json_guard import JsonGuard
from resolvers.http.observe import (
    AuthMiddleware,
    BodyLimit,
    RequestObserver,
    error_body,
    note_error,
)
from resolvers.http.openapi import Reply, described
from resolvers.http.outage import OutageGuard
from resolvers.http.streams import Streams
from resolvers.mcp.http import McpEndpoints
from resolvers.mem0.routes import routes as mem0_routes
from resolvers.pages import api_docs, browser_assets, console
from resolvers.rest import memories as rest_memories
from resolvers.rest import search as rest

log = logging.getLogger("factgraph")


# /healthz's own bound: a probe that waits longer reads as "dead" to most orchestrators.
HEALTH_WITHIN = 0.9


@described(
    "Health",
    tag="Service",
    replies={
        200: Reply("Up: Neo4j answers and every index is online.", HealthJson),
        503: Reply("Down or not ready: `detail` says why.", HealthJson),
    },
    description="Whether this process can serve: Neo4j reachable (and its version), the state "
    "of each index, the embedding model, the background consolidator. For load balancers and "
    "orchestrators; needs no key.",
)
async def healthz(request: Request) -> Response:
    """Runs on worker threads of its own (`app.state.health_threads`): under overload every
    thread of the shared pool can be busy with admitted requests, and a health probe waiting
    behind them would read as "dead".

    Answers within HEALTH_WITHIN whatever Neo4j does: at once while the liveness watcher
    holds it down, and "down" when its queries take longer (a paused server answers nothing).
    """
    memory = memory_of(request)
    report = None
    if memory.db.available or not memory.db.watched:
        with anyio.move_on_after(HEALTH_WITHIN):
            report = await anyio.to_thread.run_sync(
                health_report,
                memory,
                limiter=request.app.state.health_threads,
                abandon_on_cancel=True,
            )
    if report is None:
        report = unreachable(memory, HEALTH_WITHIN)
    if report.neo4j == "down":
        note_error(DatabaseUnavailable.code, report.detail or "Neo4j is down")
    return JSONResponse(report.as_json(), status_code=200 if report.ok else 503)


async def root(_: Request) -> Response:
    return RedirectResponse("/graphql")


@described(
    "Metrics",
    tag="Service",
    replies={200: Reply("Prometheus' text format.", str, "text/plain")},
    description="The service's metrics for Prometheus (docs/operations/observability.md).",
)
async def metrics_page(_: Request) -> Response:
    return Response(metrics.render(), media_type=metrics.CONTENT_TYPE)


_STATUS_OF_ERROR: tuple[tuple[type[FactgraphError], int], ...] = (
    (ValidationError, 400),
    (NotFound, 404),
    (Conflict, 409),
    (DatabaseUnavailable, 503),
)


async def factgraph_error(request: Request, exc: Exception) -> Response:
    """REST handlers raise; this answers with the status the error stands for, never a trace."""
    assert isinstance(exc, FactgraphError)
    status = getattr(exc, "http_status", None) or next(
        (code for kind, code in _STATUS_OF_ERROR if isinstance(exc, kind)), 500
    )
    message = str(exc) if status != 500 else "Internal server error"
    if status == 500:
        log.error("unexpected %s", type(exc).__name__, exc_info=exc)
    note_error(exc.code, str(exc))
    body = error_body(
        request.url.path, exc.code, message, request.scope.get("factgraph.request_id")
    )
    headers = {"Retry-After": "5"} if status == 503 else None
    return Response(body, status_code=status, media_type="application/json", headers=headers)


def describe_auth(required: bool, host: str) -> str:
    if required:
        return "authentication: REQUIRED (API keys; create one with `factgraph keys create`)"
    return (
        f"authentication: OFF (bound to loopback {host}; only local callers are served; "
        "set FACTGRAPH_AUTH=required to demand API keys)"
    )


def create_app(
    memory: Memory | None = None,
    settings: Settings | None = None,
    *,
    require_auth: bool | None = None,
) -> Starlette:
    """Build the ASGI app; with `memory` given, the caller owns its lifetime.

    Once the service is up, everything alive (modules, schema, model, driver) is moved out of
    the garbage collector's reach (`gc.freeze`): a full collection otherwise walks all of it,
    a ~40 ms pause in the middle of some search every thousand or so requests.

    Whether API keys are required follows FACTGRAPH_AUTH and the bind address
    (`graph.auth.roles.auth_required`) unless `require_auth` says so explicitly.
    """
    config = settings or (memory.settings if memory is not None else Settings.from_env())
    required = auth_required(config.auth, config.host) if require_auth is None else require_auth
    gate = Gate(required=required, keys=KeyStore(memory.db) if memory is not None else None)
    mcp = McpEndpoints(keys_required=required)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[dict[str, Any]]:
        log.info(describe_auth(required, config.host), extra={"auth_required": required})
        if memory is not None:
            app.state.memory = memory
            memory.db.watch()
            gc.freeze()
            async with mcp.lifespan():  # the MCP session manager runs as long as the app
                yield {}
            return
        owned = await run_in_threadpool(Memory.connect, config)
        owned.db.watch()
        await run_in_threadpool(owned.embedder.warm_queries)
        if warmup.enabled(config):
            app.state.warmup = warmup.warm_in_background(owned.db)
        worker = BackgroundConsolidator.start_for(owned) if config.consolidation.worker else None
        metrics.instrument(owned.db)
        app.state.memory = owned
        gate.keys = KeyStore(owned.db)
        gc.freeze()
        try:
            async with mcp.lifespan():
                yield {}
        finally:
            if worker is not None:
                await run_in_threadpool(worker.stop)
            owned.close()

    graphql_app: GraphQL[Any, Any] = LiveGraphQL(
        schema,
        graphql_ide="graphiql",
        subscription_protocols=[GRAPHQL_TRANSPORT_WS_PROTOCOL],
        # A browser's WebSocket from another origin: only from the CORS origins.
        allowed_origins=config.cors_origins,
    )
    routes = [
        Route("/", root),
        Route("/healthz", healthz),
        Route("/metrics", metrics_page),
        Route("/graphql", graphql_app, methods=["GET", "POST"]),
        WebSocketRoute("/graphql", graphql_app),
        *mcp.routes(),
        assets_route(),
        *browser_assets.routes,
        *console.routes,
        *api_docs.routes,
        *rest.routes,
        *rest_memories.routes,
        *openapi.routes,
        *mem0_routes,
    ]
    # Outermost: a preflight is answered before any limit or key check (a browser sends no
    # key with it), and every answer, a 401 or 503 included, carries the headers that let the
    # page read it.
    cors = [Middleware(Cors, origins=config.cors_origins)] if config.cors_origins else []
    middleware = [
        *cors,
        Middleware(RequestObserver),
        Middleware(BodyLimit, limit=config.max_body_bytes),
        Middleware(JsonGuard),
        # Streams (MCP's event stream, the WebSocket) are bounded apart, and pass admission by.
        Middleware(
            Streams,
            total=config.max_streams,
            per_client=config.max_streams_per_client,
            idle_timeout=config.stream_idle_timeout,
            retry_after=config.retry_after,
        ),
        # After the body is read: a slow upload must not hold one of the few admission slots.
        Middleware(
            Admission,
            limit=config.max_queue,
            retry_after=config.retry_after,
            per_tenant=config.tenant_queue,
            wait=config.admission_wait,
        ),
        # Inside admission: a request cut off by a Neo4j outage gives its slot back at once.
        Middleware(OutageGuard),
        Middleware(AuthMiddleware, gate=gate),
        # Innermost: its context variable must be set in the task that runs the route.
        Middleware(CausalConsistency),
    ]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=middleware,
        exception_handlers={
            FactgraphError: factgraph_error,
            404: not_found,
            405: method_not_allowed,
        },
    )
    app.state.gate = gate
    app.state.health_threads = anyio.CapacityLimiter(2)
    app.state.default_scope = config.default_scope
    if memory is not None:
        app.state.memory = memory
        metrics.instrument(memory.db)
    return app
