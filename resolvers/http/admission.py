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

Fair between tenants (resolvers/http/tenants.py: the API key, or the scope without keys), and
work-conserving: a tenant alone may use every slot but `per_tenant`, which stay free for the
next tenant to arrive; while another tenant is active (a request in progress or one in the last
ACTIVE seconds), the tenant sending the most requests is held to `per_tenant` of them, and a
lighter tenant under its fair share is admitted even when the flood's requests fill every slot
(`Shares` has the rule). A share of the slots has to be small to share the CPU: four of one
tenant's requests at once keep two cores busy, and a second tenant's p99 beside them rose to 12x
its p99 alone; a fixed share of 2 kept it at 0.3x but refused the second tenant itself whenever
its own requests bunched up (bench/README.md "Fair admission between tenants"). Streams
(resolvers/http/streams.py) are not requests: they pass by, bounded on their own.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from graph.observability import metrics
from resolvers.http.observe import route_label, send_error, serves_data
from resolvers.http.streams import STREAM
from resolvers.http.tenants import request_tenant

OVERLOADED = "OVERLOADED"
# Seconds after its last request that a tenant still counts as active: longer than the gap
# between the requests of a client that sends a few a second, so its requests are not each met
# by a flooder that took the room back in between.
ACTIVE = 2.0
# Seconds over which a tenant's request rate decays by e. Short: a flood that starts beside a
# steady tenant must outweigh it after a few requests, or it is "the lighter" while its first
# requests take the slots (with 2 s, a tenant sending 5 a second weighed 10: the flood's first
# 10 requests were admitted as the lighter tenant's, and the steady one's latency and
# refusals came from them).
RATE_DECAY = 0.5
# Of the limit: what lighter tenants beside a flood may take the admitted requests to, at most.
CEILING = 2


@dataclass
class Shares:
    """Who may have one more request admitted: the rule, apart from the ASGI plumbing, over a
    clock given to it (tests/test_admission_rule.py drives it with exact times).

    - Every tenant may hold `per_tenant` requests whatever the others hold (up to the
      ceiling): when a flood starts beside a steady tenant, the flood is for a moment the
      lighter of the two (its rate has not built up yet) and took the slots; the steady one,
      "the heaviest" for that moment, was refused (6 to 11 of 200 requests in the bench).
    - Alone (no other tenant active), a tenant may hold all but `per_tenant` of the `limit`
      slots: that room is kept for the next tenant to arrive.
    - With others active, the tenant sending the most (a request rate decaying over
      RATE_DECAY seconds, refused attempts included) is held to `per_tenant`.
    - A lighter tenant is never refused for the room the heavier ones hold: under its share
      (the `limit` slots less what each other tenant holds, counted up to `per_tenant`) it is
      admitted even past `limit`, never past CEILING times it (tenants can be made up, scopes
      without keys: the more of them hold slots, the smaller each one's share). Until issue
      64's last round the lighter tenant was refused whenever the flood's requests, admitted
      while it was alone, still filled the slots: 5 of 395 of a steady tenant's requests.
    """

    limit: int
    per_tenant: int
    admitted: int = 0
    held: dict[str, int] = field(default_factory=dict)
    # Each tenant's recent requests, decaying over RATE_DECAY s, and when it last sent one.
    rates: dict[str, tuple[float, float]] = field(default_factory=dict)

    def refusal(self, tenant: str, now: float) -> str | None:
        """Why this tenant's next request is refused ("capacity" or "share"), or None: admit
        it. Called once per request, which also counts it in the tenant's rate."""
        held = self.held.get(tenant, 0)
        rates = {name: _decayed(rate, last, now) for name, (rate, last) in self.rates.items()}
        mine = rates.get(tenant, 0.0) + 1.0
        self.rates[tenant] = (mine, now)
        others = [
            rates[other]
            for other, (_, last) in self.rates.items()
            if other != tenant and (self.held.get(other) or now - last < ACTIVE)
        ]
        for other, (_, last) in list(self.rates.items()):  # forget the long gone: a bounded map
            if now - last >= ACTIVE and not self.held.get(other):
                del self.rates[other]
        if held < self.per_tenant:  # every tenant's minimum, whoever else holds the slots
            return "capacity" if self.admitted >= CEILING * self.limit else None
        if not others:  # alone: all but the room kept for the next tenant to arrive
            if self.admitted >= self.limit:
                return "capacity"
            return "share" if self.admitted >= self.limit - self.per_tenant else None
        if mine >= max(others):  # the heaviest: held to its share
            return "share"
        # A lighter tenant: its share is what the others leave it, each counted up to
        # `per_tenant` (what holding more is, to them, the leftover of being alone or the
        # heaviest: room the lighter one is not refused for).
        left = self.limit - sum(
            min(self.held.get(other, 0), self.per_tenant) for other in self.rates if other != tenant
        )
        ceiling = CEILING * self.limit if held < left else self.limit
        return "capacity" if self.admitted >= ceiling else None

    def take(self, tenant: str) -> None:
        self.held[tenant] = self.held.get(tenant, 0) + 1

    def give_back(self, tenant: str) -> None:
        left = self.held[tenant] - 1
        if left:
            self.held[tenant] = left
        else:
            del self.held[tenant]


