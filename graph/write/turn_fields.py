"""`metadata.session_id` / `metadata.turn` as the fact's session and turn.

Clients of the REST API we reproduce (e.g. a Claude Code Stop hook writing one summary per
turn) carry the conversation position in metadata, not in top-level fields. The turn window,
the timeline and passages read only the top-level `session_id` / `turn`, so every write
(remember, import) and every export lifts them from metadata when the top-level field is
absent; a top-level value always wins. The metadata itself is kept as sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graph.errors import ValidationError

SESSION_KEY = "session_id"
TURN_KEY = "turn"


def session_from_metadata(metadata: Mapping[str, Any]) -> str | None:
    value = metadata.get(SESSION_KEY)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise ValidationError("metadata.session_id", "must be a string")
    text = str(value).strip()
    return text or None


# The largest integer every JSON client reads exactly (2**53 - 1); far below 2**63, so that a
# turn window (turn ± a few, in Cypher) cannot overflow Neo4j's 64-bit integers.
MAX_TURN = 2**53 - 1


def turn_from_metadata(metadata: Mapping[str, Any]) -> int | None:
    """An integer turn (JSON may carry it as 3, 3.0 or "3"); anything else is refused."""
    value = metadata.get(TURN_KEY)
    if value is None:
        return None
    if isinstance(value, bool):
        raise ValidationError("metadata.turn", "must be a non-negative integer")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    elif isinstance(value, str) and value.strip().isdigit() and len(value.strip()) <= 20:
        value = int(value.strip())  # longer: past any turn (and int() refuses 4,300 digits)
    if not isinstance(value, int) or not 0 <= value <= MAX_TURN:
        raise ValidationError("metadata.turn", f"must be an integer from 0 to {MAX_TURN}")
    return value


def lifted(
    session_id: str | None, turn: int | None, metadata: Mapping[str, Any] | None
) -> tuple[str | None, int | None]:
    """The session and turn a fact stands at: top-level fields first, then its metadata."""
    if not isinstance(metadata, Mapping):
        return session_id, turn
    if session_id is None:
        session_id = session_from_metadata(metadata)
    if turn is None:
        turn = turn_from_metadata(metadata)
    return session_id, turn
