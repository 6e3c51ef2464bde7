"""GraphQL for browsing: lexical search, the timeline, a node with neighbours, and contexts.

Thin shells over `graph.browse` and `graph.contexts` through `Memory`; reads ask for the reader
role, pinning for the writer role.
"""

from __future__ import annotations

import enum
from datetime import datetime

import strawberry
from strawberry.types import Info

from graph import browse as domain
from graph import contexts as domain_contexts
from resolvers.graphql.types import Fact
from resolvers.http.context import call, memory_for


@strawberry.enum(description="What a browsing reference points at.")
class NodeType(enum.Enum):
    FACT = "fact"
    ENTITY = "entity"


@strawberry.type(description="A node whose text contains the query; fetch it by id for more.")
class LexicalHit:
    id: strawberry.ID
    type: NodeType
    preview: str = strawberry.field(description="The text, cut to 300 characters.")
    time: datetime | None = strawberry.field(
        description="A fact's valid time, an entity's creation time."
    )

    @classmethod
    def from_domain(cls, hit: domain.LexicalHit) -> LexicalHit:
        return cls(
            id=strawberry.ID(hit.id), type=NodeType(hit.type), preview=hit.preview, time=hit.time
        )


@strawberry.type(description="Relay page information for the timeline.")
class PageInfo:
    has_next_page: bool
    has_previous_page: bool
    start_cursor: str | None
    end_cursor: str | None


@strawberry.type
class TimelineEdge:
    node: Fact
    cursor: str


@strawberry.type(description="Active facts, newest first (valid time, then recorded time).")
class TimelineConnection:
    edges: list[TimelineEdge]
    page_info: PageInfo

    @classmethod
    def from_domain(cls, page: domain.TimelinePage) -> TimelineConnection:
        return cls(
            edges=[
                TimelineEdge(node=Fact.from_domain(e.node), cursor=e.cursor) for e in page.edges
            ],
            page_info=PageInfo(
                has_next_page=page.has_next_page,
                has_previous_page=page.has_previous_page,
                start_cursor=page.start_cursor,
                end_cursor=page.end_cursor,
            ),
        )


@strawberry.type(description="An edge to a neighbour, by reference only.")
class NeighbourRef:
    id: strawberry.ID
    edge_type: str = strawberry.field(description="MENTIONS or SUPERSEDES.")
    relation: str = strawberry.field(
        description="subject / object (the entity's role), supersedes, superseded_by, "
        "shares_entity."
    )
    via: strawberry.ID | None = strawberry.field(
        description="The shared entity of a shares_entity reference."
    )


@strawberry.type(description="An entity: a canonical name that facts mention, and its aliases.")
class EntityNode:
    id: strawberry.ID = strawberry.field(description="entity:<canonical>")
    canonical: str
    name: str
    aliases: list[str]
    type: str | None
    created_at: datetime | None


@strawberry.type(description="A fact or an entity with references to its direct neighbours.")
class GraphNode:
    id: strawberry.ID
    type: NodeType
    fact: Fact | None
    entity: EntityNode | None
    neighbours: list[NeighbourRef]

    @classmethod
    def from_domain(cls, node: domain.BrowseNode) -> GraphNode:
        entity = node.entity
        return cls(
            id=strawberry.ID(node.id),
            type=NodeType(node.type),
            fact=None if node.fact is None else Fact.from_domain(node.fact),
            entity=None
            if entity is None
            else EntityNode(
                id=strawberry.ID(entity.id),
                canonical=entity.canonical,
                name=entity.name,
                aliases=list(entity.aliases),
                type=entity.type,
                created_at=entity.created_at,
            ),
            neighbours=[
                NeighbourRef(
                    id=strawberry.ID(r.id),
                    edge_type=r.edge_type,
                    relation=r.relation,
                    via=None if r.via is None else strawberry.ID(r.via),
                )
                for r in node.neighbours
            ],
        )


