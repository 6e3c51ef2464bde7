"""What wraps every request: request id, access log, metrics, body limit, API-key check.

These are plain ASGI middlewares (no per-request thread, no buffering) so they apply to every
route at once: GraphQL, REST, mem0's routes, MCP, /healthz. Two GraphQL extensions complete them
(`resolvers.graphql.observe`).
"""

from __future__ import annotations

import json
import logging
import re
import time
import uuid
from collections.abc import Mapping
from contextvars import ContextVar
from http import HTTPStatus
from typing import Any

from opentelemetry.trace import Status, StatusCode
from opentelemetry.util.types import AttributeValue
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from graph.auth.roles import Unauthenticated
from graph.errors import DatabaseUnavailable
from graph.observability import metrics, tracing
from resolvers.http import mem0_paths
from resolvers.http.context import Gate, api_key_of, set_principal

access_log = logging.getLogger("factgraph.access")
log = logging.getLogger("factgraph.http")

_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
_KNOWN_ROUTES = frozenset(
    {
        *("/", "/graphql", "/healthz", "/metrics"),
        *("/mcp", "/mcp/factgraph", "/mcp/memory", "/mcp/neo4j-memory"),
    }
)


def route_label(path: str) -> str:
    """A bounded label for metrics: known routes as-is, REST by its first three segments."""
    if path in _KNOWN_ROUTES:
        return path
    if path.startswith("/api/"):
        return "/" + "/".join(path.strip("/").split("/")[:3])
    if mem0_paths.is_mem0_path(path):
        return mem0_paths.route_label(path)
    return "other"


def serves_data(scope: Scope) -> bool:
    """/graphql, /api/, /mcp and mem0's routes: those that reach tenant data (the GraphiQL page
    does not)."""
    path: str = scope["path"]
    if path.startswith("/api/") or path == "/mcp" or path.startswith("/mcp/"):
        return True
    if mem0_paths.is_mem0_path(path):
        return True
    if path == "/graphql":
        return not (scope["method"] == "GET" and not scope.get("query_string"))
    return False


def error_body(
    path: str,
    code: str,
    message: str,
    request_id: str | None,
    extra: Mapping[str, str] | None = None,
) -> bytes:
    """GraphQL-shaped errors on /graphql, `{"error": {...}}` elsewhere (with mem0's `detail`
    beside it on mem0's routes, which its clients show); never a traceback. `extra` goes into
    the error object (GraphQL: its extensions): bad input's `field` and `reason`."""
    detail: dict[str, Any] = {"code": code, "message": message, **(extra or {})}
    if request_id:
        detail["request_id"] = request_id
    if path.startswith("/graphql"):
        extensions = {k: v for k, v in detail.items() if k != "message"}
        return json.dumps({"errors": [{"message": message, "extensions": extensions}]}).encode()
    if mem0_paths.is_mem0_path(path):
        return json.dumps({"detail": message, "error": detail}).encode()
    return json.dumps({"error": detail}).encode()


