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
ACTIVE seconds), the heaviest tenant is held to `per_tenant` of them, refused at once, and a
lighter tenant is admitted even when the flood's requests fill every slot, or else waits a
bounded time for one, served before heavier tenants (`Shares` has the rule). A share of the
slots has to be small to share the CPU: four of one tenant's requests at once keep two cores
busy, and a second tenant's p99 beside them rose to 12x its p99 alone; a fixed share of 2 kept
it at 0.3x but refused the second tenant itself whenever its own requests bunched up
(bench/README.md "Fair admission between tenants"). Streams (resolvers/http/streams.py) are not
requests: they pass by, bounded on their own.
"""

from __future__ import annotations

import asyncio
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
# Of the limit: what lighter tenants beside a flood may take the admitted requests to, at most.
CEILING = 2
# Of the limit: how many requests may wait for a slot at once, all tenants together.
WAITING = 8
# A ticket's verdicts (None while it waits).
ADMITTED, SHARE, CAPACITY, GONE = "admitted", "share", "capacity", "gone"


@dataclass(eq=False)
class Ticket:
    """One request before the rule: admitted, refused ("share": its tenant is the one sending
    the most and holds its share; "capacity": no room, or no room within its wait), or waiting
    (verdict None) until `deadline`."""

    tenant: str
    deadline: float
    verdict: str | None = None


@dataclass
class Pressure:
    """A tenant's demand as the rule weighs it: requests held and waiting, plus the ones
    refused in about the last `retry_after` seconds (a sliding window of two buckets), which
    come back once their Retry-After has passed. A flood of 50 clients weighs about 50 however
    its arrivals bunch; a steady tenant weighs what it has in progress."""

    seen: float  # its last request, for the ACTIVE window
    window: float = 0.0  # the start of the current bucket
    refused: int = 0  # in the current bucket
    before: int = 0  # in the bucket before it

    def refusals(self, now: float, span: float) -> float:
        self._roll(now, span)
        return self.refused + self.before * max(0.0, 1.0 - (now - self.window) / span)

    def refuse(self, now: float, span: float) -> None:
        self._roll(now, span)
        self.refused += 1

    def _roll(self, now: float, span: float) -> None:
        if now - self.window >= 2 * span:
            self.window, self.refused, self.before = now, 0, 0
        elif now - self.window >= span:
            self.window, self.refused, self.before = self.window + span, 0, self.refused


@dataclass
class Shares:
    """Who may have one more request admitted, who waits and who is refused: the rule, apart
    from the ASGI plumbing, over a clock given to it (tests/test_admission_rule.py drives it
    with exact times).

    - Every tenant may hold `per_tenant` requests whatever the others hold (up to the
      ceiling).
    - Alone (no other tenant active), a tenant may hold all but `per_tenant` of the `limit`
      slots, and is refused at once past that: that room is kept for the next tenant to
      arrive, and nobody else is waiting for the rest.
    - With others active, the heaviest tenant (the most requests held, waiting and refused
      within the last Retry-After: `Pressure`) is held to `per_tenant`, refused at once.
    - A lighter tenant is admitted while a slot is free, or under its share (the `limit`
      slots less what each other tenant holds, counted up to `per_tenant`) even past `limit`,
      never past CEILING times it (tenants can be made up, scopes without keys).
    - Otherwise it waits, up to `wait` seconds, instead of being refused: a slot given back
      goes to the lightest waiting tenant first. Until issue 64's last round such a request
      was refused with "at capacity": in the bench's first seconds of a flood, the flood
      (alone for an instant) took 6 slots while the steady tenant's requests arrived bunched
      (the event loop stalled while 50 clients connected), and 5 to 25 of its 200 requests were
      refused. With `wait` 0, refused as before.

    "Heaviest" was a request rate decaying over 2 s, then 0.5 s: over 2 s a starting flood
    was the lighter tenant for its first 10 requests; over 0.5 s the steady tenant's bunched
    requests (30 in 0.4 s) outweighed the flood, whose clients were all waiting out their
    Retry-After, and it was refused as the heaviest.
    """

    limit: int
    per_tenant: int
    wait: float = 0.0
    retry_after: float = 1.0
    admitted: int = 0
    held: dict[str, int] = field(default_factory=dict)
    pressure: dict[str, Pressure] = field(default_factory=dict)
    queue: list[Ticket] = field(default_factory=list)  # waiting, in order of arrival
    waits: dict[str, int] = field(default_factory=dict)  # tickets waiting, by tenant

    def arrive(self, tenant: str, now: float) -> Ticket:
        """The verdict on this tenant's next request: the ticket says admitted (its slot is
        taken), refused, or waiting (a later `answered`, `done` or `leave` decides it)."""
        self._forget(now)
        if tenant in self.pressure:
            self.pressure[tenant].seen = now
        else:
            self.pressure[tenant] = Pressure(seen=now, window=now)
        ticket = Ticket(tenant, now + self.wait)
        verdict = self._verdict(tenant, now, arriving=True)
        if verdict == "wait" and (self.wait <= 0 or len(self.queue) >= WAITING * self.limit):
            verdict = CAPACITY
        if verdict == "wait":
            self.queue.append(ticket)
            self.waits[tenant] = self.waits.get(tenant, 0) + 1
        else:
            self._decide(ticket, verdict, now)
        return ticket

    def answered(self, tenant: str, now: float) -> list[Ticket]:
        """A request's answer is sent: its tenant's share is given back (what runs after it
        still holds a slot until `done`). The waiting tickets this decides."""
        left = self.held[tenant] - 1
        if left:
            self.held[tenant] = left
        else:
            del self.held[tenant]
        return self._serve(now)

    def done(self, now: float) -> list[Ticket]:
        """A request has finished: its slot is given back. The waiting tickets this decides."""
        self.admitted -= 1
        return self._serve(now)

    def leave(self, ticket: Ticket, now: float, *, expired: bool = True) -> list[Ticket]:
        """A waiting ticket's time is up (refused: "capacity") or its client is gone. The
        waiting tickets this decides (a tenant with fewer waiting may now be the lighter)."""
        if ticket.verdict is not None:
            return []
        self._dequeue(ticket)
        if expired:
            self._decide(ticket, CAPACITY, now)
        else:
            ticket.verdict = GONE
        return self._serve(now)

    def expire(self, now: float) -> list[Ticket]:
        """Every waiting ticket past its deadline, refused (the service's timers call `leave`
        for each; this is the same for a clock driven by hand)."""
        decided = [t for t in self.queue if t.deadline <= now]
        for ticket in decided:
            self._dequeue(ticket)
            self._decide(ticket, CAPACITY, now)
        return decided + self._serve(now)

    def weight(self, tenant: str, now: float) -> float:
        """The tenant's pressure: held, waiting, and refused within about `retry_after` s."""
        record = self.pressure.get(tenant)
        refused = record.refusals(now, self.retry_after) if record else 0.0
        return self.held.get(tenant, 0) + self.waits.get(tenant, 0) + refused

    def _verdict(self, tenant: str, now: float, *, arriving: bool) -> str | None:
        """None (admit), SHARE or CAPACITY (refuse), or "wait"."""
        held = self.held.get(tenant, 0)
        others = [
            self.weight(other, now)
            for other, record in self.pressure.items()
            if other != tenant and self._active(other, record, now)
        ]
        if held < self.per_tenant and self.admitted < CEILING * self.limit:
            return None  # every tenant's minimum, whoever else holds the slots
        if not others:  # alone: all but the room kept for the next tenant to arrive
            if self.admitted < self.limit - self.per_tenant:
                return None
            if not arriving:
                return "wait"  # it waited beside another tenant, now gone: for a free slot
            return CAPACITY if self.admitted >= self.limit else SHARE
        mine = self.weight(tenant, now) + (1 if arriving else 0)
        if held >= self.per_tenant and mine >= max(others):
            return SHARE  # the heaviest: held to its share
        # A lighter tenant: a free slot, or its share, what the others leave it, each counted
        # up to `per_tenant` (what holding more is, to them, the leftover of being alone or the
        # heaviest: room the lighter one is not refused for).
        left = self.limit - sum(
            min(self.held.get(other, 0), self.per_tenant) for other in self.held if other != tenant
        )
        if self.admitted < self.limit or (held < left and self.admitted < CEILING * self.limit):
            return None
        return "wait"

    def _serve(self, now: float) -> list[Ticket]:
        """Admit what waits, the lightest tenant first, while the rule lets it; refuse the
        waiting requests of a tenant that has become the heaviest at its share."""
        decided: list[Ticket] = []
        progress = True
        while self.queue and progress:
            progress = False
            order = sorted({t.tenant for t in self.queue}, key=lambda name: self.weight(name, now))
            for tenant in order:
                ticket = next(t for t in self.queue if t.tenant == tenant)
                verdict = self._verdict(tenant, now, arriving=False)
                if verdict == "wait":
                    continue
                self._dequeue(ticket)
                self._decide(ticket, verdict, now)
                decided.append(ticket)
                progress = True
                break
        return decided

    def _dequeue(self, ticket: Ticket) -> None:
        self.queue.remove(ticket)
        left = self.waits[ticket.tenant] - 1
        if left:
            self.waits[ticket.tenant] = left
        else:
            del self.waits[ticket.tenant]

    def _decide(self, ticket: Ticket, verdict: str | None, now: float) -> None:
        if verdict is None:
            ticket.verdict = ADMITTED
            self.held[ticket.tenant] = self.held.get(ticket.tenant, 0) + 1
            self.admitted += 1
            return
        ticket.verdict = verdict
        if ticket.tenant in self.pressure:
            self.pressure[ticket.tenant].refuse(now, self.retry_after)

    def _active(self, tenant: str, record: Pressure, now: float) -> bool:
        return (
            bool(self.held.get(tenant))
            or now - record.seen < ACTIVE
            or bool(self.waits.get(tenant))
        )

    def _forget(self, now: float) -> None:
        """Drop the long gone (no request for ACTIVE s, none held or waiting): a bounded map."""
        for tenant, record in list(self.pressure.items()):
            if not self._active(tenant, record, now):
                del self.pressure[tenant]


