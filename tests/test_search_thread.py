"""Questions that need many pieces: the hits spread over a conversation, and the thread view,
against the real Neo4j and the real model (the pure spreading rule is tested here too)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from graph.errors import ValidationError
from graph.memory import Memory
from graph.search.spread import spread

T0 = datetime(2025, 3, 1, tzinfo=UTC)


def put(memory: Memory, scope: str, text: str, **fields: Any) -> str:
    return memory.remember(scope, {"text": text, **fields}).id


def at(items: list[tuple[str, int]]) -> list[str]:
    """(session, turn) pairs as the keys spread() sees them, for readable assertions."""
    order = spread(items, lambda x: x, gap=2)
    return [f"{s}:{t}" for s, t in order]


def test_spread_moves_a_better_hits_neighbours_below_the_others() -> None:
    ranked = [("a", 5), ("a", 6), ("a", 4), ("b", 30), ("a", 20), ("c", 1)]
    assert at(ranked) == ["a:5", "b:30", "a:20", "c:1", "a:6", "a:4"]


def test_spread_keeps_the_order_when_nothing_crowds_and_never_drops() -> None:
    ranked = [("a", 1), ("b", 1), ("a", 9)]
    assert spread(ranked, lambda x: x, gap=2) == ranked
    crowded = [("a", 1), ("a", 2), ("a", 3)]
    # Nothing else to show: the neighbours fill the top in their own order.
    assert spread(crowded, lambda x: x, gap=2, depth=2) == crowded
    assert spread(crowded, lambda x: x) == crowded


def test_per_session_caps_one_sessions_share_of_the_top() -> None:
    ranked = [("a", 1), ("a", 10), ("a", 20), ("b", 1), (None, None)]
    order = spread(ranked, lambda x: x, per_session=2, depth=4)
    assert order == [("a", 1), ("a", 10), ("b", 1), (None, None), ("a", 20)]


def test_spreading_keeps_the_single_best_match_first(memory: Memory, scope: str) -> None:
    best = put(memory, scope, "Kim's allergy: Kim is allergic to peanuts", session_id="s1", turn=4)
    put(memory, scope, "Kim's allergy came up at lunch, peanuts again", session_id="s1", turn=5)
    put(memory, scope, "Kim asked about the peanut allergy card", session_id="s1", turn=3)
    put(memory, scope, "Kim packed a peanut-free snack for the trip", session_id="s7", turn=2)
    for turns, per_session in ((0, 0), (2, 0), (0, 1)):
        hits = memory.search(
            scope, "what is Kim allergic to?", top_k=3, spread_turns=turns, per_session=per_session
        ).hits
        assert hits[0].fact.id == best, (turns, per_session)


def test_spreading_makes_room_for_another_session(memory: Memory, scope: str) -> None:
    put(
        memory,
        scope,
        "user: the billing service deploy failed on the canary",
        session_id="1",
        turn=1,
    )
    put(
        memory,
        scope,
        "assistant: the billing service deploy failed: roll the canary back",
        session_id="1",
        turn=2,
    )
    put(
        memory, scope, "user: rolled back the billing service canary deploy", session_id="1", turn=3
    )
    later = put(
        memory, scope, "user: billing deploy is green on all regions now", session_id="2", turn=40
    )
    query = "what happened with the billing service deploy?"
    # (Without the newer-first rule, which would lift the later "now" message above the rest.)
    plain = [h.fact.id for h in memory.search(scope, query, top_k=3, newer_first=False).hits]
    spread_out = [
        h.fact.id
        for h in memory.search(scope, query, top_k=3, spread_turns=2, newer_first=False).hits
    ]
    # As ranked, the first session's three turns fill the top 3; spread, the other session's
    # message is among them, and the best hit is unchanged.
    assert later not in plain
    assert later in spread_out
    assert spread_out[0] == plain[0]


def test_thread_returns_the_topics_messages_in_time_order(memory: Memory, scope: str) -> None:
    story = [
        ("The auth work starts: we add OAuth login for the admin console", 0, "1", 2),
        (
            "Auth update: OAuth login works, now adding refresh tokens to the admin console",
            9,
            "2",
            30,
        ),
        (
            "Auth is done: the admin console login uses OAuth with refresh tokens and 2FA",
            21,
            "3",
            61,
        ),
    ]
    noise = [
        ("The office plants need watering twice a week", 3, "1", 5),
        ("Lunch on Friday is at the Thai place near the station", 12, "2", 33),
        ("The quarterly budget review moved to next Tuesday", 18, "3", 58),
    ]
    ids = {}
    # Written out of order: the thread's order is when they were said, not when written.
    for text, days, session, turn in reversed(story + noise):
        ids[text] = put(
            memory, scope, text, valid_from=T0 + timedelta(days=days), session_id=session, turn=turn
        )
    result = memory.search(
        scope, "how did the auth work on the admin console go?", top_k=3, thread=True
    )
    assert [h.fact.id for h in result.hits] == [ids[text] for text, *_ in story]
    said = [h.fact.valid_from for h in result.hits]
    assert said == sorted(said)


def test_thread_and_spread_options_are_checked(memory: Memory, scope: str) -> None:
    with pytest.raises(ValidationError) as caught:
        memory.search(scope, "anything", spread_turns=-1)
    assert caught.value.field == "spread_turns"
    with pytest.raises(ValidationError) as caught:
        memory.search(scope, "anything", thread="yes")
    assert caught.value.field == "thread"
