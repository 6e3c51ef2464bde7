"""The Starlette application: GraphQL at /graphql (GraphiQL in a browser) and /healthz.

The memory service is created once per process in the lifespan, or handed in by the caller
(tests and embedding applications), and reached by resolvers through `app.state.memory`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route
from strawberry.asgi import GraphQL

from graph.config import Settings
from graph.health import health_report
from graph.memory import Memory
from resolvers.context import memory_of
from resolvers.schema import schema


async def healthz(request: Request) -> Response:
    report = await run_in_threadpool(health_report, memory_of(request))
    return JSONResponse(report.as_json(), status_code=200 if report.ok else 503)


async def root(_: Request) -> Response:
    return RedirectResponse("/graphql")


def create_app(memory: Memory | None = None, settings: Settings | None = None) -> Starlette:
    """Build the ASGI app; with `memory` given, the caller owns its lifetime."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[dict[str, Any]]:
        if memory is not None:
            app.state.memory = memory
            yield {}
            return
        owned = await run_in_threadpool(Memory.connect, settings or Settings.from_env())
        app.state.memory = owned
        try:
            yield {}
        finally:
            owned.close()

    graphql_app: GraphQL[Any, Any] = GraphQL(schema, graphql_ide="graphiql")
    routes = [
        Route("/", root),
        Route("/healthz", healthz),
        Route("/graphql", graphql_app, methods=["GET", "POST"]),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    if memory is not None:
        app.state.memory = memory
    return app
