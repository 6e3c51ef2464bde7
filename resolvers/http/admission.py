"""Admission control: past a bounded number of admitted API requests, refuse at once.

Without it every request is accepted and waits for one of the worker threads, so under
overload the queue, and with it every answer's latency, grows without bound until clients time
out (measured: p99 ~7 s at 50 clients on 2 cores, bench/results/load.md). A refusal
costs well under a millisecond, does nothing (a refused write writes nothing, by construction:
the request never reaches a route) and says when to come back (`Retry-After`), so a client can
tell "not done, retry" apart from "no answer".

Only the data APIs are counted and refused (/graphql, /api/, /mcp): /healthz and /metrics stay
answerable so that an orchestrator does not take an overloaded replica for a dead one.
A request is counted once its body has been read (the middleware sits after the body guards):
slow uploads cost the event loop nothing, and counting them would let a handful of slow clients
hold every slot. The counter lives on the event loop (single-threaded), so it needs no lock.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from graph.observability import metrics
from resolvers.http.observe import route_label, send_error, serves_data

OVERLOADED = "OVERLOADED"


class Admission:
    """Admit at most `limit` API requests at once (0: no limit); answer 503 to the rest."""

    def __init__(self, app: ASGIApp, limit: int, retry_after: int) -> None:
        self.app = app
        self.limit = limit
        self.retry_after = retry_after
        self.admitted = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.limit <= 0 or not serves_data(scope):
            await self.app(scope, receive, send)
            return
        if self.admitted >= self.limit:
            metrics.HTTP_REFUSED.labels(route_label(scope["path"])).inc()
            await send_error(
                scope,
                send,
                503,
                OVERLOADED,
                f"the service is at capacity ({self.limit} requests in progress, "
                f"FACTGRAPH_MAX_QUEUE); nothing was done: retry after {self.retry_after} s",
                retry_after=str(self.retry_after),
            )
            return
        self.admitted += 1
        metrics.HTTP_ADMITTED.inc()
        try:
            await self.app(scope, receive, send)
        finally:
            self.admitted -= 1
            metrics.HTTP_ADMITTED.dec()
