"""Typed results: what the service answers, as dataclasses instead of nested dicts.

REST and GraphQL name the same things differently (`content` / `text`, `partition_id` /
`partition`, `created_at` / `recordedAt`); both land in the one `Fact` shape, and a field an
endpoint does not send is None (REST memories carry no subject, GraphQL carries everything).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


def parse_time(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    return datetime.fromisoformat(value)


def _format_time(value: datetime | str | None) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return value.isoformat()


@dataclass(frozen=True)
class Fact:
    """A stored memory (a fact), whichever endpoint answered."""

    id: str
    text: str
    partition: str
    tags: list[str] = field(default_factory=list)
    importance: float | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    source: str | None = None
    subject: str | None = None
    predicate: str | None = None
    object: str | None = None
    session_id: str | None = None
    turn: int | None = None
    status: str | None = None
    scope: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    expires_at: datetime | None = None
    last_accessed_at: datetime | None = None
    access_count: int | None = None

    @classmethod
    def from_rest(cls, body: Mapping[str, Any]) -> Fact:
        return cls(
            id=body["id"],
            text=body["content"],
            partition=body.get("partition_id") or "",
            tags=list(body.get("tags") or []),
            importance=body.get("importance_score"),
            metadata=dict(body.get("metadata") or {}),
            source=body.get("source"),
            status=body.get("status"),
            created_at=parse_time(body.get("created_at")),
            updated_at=parse_time(body.get("updated_at")),
            valid_from=parse_time(body.get("valid_from")),
            valid_to=parse_time(body.get("valid_to")),
            expires_at=parse_time(body.get("expires_at")),
            last_accessed_at=parse_time(body.get("last_accessed_at")),
            access_count=body.get("access_count"),
        )

    @classmethod
    def from_graphql(cls, body: Mapping[str, Any]) -> Fact:
        status = body.get("status")
        return cls(
            id=body["id"],
            text=body["text"],
            partition=body.get("partition") or "",
            tags=list(body.get("tags") or []),
            importance=body.get("importance"),
            metadata=dict(body.get("metadata") or {}),
            source=body.get("source"),
            subject=body.get("subject"),
            predicate=body.get("predicate"),
            object=body.get("object"),
            session_id=body.get("sessionId"),
            turn=body.get("turn"),
            status=status.lower() if isinstance(status, str) else None,
            scope=body.get("scope"),
            created_at=parse_time(body.get("recordedAt")),
            updated_at=parse_time(body.get("recordedAt")),
            valid_from=parse_time(body.get("validFrom")),
            valid_to=parse_time(body.get("validTo")),
            expires_at=parse_time(body.get("expiresAt")),
            last_accessed_at=parse_time(body.get("lastAccessedAt")),
            access_count=body.get("accessCount"),
        )


# The GraphQL selection that fills a Fact.
FACT_FIELDS = (
    "id scope partition text subject predicate object tags importance source metadata "
    "sessionId turn status accessCount lastAccessedAt expiresAt validFrom validTo recordedAt"
)


@dataclass(frozen=True)
class MemoryInput:
    """One memory to write: the body of `POST /api/v1/memories`. Only `content` is required."""

    content: str
    subject: str | None = None
    predicate: str | None = None
    object: str | None = None
    tags: Sequence[str] | None = None
    importance: float | None = None
    partition: str | None = None
    metadata: Mapping[str, Any] | None = None
    source: str | None = None
    session_id: str | None = None
    turn: int | None = None
    valid_from: datetime | str | None = None
    valid_to: datetime | str | None = None
    expires_at: datetime | str | None = None
    # False: hold for review (quarantine). GraphQL only: REST has no such field.
    trusted: bool | None = None

    def to_rest(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "content": self.content,
            "subject": self.subject,
            "predicate": self.predicate,
            "object": self.object,
            "tags": list(self.tags) if self.tags is not None else None,
            "importance_score": self.importance,
            "partition_id": self.partition,
            "metadata": dict(self.metadata) if self.metadata is not None else None,
            "source": self.source,
            "session_id": self.session_id,
            "turn": self.turn,
            "valid_from": _format_time(self.valid_from),
            "valid_to": _format_time(self.valid_to),
            "expires_at": _format_time(self.expires_at),
        }
        return {name: value for name, value in body.items() if value is not None}

    def to_graphql(self) -> dict[str, Any]:
        """The same memory as a GraphQL `FactInput`."""
        body: dict[str, Any] = {
            "text": self.content,
            "subject": self.subject,
            "predicate": self.predicate,
            "object": self.object,
            "tags": list(self.tags) if self.tags is not None else None,
            "importance": self.importance,
            "partition": self.partition,
            "metadata": dict(self.metadata) if self.metadata is not None else None,
            "source": self.source,
            "sessionId": self.session_id,
            "turn": self.turn,
            "validFrom": _format_time(self.valid_from),
            "validTo": _format_time(self.valid_to),
            "expiresAt": _format_time(self.expires_at),
            "trusted": self.trusted,
        }
        return {name: value for name, value in body.items() if value is not None}


@dataclass(frozen=True)
class Decision:
    """What the write pipeline decided: insert, dedup, merge, supersede or quarantine."""

    kind: str
    fact: Fact
    matched_id: str | None = None
    reason: str | None = None

    @classmethod
    def from_rest(cls, body: Mapping[str, Any]) -> Decision:
        return cls(kind=body["decision"], fact=Fact.from_rest(body), matched_id=body["matched_id"])

    @classmethod
    def from_graphql(cls, body: Mapping[str, Any]) -> Decision:
        matched = body.get("matched")
        return cls(
            kind=str(body["kind"]).lower(),
            fact=Fact.from_graphql(body["fact"]),
            matched_id=matched["id"] if matched else None,
            reason=body.get("reason"),
        )


@dataclass(frozen=True)
class SearchHit:
    fact: Fact
    score: float
    relevance: float
    importance: float
    recency: float


@dataclass(frozen=True)
class Standing:
    """A standing instruction or preference of the user: a memory that holds for later
    answers until a later one revokes it. `kind` is "instruction" or "preference";
    `similarity` its closeness to the query ((1 + cosine) / 2), None in a listing."""

    fact: Fact
    kind: str
    similarity: float | None = None

    @classmethod
    def from_rest(cls, body: Mapping[str, Any]) -> Standing:
        return cls(Fact.from_rest(body["memory"]), body["kind"], body.get("similarity"))


@dataclass(frozen=True)
class SearchResult:
    hits: list[SearchHit]
    related: list[Fact]
    # The standing instructions and preferences that bear on the query, for the agent's prompt.
    standing: list[Standing] = field(default_factory=list)
    # Whether anything in the scope answers the query: False says "nothing here", whatever the
    # hits; `answerability` is its 0..1 chance (None from a server that does not tell).
    answerable: bool | None = None
    answerability: float | None = None

    @classmethod
    def from_rest(cls, body: Mapping[str, Any]) -> SearchResult:
        return cls(
            hits=[
                SearchHit(
                    fact=Fact.from_rest(hit["memory"]),
                    score=hit["score"],
                    relevance=hit["relevance_score"],
                    importance=hit["importance_score_normalized"],
                    recency=hit["recency_score"],
                )
                for hit in body["results"]
            ],
            related=[Fact.from_rest(fact) for fact in body.get("related") or []],
            standing=[Standing.from_rest(s) for s in body.get("standing") or []],
            answerable=body.get("answerable"),
            answerability=body.get("answerability"),
        )


@dataclass(frozen=True)
class FactPage:
    """One page of a listing; pass `next_cursor` as `after` for the next (None: the last)."""

    items: list[Fact]
    next_cursor: str | None
