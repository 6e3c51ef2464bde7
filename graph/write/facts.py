"""What a fact is, as the Python API sees it.

`FactInput` is what a caller writes; `Fact` is what factgraph stores and returns. Both are plain
frozen dataclasses so they can be compared, hashed and serialised without touching Neo4j.
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


class FactStatus(enum.StrEnum):
    ACTIVE = "active"
    QUARANTINED = "quarantined"
    SUPERSEDED = "superseded"
    FORGOTTEN = "forgotten"


class DecisionKind(enum.StrEnum):
    INSERT = "insert"
    DEDUP = "dedup"
    MERGE = "merge"
    SUPERSEDE = "supersede"
    QUARANTINE = "quarantine"


@dataclass(frozen=True)
class FactInput:
    """A fact as an agent writes it. Only `text` is required."""

    text: str
    subject: str | None = None
    predicate: str | None = None
    object: str | None = None
    tags: tuple[str, ...] = ()
    importance: float = 5.0
    partition: str = "default"
    source: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    session_id: str | None = None
    turn: int | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    expires_at: datetime | None = None
    id: str | None = None
    trusted: bool = True
    embedding: tuple[float, ...] | None = None
    recorded_at: datetime | None = None


@dataclass(frozen=True)
class Fact:
    """A stored fact, with both time axes and its bookkeeping."""

    id: str
    scope: str
    partition: str
    text: str
    index_text: str
    subject: str | None
    predicate: str | None
    object: str | None
    tags: tuple[str, ...]
    importance: float
    source: str | None
    metadata: dict[str, Any]
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
    updated_at: datetime | None
    # "instruction" or "preference" when the text sets one for later answers
    # (graph/reading/standing.py); such a fact also carries the :Standing label.
    standing: str | None = None

    @classmethod
    def from_node(cls, node: Any) -> Fact:
        """Build from a Neo4j node or a property map returned by a query."""
        props = dict(node)
        raw_meta = props.get("metadata")
        metadata = json.loads(raw_meta) if isinstance(raw_meta, str) and raw_meta else {}
        return cls(
            id=props["id"],
            scope=props["scope"],
            partition=props.get("partition") or "default",
            text=props["text"],
            index_text=props.get("index_text") or props["text"],
            subject=props.get("subject"),
            predicate=props.get("predicate"),
            object=props.get("object"),
            tags=tuple(props.get("tags") or ()),
            importance=_float(props.get("importance"), 5.0),
            source=props.get("source"),
            metadata=metadata,
            session_id=props.get("session_id"),
            turn=props.get("turn"),
            content_hash=props.get("content_hash") or "",
            embedder=props.get("embedder"),
            status=FactStatus(props.get("status") or "active"),
            strength=float(props.get("strength") or 1.0),
            access_count=int(props.get("access_count") or 0),
            last_accessed_at=read_time(props.get("last_accessed_at")),
            expires_at=read_time(props.get("expires_at")),
            valid_from=read_time(props.get("valid_from")) or read_time(props["recorded_at"]),  # type: ignore[arg-type]
            valid_to=read_time(props.get("valid_to")),
            recorded_at=read_time(props["recorded_at"]),  # type: ignore[arg-type]
            expired_at=read_time(props.get("expired_at")),
            updated_at=read_time(props.get("updated_at")),
            standing=props.get("standing"),
        )


@dataclass(frozen=True)
class Decision:
    """What the write pipeline decided, and why; `matched` is the existing fact it acted on."""

    kind: DecisionKind
    fact: Fact
    matched: Fact | None = None
    reason: str = ""


def _float(value: Any, default: float) -> float:
    return default if value is None else float(value)


def read_time(value: Any) -> datetime | None:
    """A Python datetime from a driver DateTime, a datetime, or Cypher's `toString(datetime)`.

    Hot read paths (search) return datetimes as strings: the driver's DateTime hydration is
    pure Python and costs about 0.1 ms per value, which for the ~100 candidates of a search
    was more than the index calls. A `[Zone/Name]` suffix is dropped; the offset keeps the
    instant.
    """
    if value is None:
        return None
    if isinstance(value, str):
        return datetime.fromisoformat(value.split("[", 1)[0])
    to_native = getattr(value, "to_native", None)
    if to_native is not None:
        result = to_native()
        assert isinstance(result, datetime)
        return result
    assert isinstance(value, datetime)
    return value