class Admission:
    """Admit at most `limit` API requests at once (0: no limit); with `per_tenant` (0: no such
    bound), share them between tenants by the rule of `Shares`; answer 503 to the rest."""

    def __init__(self, app: ASGIApp, limit: int, retry_after: int, per_tenant: int = 0) -> None:
        self.app = app
        self.limit = limit
        self.retry_after = retry_after
        self.per_tenant = per_tenant
        self.shares = Shares(limit, per_tenant)

    @property
    def admitted(self) -> int:
        return self.shares.admitted

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or self.limit <= 0
            or not serves_data(scope)
            or scope.get(STREAM)
        ):
            await self.app(scope, receive, send)
            return
        if self.per_tenant <= 0:
            if self.shares.admitted >= self.limit:
                await self._refuse_capacity(scope, send)
                return
            await self._admitted(scope, receive, send)
            return
        body, receive = await _buffered(receive)
        tenant = request_tenant(scope, body)
        refusal = self.shares.refusal(tenant, time.monotonic())
        if refusal == "capacity":
            await self._refuse_capacity(scope, send)
            return
        if refusal == "share":
            await self._refuse(
                scope,
                send,
                f"this tenant has {self.shares.held.get(tenant, 0)} requests in progress, its "
                f"share of the service while others are served (FACTGRAPH_MAX_QUEUE_PER_TENANT)",
            )
            return
        self.shares.take(tenant)
        released = False

        def release() -> None:
            nonlocal released
            if not released:
                released = True
                self.shares.give_back(tenant)

        async def send_then_release(message: Message) -> None:
            # The tenant's share is given back with the answer's last byte: what runs after
            # it (a search's access counts, a background task) still holds one of the `limit`
            # slots, but no client waits on it; counted against the share, a client's next
            # request, sent as soon as it had its answer, found its own share still full.
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                release()

        try:
            await self._admitted(scope, receive, send_then_release)
        finally:
            release()

    async def _admitted(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.shares.admitted += 1
        metrics.HTTP_ADMITTED.inc()
        try:
            await self.app(scope, receive, send)
        finally:
            self.shares.admitted -= 1
            metrics.HTTP_ADMITTED.dec()

    async def _refuse_capacity(self, scope: Scope, send: Send) -> None:
        await self._refuse(
            scope,
            send,
            f"the service is at capacity ({self.shares.admitted} requests in progress, "
            f"FACTGRAPH_MAX_QUEUE {self.limit})",
        )

    async def _refuse(self, scope: Scope, send: Send, why: str) -> None:
        metrics.HTTP_REFUSED.labels(route_label(scope["path"])).inc()
        await send_error(
            scope,
            send,
            503,
            OVERLOADED,
            f"{why}; nothing was done: retry after {self.retry_after} s",
            retry_after=str(self.retry_after),
        )


def _decayed(rate: float, since: float, now: float) -> float:
    """A tenant's request count, decayed by e for every RATE_DECAY seconds since its last one."""
    return rate * math.exp(-(now - since) / RATE_DECAY)


async def _buffered(receive: Receive) -> tuple[bytes, Receive]:
    """The request's body (already in memory: JsonGuard read it) and a receive replaying it."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks), _replaying(b"".join(chunks), receive, message)
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks), _replaying(b"".join(chunks), receive, None)


def _replaying(body: bytes, receive: Receive, pending: Message | None) -> Receive:
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if not replayed:
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}
        if pending is not None:
            return pending
        return await receive()

    return replay
