"""GraphQL output types: the shapes a frontend reads, converted from `graph.write.facts`."""

from __future__ import annotations

import enum
from datetime import datetime
from typing import cast

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from graph.storage import store
from graph.storage.cursors import Page
from graph.write import facts as domain
from resolvers.http.context import call, memory


@strawberry.enum(description="Lifecycle of a fact; only active facts are visible to normal reads.")
class FactStatus(enum.Enum):
    ACTIVE = "active"
    QUARANTINED = "quarantined"
    SUPERSEDED = "superseded"
    FORGOTTEN = "forgotten"


@strawberry.enum(description="What the write pipeline decided for a remember call.")
class DecisionKind(enum.Enum):
    INSERT = "insert"
    DEDUP = "dedup"
    MERGE = "merge"
    SUPERSEDE = "supersede"
    QUARANTINE = "quarantine"


@strawberry.enum(
    description="A standing statement: an instruction or a preference that holds for later "
    "answers until revoked."
)
class StandingKind(enum.Enum):
    INSTRUCTION = "instruction"
    PREFERENCE = "preference"


@strawberry.type(description="Something an agent learned, with both time axes.")
class Fact:
    id: strawberry.ID
    scope: str
    partition: str
    text: str
    index_text: str
    subject: str | None
    predicate: str | None
    object: str | None
    tags: list[str]
    importance: float
    source: str | None
    metadata: JSON
    session_id: str | None
    turn: int | None
    content_hash: str
    embedder: str | None
    status: FactStatus
    strength: float
    access_count: int
    last_accessed_at: datetime | None
    expires_at: datetime | None
    valid_from: datetime
    valid_to: datetime | None
    recorded_at: datetime
    expired_at: datetime | None
    standing: StandingKind | None = strawberry.field(
        default=None,
        description='Set when the text gives a standing instruction ("always include type '
        'hints") or preference ("I prefer PostgreSQL"), recognised when it was written; a '
        "later statement that revokes it supersedes it.",
    )

    @strawberry.field(
        description="Ids of the turns a synthesised fact was drawn from (the consolidator's "
        "extraction, linked DERIVED_FROM); empty for a fact an agent wrote."
    )
    async def derived_from(self, info: Info) -> list[strawberry.ID]:
        ids = await call(memory(info).derived_from, self.scope, str(self.id))
        return [strawberry.ID(i) for i in ids]

    @classmethod
    def from_domain(cls, fact: domain.Fact) -> Fact:
        return cls(
            id=strawberry.ID(fact.id),
            scope=fact.scope,
            partition=fact.partition,
            text=fact.text,
            index_text=fact.index_text,
            subject=fact.subject,
            predicate=fact.predicate,
            object=fact.object,
            tags=list(fact.tags),
            importance=fact.importance,
            source=fact.source,
            metadata=cast(JSON, fact.metadata),
            session_id=fact.session_id,
            turn=fact.turn,
            content_hash=fact.content_hash,
            embedder=fact.embedder,
            status=FactStatus(fact.status.value),
            strength=fact.strength,
            access_count=fact.access_count,
            last_accessed_at=fact.last_accessed_at,
            expires_at=fact.expires_at,
            valid_from=fact.valid_from,
            valid_to=fact.valid_to,
            recorded_at=fact.recorded_at,
            expired_at=fact.expired_at,
            standing=StandingKind(fact.standing) if fact.standing else None,
        )


def fact_or_none(fact: domain.Fact | None) -> Fact | None:
    return None if fact is None else Fact.from_domain(fact)


@strawberry.type(description="The pipeline's decision: the fact now holding the content, and why.")
class RememberResult:
    kind: DecisionKind
    fact: Fact
    matched: Fact | None
    reason: str

    @classmethod
    def from_domain(cls, decision: domain.Decision) -> RememberResult:
        return cls(
            kind=DecisionKind(decision.kind.value),
            fact=Fact.from_domain(decision.fact),
            matched=fact_or_none(decision.matched),
            reason=decision.reason,
        )


@strawberry.type(description="A fact waiting for review, with why and when it was held.")
class HeldFact:
    fact: Fact
    reason: str | None = strawberry.field(
        description="The pipeline's reason for the quarantine; null if none was recorded."
    )
    held_at: datetime | None


@strawberry.type(
    description="One page of the review queue; pass nextCursor as `after` for the next."
)
class ReviewQueuePage:
    items: list[Fact] = strawberry.field(description="The facts (as in held, without reasons).")
    held: list[HeldFact]
    next_cursor: str | None

    @classmethod
    def from_domain(cls, page: Page[store.HeldFact]) -> ReviewQueuePage:
        held = [
            HeldFact(fact=Fact.from_domain(h.fact), reason=h.reason, held_at=h.held_at)
            for h in page.items
        ]
        return cls(items=[h.fact for h in held], held=held, next_cursor=page.next_cursor)


@strawberry.type(description="A stored fact near another, with the raw cosine similarity.")
class Neighbour:
    fact: Fact
    cosine: float


@strawberry.type(description="One state change of a fact: who, what, why and when.")
class AuditEvent:
    id: strawberry.ID
    fact_id: strawberry.ID
    kind: str
    actor: str
    reason: str
    at: datetime

    @classmethod
    def from_domain(cls, event: store.AuditEvent) -> AuditEvent:
        return cls(
            id=strawberry.ID(event.id),
            fact_id=strawberry.ID(event.fact_id),
            kind=event.kind,
            actor=event.actor,
            reason=event.reason,
            at=event.at,
        )