async def send_error(
    scope: Scope,
    send: Send,
    status: int,
    code: str,
    message: str,
    *,
    extra: Mapping[str, str] | None = None,
    challenge: str | None = None,
    **headers: str,
) -> None:
    """The error answer of a middleware; `challenge` is a 401's `WWW-Authenticate`."""
    if challenge is not None:
        headers["www_authenticate"] = challenge
    note_error(code, message)
    body = error_body(
        scope.get("path", ""), code, message, scope.get("factgraph.request_id"), extra
    )
    raw = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw += [(k.replace("_", "-").lower().encode(), v.encode()) for k, v in headers.items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


# The error code and message the request being served is answered with, noted by whichever
# layer answered it so, for its access-log line. A list, so that a note made in a copied
# context (the thread pool, an MCP call's task) reaches the request that set it.
_noted: ContextVar[list[tuple[str, str]] | None] = ContextVar("factgraph_error_code", default=None)
_MAX_LOGGED_MESSAGE = 500
# 5xx answers that are the service keeping its promise during a Neo4j outage (503 with
# Retry-After, recovery by itself): INFO each, since the outage itself is logged once, as a
# WARNING, by graph/storage/db.py. Any other 5xx is a WARNING line.
_ANNOUNCED = frozenset({"DATABASE_UNAVAILABLE"})


def note_error(code: str, message: str) -> None:
    """Note the error code this request is answered with, for its one access-log line (which
    then carries `code` and `error`; the first note of a request is kept).

    For a request refused for something the client can fix (bad input, an unknown id, a
    missing role), for load, or while Neo4j is away, this note is all that is logged: INFO
    (WARNING for a 5xx other than DATABASE_UNAVAILABLE), never ERROR, which is kept for the
    service's own faults, logged with their traceback where they happen. Outside an HTTP
    request (a subscription's messages, MCP on stdio) the note is an INFO line of its own.
    """
    noted = _noted.get()
    if noted is None:
        access_log.info(
            "answered %s: %s",
            code,
            message[:_MAX_LOGGED_MESSAGE],
            extra={"code": code, "error": message[:_MAX_LOGGED_MESSAGE]},
        )
    elif not noted:
        noted.append((code, message))


def _status_name(status: int) -> tuple[str, str]:
    """A code and message for an error answer no layer of ours noted: BAD_REQUEST, ..."""
    try:
        known = HTTPStatus(status)
    except ValueError:
        return f"HTTP_{status}", f"HTTP {status}"
    return known.name, known.phrase


def _span_name(method: str, route: str) -> str:
    return method if route == "other" else f"{method} {route}"


class RequestObserver:
    """Outermost layer: X-Request-ID in and out, the request's span, one JSON access-log
    line, HTTP metrics.

    An exception nothing else handled becomes a 500 whose body names the request id (so an
    operator can find the traceback in the log) and nothing else: that, and the service's own
    faults elsewhere, are the only ERROR lines. A request refused for the client's mistake is
    one INFO line with its `code` (`note_error`); 5xx answers are WARNING.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = HTTPConnection(scope).headers
        incoming = headers.get("x-request-id", "")
        rid = incoming if _REQUEST_ID.match(incoming) else uuid.uuid4().hex
        scope["factgraph.request_id"] = rid
        token = tracing.request_id.set(rid)
        noted: list[tuple[str, str]] = []
        noting = _noted.set(noted)
        started = time.perf_counter()
        status = 500
        response_started = False
        method, path = scope["method"], scope["path"]
        route = route_label(path)
        attributes: dict[str, AttributeValue] = {
            "http.request.method": method,
            "url.path": path,
            "url.scheme": scope.get("scheme", "http"),
            "factgraph.request_id": rid,
        }
        if route != "other":
            attributes["http.route"] = route

        async def observed_send(message: Message) -> None:
            nonlocal status, response_started
            if message["type"] == "http.response.start":
                response_started = True
                status = int(message["status"])
                MutableHeaders(scope=message).append("X-Request-ID", rid)
            await send(message)

        with tracing.server_span(_span_name(method, route), headers, attributes) as span:
            try:
                await self.app(scope, receive, observed_send)
            except Exception as exc:
                log.exception("unhandled error in %s %s", method, path)
                span.record_exception(exc)
                if not response_started:
                    await send_error(
                        scope, observed_send, 500, "INTERNAL_SERVER_ERROR", "Internal server error"
                    )
            finally:
                elapsed = time.perf_counter() - started
                metrics.HTTP_REQUESTS.labels(route, method, str(status)).inc()
                metrics.HTTP_LATENCY.labels(route, method).observe(elapsed)
                client = scope.get("client")
                extra: dict[str, Any] = {
                    "method": method,
                    "path": path,
                    "status": status,
                    "duration_ms": round(elapsed * 1000, 2),
                    "client": client[0] if client else None,
                }
                if not noted and status >= 400:  # refused by a library (strawberry, the MCP SDK)
                    noted.append(_status_name(status))
                if noted:
                    code, message = noted[0]
                    extra.update(code=code, error=message[:_MAX_LOGGED_MESSAGE])
                    span.set_attribute("factgraph.error.code", code)
                span.set_attribute("http.response.status_code", status)
                if status >= 500:
                    span.set_attribute("error.type", str(status))
                    span.set_status(Status(StatusCode.ERROR))
                announced = noted and noted[0][0] in _ANNOUNCED
                access_log.log(
                    logging.WARNING if status >= 500 and not announced else logging.INFO,
                    "%s %s %s%s",
                    method,
                    path,
                    status,
                    f" {extra['code']}" if noted else "",
                    extra=extra,
                )
                _noted.reset(noting)
                tracing.request_id.reset(token)


class _TooLarge(Exception):
    pass


class BodyLimit:
    """Refuse request bodies over `limit` bytes with 413, whether announced or streamed."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = HTTPConnection(scope).headers.get("content-length")
        if declared is not None:
            if not declared.isdigit():
                await send_error(scope, send, 400, "BAD_REQUEST", "invalid Content-Length")
                return
            if int(declared) > self.limit:
                await self._refuse(scope, send)
                return
        received = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
                    raise _TooLarge
            return message

        async def tracked_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, tracked_send)
        except _TooLarge:
            if not started:
                await self._refuse(scope, send)

    async def _refuse(self, scope: Scope, send: Send) -> None:
        await send_error(
            scope,
            send,
            413,
            "PAYLOAD_TOO_LARGE",
            f"request body larger than {self.limit} bytes (FACTGRAPH_MAX_BODY_BYTES)",
        )


class AuthMiddleware:
    """Verify the API key of requests to /graphql, /api/ and /mcp before they reach a route.

    The key is looked up in the thread pool (a Neo4j read on a cache miss), never on the event
    loop, and stored in the ASGI scope for `resolvers.http.context.authorize` to check scope and
    role. The GraphiQL page itself (a GET without a query) needs no key.
    """

    def __init__(self, app: ASGIApp, gate: Gate) -> None:
        self.app = app
        self.gate = gate

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not self.gate.required or not serves_data(scope):
            await self.app(scope, receive, send)
            return
        keys = self.gate.keys
        try:
            if keys is None:
                raise DatabaseUnavailable("the service is starting; retry shortly")
            key = await run_in_threadpool(keys.authenticate, api_key_of(HTTPConnection(scope)))
        except Unauthenticated as exc:
            metrics.AUTH_FAILURES.labels(exc.code).inc()
            await send_error(scope, send, 401, exc.code, str(exc), www_authenticate="Bearer")
            return
        except DatabaseUnavailable as exc:
            await send_error(scope, send, 503, exc.code, str(exc), retry_after="5")
            return
        set_principal(scope, key)
        await self.app(scope, receive, send)
