"""Live changes of memory: every write and decision, published to whoever listens right now.

`Memory` publishes one `FactChange` per committed remember / supersede / forget / validate /
reject / purge to its `EventBus`; GraphQL subscriptions (resolvers/graphql/subscriptions.py) and any
Python caller running an event loop subscribe to a scope.

A write must never wait for a listener. Each subscriber has a bounded queue; when it is full,
further changes for that subscriber are dropped and counted, and the subscriber next reads a
`Dropped` marker with the count at the place where the gap is, so it knows to reload rather
than trust a partial picture. Publishing costs a lock per subscriber of the scope and a
wake-up handed to the subscriber's event loop; it never blocks on the subscriber.

The bus is in-process: a service with several replicas has one bus per replica, and a
subscriber sees the writes its own replica served. The fast path of bulk imports (graph/bulk)
publishes nothing; the full-pipeline import goes through `Memory` and publishes each change.
"""

from __future__ import annotations

import asyncio
import enum
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from graph.errors import FactgraphError
from graph.write.facts import Decision, Fact, FactStatus

# Changes one subscriber may have waiting; past it they are dropped and counted.
QUEUE_SIZE = 256
# Subscribers per process (all scopes); past it a subscription is refused.
MAX_SUBSCRIBERS = 1000


class Action(enum.Enum):
    REMEMBER = "remember"
    SUPERSEDE = "supersede"
    FORGET = "forget"
    VALIDATE = "validate"
    REJECT = "reject"
    PURGE = "purge"


class QueueMove(enum.Enum):
    """How a change moved a fact with respect to the review queue (quarantined facts)."""

    ENTERED = "entered"
    LEFT = "left"


@dataclass(frozen=True)
class FactChange:
    """One committed change of one fact. `fact` is its state after the change (None: purged)."""

    scope: str
    action: Action
    fact_id: str
    fact: Fact | None
    decision: str | None  # the pipeline's DecisionKind value for remember/supersede/validate
    matched_id: str | None  # the fact a decision matched, merged into or superseded
    reason: str
    actor: str
    at: datetime
    queue: QueueMove | None = None

    @property
    def reviewed_content(self) -> bool:
        """True when the fact's content was only ever visible to reviewers (quarantined)."""
        return self.queue is QueueMove.ENTERED or (
            self.queue is QueueMove.LEFT and self.action is not Action.VALIDATE
        )

    @classmethod
    def of_decision(
        cls, scope: str, action: Action, decision: Decision, actor: str, at: datetime
    ) -> FactChange:
        quarantined = decision.fact.status is FactStatus.QUARANTINED
        return cls(
            scope=scope,
            action=action,
            fact_id=decision.fact.id,
            fact=decision.fact,
            decision=decision.kind.value,
            matched_id=None if decision.matched is None else decision.matched.id,
            reason=decision.reason,
            actor=actor,
            at=at,
            queue=QueueMove.ENTERED
            if quarantined and action is Action.REMEMBER
            else QueueMove.LEFT
            if action is Action.VALIDATE
            else None,
        )


@dataclass
class Dropped:
    """`count` changes were not delivered to this subscriber here: it fell behind."""

    count: int


class TooManySubscribers(FactgraphError):
    code = "OVERLOADED"
    http_status = 503


class Subscription:
    """One listener's bounded queue; read it with `await next_event()` on its own loop."""

    def __init__(
        self,
        bus: EventBus,
        scope: str,
        accept: Callable[[FactChange], bool],
        size: int,
        loop: asyncio.AbstractEventLoop,
    ) -> None:
        self.bus = bus
        self.scope = scope
        self.accept = accept
        self.size = size
        self.loop = loop
        self.delivered = 0
        self.dropped = 0
        self._items: deque[FactChange | Dropped] = deque()
        self._queued = 0  # FactChanges in _items (markers not counted)
        self._lock = threading.Lock()
        self._ready = asyncio.Event()
        self._wake_pending = False
        self.closed = False

    def offer(self, change: FactChange) -> bool:
        """Queue `change` if accepted and there is room, else count it; from any thread.

        True when the subscriber must be woken (`wake`, on its loop): it was waiting.
        """
        if self.closed or not self.accept(change):
            return False
        with self._lock:
            if self._queued >= self.size:
                self.dropped += 1
                last = self._items[-1] if self._items else None
                if isinstance(last, Dropped):
                    last.count += 1
                else:
                    self._items.append(Dropped(1))
            else:
                self._items.append(change)
                self._queued += 1
            if self._wake_pending:
                return False
            self._wake_pending = True
        return True

    def wake(self) -> None:
        """On the subscriber's loop: let `next_event` look again."""
        self._ready.set()

    async def next_event(self) -> FactChange | Dropped:
        """The next change (or gap marker), waiting for one."""
        while True:
            with self._lock:
                if self._items:
                    item = self._items.popleft()
                    if isinstance(item, FactChange):
                        self._queued -= 1
                        self.delivered += 1
                    return item
                self._wake_pending = False
                self._ready.clear()
            await self._ready.wait()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.bus.unsubscribe(self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class EventBus:
    """Fan-out of FactChanges to the subscriptions of their scope, in this process."""

    def __init__(self, queue_size: int = QUEUE_SIZE, max_subscribers: int = MAX_SUBSCRIBERS):
        self.queue_size = queue_size
        self.max_subscribers = max_subscribers
        self._lock = threading.Lock()
        # Copy-on-write: publish reads a tuple without taking the lock.
        self._by_scope: dict[str, tuple[Subscription, ...]] = {}
        self._count = 0

    def subscribe(
        self,
        scope: str,
        accept: Callable[[FactChange], bool] = lambda _: True,
        *,
        queue_size: int | None = None,
    ) -> Subscription:
        """A subscription to `scope`'s changes that `accept` keeps; call from an event loop."""
        loop = asyncio.get_running_loop()
        subscription = Subscription(self, scope, accept, queue_size or self.queue_size, loop)
        with self._lock:
            if self._count >= self.max_subscribers:
                raise TooManySubscribers(
                    f"this server already has {self._count} live subscriptions; try later"
                )
            self._by_scope[scope] = (*self._by_scope.get(scope, ()), subscription)
            self._count += 1
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        with self._lock:
            current = self._by_scope.get(subscription.scope, ())
            if subscription not in current:
                return
            rest = tuple(s for s in current if s is not subscription)
            if rest:
                self._by_scope[subscription.scope] = rest
            else:
                del self._by_scope[subscription.scope]
            self._count -= 1

    def publish(self, change: FactChange) -> None:
        """Hand `change` to every subscription of its scope; never waits for any of them.

        Waiting subscribers are woken with one call per event loop, not one per subscriber:
        each `call_soon_threadsafe` writes to the loop's self-pipe (a system call).
        """
        waiting: dict[asyncio.AbstractEventLoop, list[Subscription]] = {}
        for subscription in self._by_scope.get(change.scope, ()):
            if subscription.offer(change):
                waiting.setdefault(subscription.loop, []).append(subscription)
        for loop, subscriptions in waiting.items():
            try:
                loop.call_soon_threadsafe(_wake, subscriptions)
            except RuntimeError:  # the loop is closed: nobody is listening any more
                for subscription in subscriptions:
                    subscription.close()

    def subscriptions(self, scope: str) -> tuple[Subscription, ...]:
        return self._by_scope.get(scope, ())

    def subscribers(self, scope: str | None = None) -> int:
        if scope is None:
            return self._count
        return len(self._by_scope.get(scope, ()))


def _wake(subscriptions: list[Subscription]) -> None:
    for subscription in subscriptions:
        subscription.wake()
