"""Queries and mutations over single facts: remember, get, history and the lifecycle.

Each resolver is one call into `graph.memory.Memory`; the role it asks for is the whole of
its policy (readers read, writers write, admins review and purge).
"""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.types import Info

from graph.errors import NotFound, ValidationError
from graph.write.batch import checked_size
from graph.write.facts import FactInput as DomainFactInput
from resolvers.graphql.inputs import FactInput
from resolvers.graphql.types import (
    AuditEvent,
    Fact,
    Neighbour,
    RememberResult,
    ReviewQueuePage,
    StandingKind,
    fact_or_none,
)
from resolvers.http.context import call, memory_for


@strawberry.type
class FactQuery:
    @strawberry.field(
        description="A fact by id; null when missing, forgotten, quarantined (unless asked "
        "for) or not valid asOf."
    )
    async def fact(
        self,
        info: Info,
        scope: str,
        id: strawberry.ID,
        as_of: datetime | None = None,
        include_quarantined: bool = False,
    ) -> Fact | None:
        role = "admin" if include_quarantined else "reader"
        found = await call(
            memory_for(info, scope, role).get,
            scope,
            str(id),
            as_of=as_of,
            include_quarantined=include_quarantined,
        )
        return fact_or_none(found)

    @strawberry.field(
        description="The supersede chain a fact belongs to, oldest to newest, retired rows "
        "included; asOf keeps the rows that were already true then. An id the scope never "
        "held is a NOT_FOUND error, as in REST (null here, so that other fields of the same "
        "request keep their answers)."
    )
    async def history(
        self, info: Info, scope: str, id: strawberry.ID, as_of: datetime | None = None
    ) -> list[Fact] | None:
        memory = memory_for(info, scope)
        chain = await call(memory.history, scope, str(id), as_of=as_of)
        # An empty chain under asOf may be a known fact not yet true then: only an id with no
        # chain at all is unknown (REST's GET /api/v1/memories/{id}/history answers 404 too).
        if not chain and (as_of is None or not await call(memory.history, scope, str(id))):
            raise NotFound(f"id: no fact {str(id)!r} in this scope")
        return [Fact.from_domain(f) for f in chain]

    @strawberry.field(
        description="The scope's active standing instructions and preferences, newest first: "
        "what an agent may put in every prompt. `kind` keeps one of the two."
    )
    async def standing(
        self, info: Info, scope: str, kind: StandingKind | None = None, limit: int = 100
    ) -> list[Fact]:
        found = await call(
            memory_for(info, scope).standing,
            scope,
            kind=kind.value if kind is not None else None,
            limit=limit,
        )
        return [Fact.from_domain(f) for f in found]

    @strawberry.field(
        description="Quarantined facts waiting for review, oldest first; `held` says why each "
        "was quarantined."
    )
    async def review_queue(
        self, info: Info, scope: str, first: int = 20, after: str | None = None
    ) -> ReviewQueuePage:
        page = await call(
            memory_for(info, scope, "admin").review_entries, scope, first=first, after=after
        )
        return ReviewQueuePage.from_domain(page)

    @strawberry.field(
        description="Raw vector nearest neighbours of a fact (by id) or of a text, with their "
        "cosine similarity; quarantined facts included. For reconciliation tools."
    )
    async def neighbours(
        self,
        info: Info,
        scope: str,
        id: strawberry.ID | None = None,
        text: str | None = None,
        k: int = 10,
    ) -> list[Neighbour]:
        found = await call(
            memory_for(info, scope, "writer").neighbours,
            scope,
            fact_id=None if id is None else str(id),
            text=text,
            k=k,
        )
        return [Neighbour(fact=Fact.from_domain(f), cosine=score) for f, score in found]

    @strawberry.field(description="Every recorded state change of a fact, oldest first.")
    async def audit_trail(self, info: Info, scope: str, id: strawberry.ID) -> list[AuditEvent]:
        events = await call(memory_for(info, scope, "admin").audit_trail, scope, str(id))
        return [AuditEvent.from_domain(e) for e in events]


