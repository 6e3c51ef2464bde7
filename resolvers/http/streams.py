"""Long-lived connections (MCP's event stream, GraphQL's WebSocket), bounded apart from requests.

A stream stays open for as long as its client listens, and an idle one costs the service a
task and a keep-alive every 15 s, not a worker. Counted among the admitted requests, as until
issue 64, eight idle `GET /mcp` streams held every admission slot, and every API request of
every tenant was answered 503 for as long as they stayed open. So streams pass admission by
(`STREAM` in the ASGI scope) and are bounded here instead: at most `per_client` per API key (per
client address without one), at most `total` in all, each closed after `idle_timeout` seconds
with nothing but keep-alives. A stream past a bound is refused before it opens with
`TOO_MANY_STREAMS`: 429 past the client's own bound, 503 past the total, with Retry-After (a
WebSocket gets the same HTTP answer to its upgrade where the server supports it, else a close
with 1013, "try again later").

The counters live on the event loop (single-threaded), so they need no lock.
"""

from __future__ import annotations

import time

import anyio
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from graph.observability import metrics
from resolvers.http.observe import error_body, note_error, send_error
from resolvers.http.tenants import stream_owner

STREAM = "factgraph.stream"
TOO_MANY_STREAMS = "TOO_MANY_STREAMS"
# sse-starlette's keep-alive is a comment line (": ping - <time>"); graphql-transport-ws has
# ping and pong messages. Neither is activity.
_SSE_PING = b": ping"
_WS_KEEPALIVES = ('"ping"', '"pong"')
# A WebSocket close that asks the client to come back later (RFC 6455's 1013), and one that says
# the server ended an idle connection (1001, going away).
_TRY_AGAIN_LATER = 1013
_GOING_AWAY = 1001


def is_stream(scope: Scope) -> bool:
    """A WebSocket, or a GET of /mcp (any tool set) that accepts an event stream."""
    if scope["type"] == "websocket":
        return True
    if scope["type"] != "http" or scope["method"] != "GET":
        return False
    path: str = scope["path"]
    if path != "/mcp" and not path.startswith("/mcp/"):
        return False
    return "text/event-stream" in HTTPConnection(scope).headers.get("accept", "")


def _keepalive_frame(message: Message) -> bool:
    text = message.get("text")
    return isinstance(text, str) and len(text) < 128 and any(k in text for k in _WS_KEEPALIVES)


class Streams:
    """Count streams per owner and in all, refuse past the bounds, close idle ones (0: none)."""

    def __init__(
        self, app: ASGIApp, *, total: int, per_client: int, idle_timeout: int, retry_after: int
    ) -> None:
        self.app = app
        self.total = total
        self.per_client = per_client
        self.idle_timeout = idle_timeout
        self.retry_after = retry_after
        self.open = 0
        self.by_owner: dict[str, int] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or not is_stream(scope):
            await self.app(scope, receive, send)
            return
        scope[STREAM] = True
        owner = stream_owner(scope)
        held = self.by_owner.get(owner, 0)
        if self.per_client and held >= self.per_client:
            message = (
                f"this client already holds {held} open streams "
                f"(FACTGRAPH_MAX_STREAMS_PER_CLIENT); close one, or retry after "
                f"{self.retry_after} s"
            )
            await self._refuse(scope, receive, send, 429, "client", message)
            return
        if self.total and self.open >= self.total:
            message = (
                f"the service holds {self.open} open streams (FACTGRAPH_MAX_STREAMS); "
                f"retry after {self.retry_after} s"
            )
            await self._refuse(scope, receive, send, 503, "total", message)
            return
        self.open += 1
        self.by_owner[owner] = held + 1
        metrics.STREAMS_OPEN.inc()
        try:
            await self._serve(scope, receive, send)
        finally:
            self.open -= 1
            left = self.by_owner[owner] - 1
            if left:
                self.by_owner[owner] = left
            else:
                del self.by_owner[owner]
            metrics.STREAMS_OPEN.dec()

    async def _refuse(
        self, scope: Scope, receive: Receive, send: Send, status: int, bound: str, message: str
    ) -> None:
        metrics.STREAMS_REFUSED.labels(bound).inc()
        retry = str(self.retry_after)
        if scope["type"] == "http":
            await send_error(scope, send, status, TOO_MANY_STREAMS, message, retry_after=retry)
            return
        note_error(TOO_MANY_STREAMS, message)
        await receive()  # websocket.connect: only then may the upgrade be answered
        if "websocket.http.response" not in scope.get("extensions", {}):
            await send({"type": "websocket.close", "code": _TRY_AGAIN_LATER, "reason": message})
            return
        raw = error_body(scope["path"], TOO_MANY_STREAMS, message, None)
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(raw)).encode()),
            (b"retry-after", retry.encode()),
        ]
        await send({"type": "websocket.http.response.start", "status": status, "headers": headers})
        await send({"type": "websocket.http.response.body", "body": raw})

    async def _serve(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run the stream; past `idle_timeout` seconds without activity, end it cleanly."""
        if not self.idle_timeout:
            await self.app(scope, receive, send)
            return
        last = time.monotonic()
        started = finished = False

        async def watched_send(message: Message) -> None:
            nonlocal last, started, finished
            kind = message["type"]
            if kind in ("http.response.start", "websocket.accept"):
                started = True
            elif kind == "http.response.body":
                body = message.get("body", b"")
                if body and not body.startswith(_SSE_PING):
                    last = time.monotonic()
                finished = finished or not message.get("more_body", False)
            elif kind == "websocket.send" and not _keepalive_frame(message):
                last = time.monotonic()
            elif kind == "websocket.close":
                finished = True
            await send(message)

        async def watched_receive() -> Message:
            nonlocal last
            message = await receive()
            if message["type"] == "websocket.receive" and not _keepalive_frame(message):
                last = time.monotonic()
            return message

        idle = False
        async with anyio.create_task_group() as group:

            async def watchdog() -> None:
                nonlocal idle
                while (wait := last + self.idle_timeout - time.monotonic()) > 0:
                    await anyio.sleep(wait)
                idle = True
                group.cancel_scope.cancel()

            group.start_soon(watchdog)
            await self.app(scope, watched_receive, watched_send)
            group.cancel_scope.cancel()
        if not idle or not started or finished:
            return
        metrics.STREAMS_IDLE_CLOSED.inc()
        if scope["type"] == "http":
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        else:
            await send({"type": "websocket.close", "code": _GOING_AWAY, "reason": "idle"})
