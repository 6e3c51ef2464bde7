"""GraphQL of the key-value view (`graph.browse.keyed`): what a key-value store on factgraph needs,
such as the LangGraph store of factgraph_client. Thin shells: reads ask for the reader role,
the TTL refresh for the writer role."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from graph.browse import keyed as domain
from resolvers.graphql.types import Fact
from resolvers.http.context import call, memory_for


@strawberry.type
class KeyedQuery:
    @strawberry.field(
        description="Active facts of a partition whose subject is one of keys, newest first: "
        "a key-value view (the LangGraph store keys items by subject)."
    )
    async def facts_by_key(
        self, info: Info, scope: str, partition: str, keys: list[str]
    ) -> list[Fact]:
        memory = memory_for(info, scope)
        found = await call(domain.facts_by_key, memory, scope, partition, keys)
        return [Fact.from_domain(f) for f in found]

    @strawberry.field(
        description="Active facts whose partition starts with prefix (a plain, case-sensitive "
        "string prefix; the whole scope when null), newest first; offset paging, first 1..1000."
    )
    async def partition_facts(
        self,
        info: Info,
        scope: str,
        prefix: str | None = None,
        first: int = 100,
        offset: int = 0,
    ) -> list[Fact]:
        memory = memory_for(info, scope)
        found = await call(
            domain.partition_facts, memory, scope, prefix=prefix, first=first, offset=offset
        )
        return [Fact.from_domain(f) for f in found]

    @strawberry.field(
        description="The partitions holding active facts whose name starts with prefix (all "
        "when null), sorted."
    )
    async def partitions(self, info: Info, scope: str, prefix: str | None = None) -> list[str]:
        return await call(domain.partitions, memory_for(info, scope), scope, prefix=prefix)


@strawberry.type
class KeyedMutation:
    @strawberry.mutation(
        description="Set the expiry of active facts that have one to `minutes` from now (a TTL "
        "refreshed on read); one value per id. No new version: history is unchanged. Returns "
        "how many moved."
    )
    async def refresh_expiry(
        self, info: Info, scope: str, ids: list[strawberry.ID], minutes: list[float]
    ) -> int:
        memory = memory_for(info, scope, "writer")
        return await call(domain.refresh_expiry, memory, scope, [str(i) for i in ids], minutes)
