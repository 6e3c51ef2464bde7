"""Spread the top hits over a conversation: fewer neighbours of one hit, more of the story.

A question whose answer is told across sessions ("in what order did we ...", "summarise how
... evolved") has its evidence spread over a conversation, while the best candidates of a
search crowd around one place of it: a message, the answer to it, the next question. Those
neighbours cost a top-k slot each although the turn window (`prev_turns` / `next_turns`)
returns them beside the hit anyway. Here a candidate within `gap` turns of a better hit of
the same session, or of a session that already holds `per_session` hits, waits below the
others; the best hit always stays first, and nothing is dropped, only moved down.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")

Place = tuple[str | None, int | None]


def spread(
    ranked: Sequence[T],
    place: Callable[[T], Place],
    *,
    gap: int = 0,
    per_session: int = 0,
    depth: int | None = None,
) -> list[T]:
    """`ranked` best first, with the crowding candidates moved below the others among the
    first `depth` (all, without one); `place`: a candidate's (session, turn), either None for
    a fact said outside a conversation, which never crowds. `gap` 0 and `per_session` 0 keep
    the order as it is."""
    if (gap <= 0 and per_session <= 0) or len(ranked) < 2:
        return list(ranked)
    limit = len(ranked) if depth is None else depth
    chosen: list[T] = []
    waiting: list[T] = []
    turns: dict[str, list[int]] = {}
    for item in ranked:
        if len(chosen) >= limit:
            waiting.append(item)
            continue
        session, turn = place(item)
        if (
            session is not None
            and chosen
            and _crowds(turns.get(session, []), turn, gap, per_session)
        ):
            waiting.append(item)
            continue
        chosen.append(item)
        if session is not None:
            turns.setdefault(session, []).append(turn if turn is not None else -1)
    if len(chosen) < limit:
        # Too few others: the waiting ones fill the top in their own order.
        fill = waiting[: limit - len(chosen)]
        chosen += fill
        waiting = waiting[len(fill) :]
    return chosen + waiting


def _crowds(taken: list[int], turn: int | None, gap: int, per_session: int) -> bool:
    if per_session > 0 and len(taken) >= per_session:
        return True
    if gap > 0 and turn is not None:
        return any(t >= 0 and abs(t - turn) <= gap for t in taken)
    return False
