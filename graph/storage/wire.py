"""Parameter shapes that keep the Neo4j driver fast: on batches of thousands of rows, and on
every query that carries a vector.

Two costs of the neo4j 6.1 Python driver dominate a bulk write when left alone, both on the
client, before Neo4j sees a byte:

- It formats every RUN message for its debug log eagerly, whether debug logging is on or not,
  by calling repr() on the parameters. For a batch of 1,000 facts with 384-dimension vectors that
  repr costs about a second, more than writing the batch. A list subclass is packed exactly like
  a list (it is one), but its repr is a few characters: `Rows` and `Vector`. A search pays it
  too: the query vector's repr took ~0.2 ms of every query that carries it (up to two a search).
- It converts each Python datetime through its own time classes, about 150 microseconds apiece:
  a batch of 1,000 facts with five times each spends most of its client time there. Sending the
  time as ISO 8601 text and letting Cypher's `datetime()` parse it keeps every digit and the
  offset (`split_times` / `cypher/import_facts.cypher`).
"""

from __future__ import annotations

import datetime as dt
from typing import Any


class Vector(list[float]):
    __slots__ = ()

    def __repr__(self) -> str:
        return f"<vector of {len(self)} floats>"


class Rows(list[dict[str, Any]]):
    __slots__ = ()

    def __repr__(self) -> str:
        return f"<{len(self)} rows>"


def split_times(props: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The property map without its datetimes, and those datetimes as ISO 8601 text by key."""
    plain: dict[str, Any] = {}
    times: dict[str, str] = {}
    for key, value in props.items():
        if isinstance(value, dt.datetime):
            times[key] = value.isoformat()
        else:
            plain[key] = value
    return plain, times
