"""The consolidation queue of a scope: its status, and a mutation that queues it again.

One call into `graph.consolidation.Consolidator` each; the worker itself runs inside
`factgraph serve` (or as `factgraph consolidate`), never on a request.
"""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.types import Info

from graph.consolidation import Consolidator, QueueStatus, worker_of
from resolvers.http.context import call, memory_for


@strawberry.type(description="A scope's consolidation queue and the worker of this process.")
class ConsolidationStatus:
    scope: str
    queued: int = strawberry.field(description="Facts of the scope waiting to be consolidated.")
    oldest_queued_at: datetime | None
    lag_seconds: float = strawberry.field(description="How long the oldest queued fact waited.")
    enrichers: list[str] = strawberry.field(description="What the consolidator is set to do.")
    worker_running: bool = strawberry.field(
        description="Whether this server runs the background worker (FACTGRAPH_CONSOLIDATE)."
    )
    worker_stalled: bool
    requeued: int | None = strawberry.field(
        default=None, description="Facts queued again by the mutation that answered this."
    )

    @classmethod
    def of(
        cls, status: QueueStatus, running: bool, stalled: bool, requeued: int | None = None
    ) -> ConsolidationStatus:
        return cls(
            scope=status.scope,
            queued=status.queued,
            oldest_queued_at=status.oldest_queued_at,
            lag_seconds=round(status.lag_seconds, 3),
            enrichers=list(status.enrichers),
            worker_running=running,
            worker_stalled=stalled,
            requeued=requeued,
        )


def _status(info: Info, scope: str, role: str, requeue: bool) -> ConsolidationStatus:
    memory = memory_for(info, scope, role)
    consolidator = Consolidator(memory)
    requeued = consolidator.requeue(scope) if requeue else None
    worker = worker_of(memory)
    state = worker.state() if worker is not None else None
    return ConsolidationStatus.of(
        consolidator.status(scope),
        running=bool(state and state.running),
        stalled=bool(state and state.stalled),
        requeued=requeued,
    )


@strawberry.type
class ConsolidationQuery:
    @strawberry.field(description="The scope's consolidation queue: depth, lag, the worker.")
    async def consolidation(self, info: Info, scope: str) -> ConsolidationStatus:
        return await call(_status, info, scope, "reader", False)


@strawberry.type
class ConsolidationMutation:
    @strawberry.mutation(
        description="Queue every live fact of the scope for consolidation again (after an "
        "enricher was turned on, say); what it adds is recomputed, never stacked."
    )
    async def requeue_consolidation(self, info: Info, scope: str) -> ConsolidationStatus:
        return await call(_status, info, scope, "admin", True)
