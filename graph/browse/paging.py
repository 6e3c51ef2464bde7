"""The timeline: active facts newest first, as a Relay-style connection with opaque cursors.

Order is valid time, then recorded time, then id (a total order). A cursor carries the exact
key of the last fact of a page plus the moment paging began (the snapshot); later pages only
see facts recorded by then, so concurrent inserts never push a fact onto a page it was not on
and paging on never repeats or skips a fact that existed when paging began. Facts archived
meanwhile (superseded, forgotten) drop out, as they would from any read.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graph.browse.common import check_exclude_ids, check_limit
from graph.clock import Clock, system_clock
from graph.errors import ValidationError
from graph.storage.db import Database
from graph.write.facts import Fact
from graph.write.validation import check_clean, check_scope, parse_time

DEFAULT_PAGE = 10
# Bounds of valid time when none is given, so the range index can always seek.
_END_OF_TIME = "9999-12-31T23:59:59.999999999Z"
_START_OF_TIME = "0001-01-01T00:00:00Z"
_CURSOR_VERSION = 1


@dataclass(frozen=True)
class TimelineEdge:
    node: Fact
    cursor: str


@dataclass(frozen=True)
class TimelinePage:
    edges: list[TimelineEdge]
    has_next_page: bool
    has_previous_page: bool

    @property
    def start_cursor(self) -> str | None:
        return self.edges[0].cursor if self.edges else None

    @property
    def end_cursor(self) -> str | None:
        return self.edges[-1].cursor if self.edges else None

    @property
    def facts(self) -> list[Fact]:
        return [edge.node for edge in self.edges]


@dataclass(frozen=True)
class _Key:
    valid: str  # Neo4j's toString() of valid_from: exact, zone included
    recorded: str
    id: str
    snapshot: str  # ISO-8601: when paging began


def _encode(key: _Key) -> str:
    raw = json.dumps(
        {"v": _CURSOR_VERSION, "t": key.valid, "r": key.recorded, "i": key.id, "s": key.snapshot},
        separators=(",", ":"),
    )
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def _decode(cursor: str, field: str = "after") -> _Key:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        data = json.loads(base64.urlsafe_b64decode(padded.encode()))
        if not isinstance(data, dict) or data.get("v") != _CURSOR_VERSION:
            raise ValueError("unknown cursor version")
        key = _Key(valid=data["t"], recorded=data["r"], id=data["i"], snapshot=data["s"])
        if not all(isinstance(v, str) and v for v in vars(key).values()):
            raise ValueError("cursor fields must be strings")
        parse_time(field, key.snapshot)
        return key
    except (ValueError, KeyError, TypeError, binascii.Error, UnicodeDecodeError):
        raise ValidationError(field, "is not a cursor returned by timeline") from None


def timeline(
    db: Database,
    scope: str,
    *,
    first: int = DEFAULT_PAGE,
    after: str | None = None,
    partition: str | None = None,
    session_id: str | None = None,
    since: datetime | str | None = None,
    until: datetime | str | None = None,
    exclude_ids: Iterable[str] | None = None,
    clock: Clock = system_clock,
) -> TimelinePage:
    """A page of active facts, newest first; pass `end_cursor` as `after` for the next one.

    `since` / `until` bound valid time (`since` inclusive, `until` exclusive).
    """
    check_scope(scope)
    check_limit(first, "first")
    excluded = check_exclude_ids(exclude_ids)
    since_at = parse_time("since", since)
    until_at = parse_time("until", until)
    if since_at and until_at and until_at <= since_at:
        raise ValidationError("until", "must be later than since")
    for name, value in (("partition", partition), ("sessionId", session_id)):
        if value is not None and not isinstance(value, str):
            raise ValidationError(name, "must be a string")
        if value is not None:
            check_clean(name, value)
    now = clock()
    key = _decode(after) if after else None
    snapshot = key.snapshot if key else now.isoformat()
    # A cursor is always below `until`; without one the seek starts at `until` (or the end).
    upper = until_at.isoformat() if until_at else _END_OF_TIME
    if key is not None:
        upper = key.valid
    params: dict[str, Any] = {
        "scope": scope,
        "upper_valid": upper,
        "lower_valid": since_at.isoformat() if since_at else _START_OF_TIME,
        "until": until_at,
        "snapshot": parse_time("after", snapshot),
        "partition": partition,
        "session_id": session_id,
        "now": now,
        "exclude_ids": excluded,
        "after_valid": key.valid if key else None,
        "after_recorded": key.recorded if key else None,
        "after_id": key.id if key else None,
        "limit": first + 1,
    }
    # One query per index, so each page is read in index order (see the Cypher files).
    if session_id is not None:
        query = "browse_timeline_session"
    elif partition is not None:
        query = "browse_timeline_partition"
    else:
        query = "browse_timeline"
    records = db.read(query, params)
    edges = [
        TimelineEdge(
            node=Fact.from_node(r["fact"]),
            cursor=_encode(_Key(r["valid_key"], r["recorded_key"], r["fact"]["id"], snapshot)),
        )
        for r in records[:first]
    ]
    return TimelinePage(
        edges=edges, has_next_page=len(records) > first, has_previous_page=key is not None
    )