class Admission:
    """Admit at most `limit` API requests at once (0: no limit); with `per_tenant` (0: no such
    bound), share them between tenants by the rule of `Shares`, a lighter tenant waiting up to
    `wait` seconds for a slot; answer 503 to the rest."""

    def __init__(
        self,
        app: ASGIApp,
        limit: int,
        retry_after: int,
        per_tenant: int = 0,
        wait: float = 0.0,
    ) -> None:
        self.app = app
        self.limit = limit
        self.retry_after = retry_after
        self.per_tenant = per_tenant
        self.shares = Shares(limit, per_tenant, wait=wait, retry_after=retry_after)
        self.waiting: dict[Ticket, asyncio.Event] = {}

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
            self.shares.admitted += 1
            metrics.HTTP_ADMITTED.inc()
            try:
                await self.app(scope, receive, send)
            finally:
                self.shares.admitted -= 1
                metrics.HTTP_ADMITTED.dec()
            return
        body, receive = await _buffered(receive)
        tenant = request_tenant(scope, body)
        ticket = self.shares.arrive(tenant, time.monotonic())
        if ticket.verdict is None:
            await self._wait(ticket)
        if ticket.verdict == CAPACITY:
            await self._refuse_capacity(scope, send)
            return
        if ticket.verdict == SHARE:
            await self._refuse(
                scope,
                send,
                f"this tenant has {self.shares.held.get(tenant, 0)} requests in progress, its "
                f"share of the service while others are served (FACTGRAPH_MAX_QUEUE_PER_TENANT)",
            )
            return
        metrics.HTTP_ADMITTED.inc()
        released = False

        def release() -> None:
            nonlocal released
            if not released:
                released = True
                self._wake(self.shares.answered(tenant, time.monotonic()))

        async def send_then_release(message: Message) -> None:
            # The tenant's share is given back with the answer's last byte: what runs after
            # it (a search's access counts, a background task) still holds one of the `limit`
            # slots, but no client waits on it; counted against the share, a client's next
            # request, sent as soon as it had its answer, found its own share still full.
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                release()

        try:
            await self.app(scope, receive, send_then_release)
        finally:
            release()
            metrics.HTTP_ADMITTED.dec()
            self._wake(self.shares.done(time.monotonic()))

    async def _wait(self, ticket: Ticket) -> None:
        """Until the rule decides the ticket (a slot given back) or its wait is up."""
        event = self.waiting[ticket] = asyncio.Event()
        try:
            await asyncio.wait_for(event.wait(), max(0.0, ticket.deadline - time.monotonic()))
        except TimeoutError:
            pass
        except asyncio.CancelledError:  # the client went away: give back what it was given
            if ticket.verdict == ADMITTED:
                self._wake(self.shares.answered(ticket.tenant, time.monotonic()))
                self._wake(self.shares.done(time.monotonic()))
            else:
                self._wake(self.shares.leave(ticket, time.monotonic(), expired=False))
            raise
        finally:
            self.waiting.pop(ticket, None)
        if ticket.verdict is None:
            self._wake(self.shares.leave(ticket, time.monotonic()))

    def _wake(self, decided: list[Ticket]) -> None:
        for ticket in decided:
            event = self.waiting.get(ticket)
            if event is not None:
                event.set()

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