@strawberry.type
class FactMutation:
    @strawberry.mutation(
        description="Write a fact through the conflict pipeline and say what it decided. "
        "pipeline: false is the straight-through path (validation and exact dedup only)."
    )
    async def remember(
        self, info: Info, scope: str, fact: FactInput, pipeline: bool | None = None
    ) -> RememberResult:
        decision = await call(
            memory_for(info, scope, "writer").remember_with_decision,
            scope,
            fact.to_domain(),
            actor=_actor(info),
            pipeline=pipeline,
        )
        return RememberResult.from_domain(decision)

    @strawberry.mutation(
        description="Write a batch of facts through the conflict pipeline: one result per fact, "
        "in input order, the same as remembering them one by one in that order. One bad fact "
        "refuses the whole batch (field facts[i].name) and nothing is written; at most "
        "FACTGRAPH_BATCH_MAX facts (1000 by default)."
    )
    async def remember_many(
        self, info: Info, scope: str, facts: list[FactInput], pipeline: bool | None = None
    ) -> list[RememberResult]:
        memory = memory_for(info, scope, "writer")
        decisions = await call(
            memory.remember_many,
            scope,
            batch_inputs(facts, memory.settings.batch_max),
            actor=_actor(info),
            pipeline=pipeline,
        )
        return [RememberResult.from_domain(decision) for decision in decisions]

    @strawberry.mutation(description="Replace an active fact with a new one and chain them.")
    async def supersede(
        self,
        info: Info,
        scope: str,
        id: strawberry.ID,
        fact: FactInput,
        reason: str = "superseded by the caller",
    ) -> RememberResult:
        decision = await call(
            memory_for(info, scope, "writer").supersede,
            scope,
            str(id),
            fact.to_domain(),
            reason=reason,
            actor=_actor(info),
        )
        return RememberResult.from_domain(decision)

    @strawberry.mutation(description="Soft delete: hidden from reads, kept in history.")
    async def forget(
        self, info: Info, scope: str, id: strawberry.ID, reason: str = "forgotten"
    ) -> Fact:
        fact = await call(
            memory_for(info, scope, "writer").forget,
            scope,
            str(id),
            reason=reason,
            actor=_actor(info),
        )
        return Fact.from_domain(fact)

    @strawberry.mutation(
        description="Hard delete of the fact, its vector and text; the audit keeps only the id "
        "and the reason. False when there was nothing to purge."
    )
    async def purge(self, info: Info, scope: str, id: strawberry.ID, reason: str) -> bool:
        return await call(
            memory_for(info, scope, "admin").purge,
            scope,
            str(id),
            reason=reason,
            actor=_actor(info),
        )

    @strawberry.mutation(description="Promote a quarantined fact after review.")
    async def validate(
        self, info: Info, scope: str, id: strawberry.ID, reason: str = "validated"
    ) -> RememberResult:
        decision = await call(
            memory_for(info, scope, "admin").validate,
            scope,
            str(id),
            reason=reason,
            actor=_actor(info),
        )
        return RememberResult.from_domain(decision)

    @strawberry.mutation(description="Refuse a quarantined fact; it is kept as forgotten.")
    async def reject(
        self, info: Info, scope: str, id: strawberry.ID, reason: str = "rejected"
    ) -> Fact:
        fact = await call(
            memory_for(info, scope, "admin").reject,
            scope,
            str(id),
            reason=reason,
            actor=_actor(info),
        )
        return Fact.from_domain(fact)


def _actor(info: Info) -> str:
    """Who the audit trail names: the API key's id when keys are in use, else `graphql`."""
    principal = getattr(info.context["request"].state, "principal", None)
    return str(getattr(principal, "id", None) or "graphql")


def batch_inputs(facts: list[FactInput], limit: int) -> list[DomainFactInput]:
    """The batch's facts in the domain's shape; a bad one is named by its index."""
    checked_size(len(facts), limit)
    converted: list[DomainFactInput] = []
    for i, fact in enumerate(facts):
        try:
            converted.append(fact.to_domain())
        except ValidationError as exc:
            raise ValidationError(f"facts[{i}].{exc.field}", exc.reason) from None
    return converted
