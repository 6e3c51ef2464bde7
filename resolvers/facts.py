"""Queries and mutations over single facts: remember, get, and the lifecycle operations."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.types import Info

from resolvers.context import call, memory_for
from resolvers.inputs import FactInput
from resolvers.types import Fact, RememberResult, fact_or_none


@strawberry.type
class FactQuery:
    @strawberry.field(description="A fact by id; null when missing, forgotten or not valid asOf.")
    async def fact(
        self, info: Info, scope: str, id: strawberry.ID, as_of: datetime | None = None
    ) -> Fact | None:
        return fact_or_none(await call(memory_for(info, scope).get, scope, str(id), as_of=as_of))


@strawberry.type
class FactMutation:
    @strawberry.mutation(description="Write a fact through the conflict pipeline.")
    async def remember(self, info: Info, scope: str, fact: FactInput) -> RememberResult:
        decision = await call(
            memory_for(info, scope, "writer").remember_with_decision, scope, fact.to_domain()
        )
        return RememberResult.from_domain(decision)