@strawberry.type(
    description="What an agent's conversation already holds: pass excludeIds (the union of "
    "both sets) to lexicalSearch, timeline and search."
)
class ConversationContext:
    id: str
    recall_selected_ids: list[strawberry.ID] = strawberry.field(
        description="What the last search with this contextId returned."
    )
    always_inject_ids: list[strawberry.ID] = strawberry.field(description="Pinned facts.")
    exclude_ids: list[strawberry.ID] = strawberry.field(
        description="Pins, then the recall selection, without repeats."
    )
    recalled_at: datetime | None
    updated_at: datetime | None

    @classmethod
    def from_domain(cls, context: domain_contexts.ConversationContext) -> ConversationContext:
        return cls(
            id=context.id,
            recall_selected_ids=[strawberry.ID(i) for i in context.recall_selected_ids],
            always_inject_ids=[strawberry.ID(i) for i in context.always_inject_ids],
            exclude_ids=[strawberry.ID(i) for i in context.exclude_ids],
            recalled_at=context.recalled_at,
            updated_at=context.updated_at,
        )


def _ids(ids: list[strawberry.ID] | None) -> list[str]:
    return [str(i) for i in ids or ()]


@strawberry.type
class BrowseQuery:
    @strawberry.field(
        description="Case-insensitive substring search over facts (text, subject / predicate / "
        "object, tags, entity names and aliases) and entities; newest first, no embedding. "
        "Superseded, forgotten and quarantined facts are skipped; an empty query gives []."
    )
    async def lexical_search(
        self,
        info: Info,
        scope: str,
        query: str,
        limit: int = 10,
        exclude_ids: list[strawberry.ID] | None = None,
        include_entities: bool = True,
    ) -> list[LexicalHit]:
        hits = await call(
            memory_for(info, scope).lexical_search,
            scope,
            query,
            limit=limit,
            exclude_ids=_ids(exclude_ids),
            include_entities=include_entities,
        )
        return [LexicalHit.from_domain(h) for h in hits]

    @strawberry.field(
        description="Active facts newest first (valid time, then recorded time), as a "
        "connection; pass pageInfo.endCursor as after. Facts inserted after the first page "
        "never shift later pages. since is inclusive, until exclusive (valid time)."
    )
    async def timeline(
        self,
        info: Info,
        scope: str,
        first: int = 10,
        after: str | None = None,
        partition: str | None = None,
        session_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        exclude_ids: list[strawberry.ID] | None = None,
    ) -> TimelineConnection:
        page = await call(
            memory_for(info, scope).timeline,
            scope,
            first=first,
            after=after,
            partition=partition,
            session_id=session_id,
            since=since,
            until=until,
            exclude_ids=_ids(exclude_ids),
        )
        return TimelineConnection.from_domain(page)

    @strawberry.field(
        description="A fact, or an entity (id entity:<canonical>), with references to its "
        "neighbours (up to limit facts sharing an entity); null when unknown or forgotten."
    )
    async def node(
        self,
        info: Info,
        scope: str,
        id: strawberry.ID,
        neighbours: bool = True,
        limit: int = 25,
    ) -> GraphNode | None:
        found = await call(
            memory_for(info, scope).node, scope, str(id), neighbours=neighbours, limit=limit
        )
        return None if found is None else GraphNode.from_domain(found)

    @strawberry.field(
        description="A conversation context's recalled and pinned fact ids; empty sets when "
        "the context is unknown."
    )
    async def conversation_context(self, info: Info, scope: str, id: str) -> ConversationContext:
        context = await call(memory_for(info, scope).context, scope, id)
        return ConversationContext.from_domain(context)


@strawberry.type
class BrowseMutation:
    @strawberry.mutation(
        description="Pin facts to a context (alwaysInjectIds); each id must name a fact of "
        "the scope. Creates the context on first use."
    )
    async def pin(
        self, info: Info, scope: str, context_id: str, fact_ids: list[strawberry.ID]
    ) -> ConversationContext:
        context = await call(
            memory_for(info, scope, "writer").pin, scope, context_id, _ids(fact_ids)
        )
        return ConversationContext.from_domain(context)

    @strawberry.mutation(description="Unpin facts from a context; unknown ids are ignored.")
    async def unpin(
        self, info: Info, scope: str, context_id: str, fact_ids: list[strawberry.ID]
    ) -> ConversationContext:
        context = await call(
            memory_for(info, scope, "writer").unpin, scope, context_id, _ids(fact_ids)
        )
        return ConversationContext.from_domain(context)
