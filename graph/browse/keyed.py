"""A key-value view of a scope: what a key-value store on factgraph needs and the rest of the
API does not give (`get` by id, search by meaning and the timeline of one partition cannot
answer "the live value of key k in namespace n").

Facts by (partition, subject), listings of the partitions starting with a prefix, the
partitions in use, and a TTL refresh. The LangGraph store of factgraph_client keeps an item's
key in the fact's subject and its namespace in the partition as a JSON array, so that a string
prefix of the partition is a namespace prefix. Reads only see active facts whose TTL has not
passed, like every other read.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import timedelta

from graph.errors import ValidationError
from graph.memory import Memory
from graph.write.facts import Fact
from graph.write.validation import MAX_FIELD_CHARS, check_clean, check_scope

MAX_KEYS = 1_000
MAX_PAGE = 1_000
MAX_TTL_MINUTES = 100 * 365 * 24 * 60  # a century: beyond it a TTL means none


def facts_by_key(memory: Memory, scope: str, partition: str, keys: Sequence[str]) -> list[Fact]:
    """Active facts of `partition` whose subject is one of `keys`, newest first."""
    check_scope(scope)
    _check_partition("partition", partition)
    if len(keys) > MAX_KEYS:
        raise ValidationError("keys", f"at most {MAX_KEYS} keys, got {len(keys)}")
    if not keys:
        return []
    records = memory.db.read(
        "keyed_facts",
        {"scope": scope, "partition": partition, "keys": list(keys), "now": memory.clock()},
    )
    return [Fact.from_node(record["fact"]) for record in records]


def partition_facts(
    memory: Memory, scope: str, *, prefix: str | None, first: int, offset: int
) -> list[Fact]:
    """Active facts whose partition starts with `prefix` (all when None), newest first."""
    check_scope(scope)
    if prefix is not None:
        _check_length("prefix", prefix)
    if not 1 <= first <= MAX_PAGE:
        raise ValidationError("first", f"must be between 1 and {MAX_PAGE}")
    if offset < 0:
        raise ValidationError("offset", "must not be negative")
    records = memory.db.read(
        "keyed_partition_facts",
        {
            "scope": scope,
            "prefix": prefix,
            "offset": offset,
            "limit": first,
            "now": memory.clock(),
        },
    )
    return [Fact.from_node(record["fact"]) for record in records]


def partitions(memory: Memory, scope: str, *, prefix: str | None) -> list[str]:
    """The partitions holding active facts whose name starts with `prefix` (or all), sorted."""
    check_scope(scope)
    if prefix is not None:
        _check_length("prefix", prefix)
    records = memory.db.read(
        "keyed_partitions", {"scope": scope, "prefix": prefix, "now": memory.clock()}
    )
    return [str(record["partition"]) for record in records]


def refresh_expiry(memory: Memory, scope: str, ids: Sequence[str], minutes: Sequence[float]) -> int:
    """Set the TTL of active facts that have one to `minutes` from now (refresh on read, as
    LangGraph's stores do); returns how many moved. The service's clock decides, not the
    caller's. Not a new version of the fact, so no history row: only when it expires changes.
    """
    check_scope(scope)
    if len(ids) != len(minutes):
        raise ValidationError("minutes", "needs one value per id")
    if len(ids) > MAX_KEYS:
        raise ValidationError("ids", f"at most {MAX_KEYS} ids, got {len(ids)}")
    for value in minutes:
        if not math.isfinite(value) or not 0 < value <= MAX_TTL_MINUTES:
            raise ValidationError("minutes", f"must be above 0 and at most {MAX_TTL_MINUTES}")
    now = memory.clock()
    rows = [
        {"id": i, "expires_at": now + timedelta(minutes=m)}
        for i, m in zip(ids, minutes, strict=True)
    ]
    records = memory.db.write("keyed_refresh_expiry", {"scope": scope, "rows": rows})
    return int(records[0]["moved"]) if records else 0


def _check_partition(field: str, value: str) -> None:
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(field, "must not be empty")
    _check_length(field, value)


def _check_length(field: str, value: str) -> None:
    if len(value) > MAX_FIELD_CHARS:
        raise ValidationError(field, f"longer than {MAX_FIELD_CHARS} characters")
    check_clean(field, value)
