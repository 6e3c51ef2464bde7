"""The timeline: newest first, cursor-paged, filtered, stable while facts are inserted."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest

from graph.errors import ValidationError
from graph.memory import Memory
from graph.storage.cypher import load
from graph.storage.db import Database
from tests.browse_helpers import T0, add


def _all_pages(memory: Memory, scope: str, **kwargs: object) -> list[str]:
    ids: list[str] = []
    after: str | None = None
    while True:
        page = memory.timeline(scope, after=after, **kwargs)  # type: ignore[arg-type]
        ids.extend(edge.node.id for edge in page.edges)
        if not page.has_next_page:
            return ids
        after = page.end_cursor


def test_newest_first_by_valid_time_then_recorded_time(memory: Memory, scope: str) -> None:
    old = add(memory, scope, "first day", day=0)
    new = add(memory, scope, "tenth day", day=10)
    same_day_earlier = add(memory, scope, "fifth day, written first", day=5)
    same_day_later = add(memory, scope, "fifth day, written second", day=5)
    page = memory.timeline(scope)
    assert [f.id for f in page.facts] == [new, same_day_later, same_day_earlier, old]
    assert not page.has_next_page
    assert not page.has_previous_page


def test_pages_of_ten_by_default_cover_everything_once(memory: Memory, scope: str) -> None:
    ids = [add(memory, scope, f"event {i}", day=i) for i in range(23)]
    first = memory.timeline(scope)
    assert len(first.edges) == 10 and first.has_next_page
    assert first.start_cursor == first.edges[0].cursor
    second = memory.timeline(scope, after=first.end_cursor)
    assert second.has_previous_page
    assert _all_pages(memory, scope) == ids[::-1]
    assert _all_pages(memory, scope, first=7) == ids[::-1]


def test_ties_on_both_times_are_broken_by_id(memory: Memory, scope: str) -> None:
    stamp = T0 + timedelta(days=3)
    ids = [add(memory, scope, f"tied {i}", valid_from=stamp, recorded_at=stamp) for i in range(5)]
    assert _all_pages(memory, scope, first=2) == sorted(ids, reverse=True)


def test_filters_by_partition_session_and_valid_time(memory: Memory, scope: str) -> None:
    work = add(memory, scope, "work note", day=1, partition="work")
    home = add(memory, scope, "home note", day=2, partition="home")
    chat = add(memory, scope, "said in chat 7", day=3, session_id="chat-7", partition="work")
    late = add(memory, scope, "much later", day=40)
    assert [f.id for f in memory.timeline(scope, partition="work").facts] == [chat, work]
    assert [f.id for f in memory.timeline(scope, session_id="chat-7").facts] == [chat]
    ranged = memory.timeline(scope, since=T0 + timedelta(days=2), until=T0 + timedelta(days=40))
    assert [f.id for f in ranged.facts] == [chat, home]
    assert [f.id for f in memory.timeline(scope, since="2025-02-01T00:00:00Z").facts] == [late]


def test_exclude_ids_and_archived_facts_are_left_out(memory: Memory, scope: str) -> None:
    a = add(memory, scope, "alpha", day=1)
    b = add(memory, scope, "bravo", day=2)
    c = add(memory, scope, "charlie", day=3)
    gone = add(memory, scope, "delta", day=4)
    memory.forget(scope, gone)
    newer = memory.supersede(scope, c, {"text": "charlie, corrected"}).fact.id
    memory.remember(scope, {"text": "echo from the web", "source": "web"})
    ids = [f.id for f in memory.timeline(scope, exclude_ids=[a, "unknown"]).facts]
    assert ids == [newer, b]


def test_inserts_while_paging_never_repeat_or_skip_earlier_facts(
    memory: Memory, scope: str
) -> None:
    existing = [add(memory, scope, f"before paging {i}", day=2 * i) for i in range(30)]
    page = memory.timeline(scope, first=4)
    seen = [f.id for f in page.facts]
    inserted = 0
    while page.has_next_page:
        # New facts land everywhere in valid time: ahead of, behind, and tied with the cursor.
        last = page.edges[-1].node
        add(memory, scope, f"inserted {inserted}a", valid_from=last.valid_from)
        add(memory, scope, f"inserted {inserted}b", day=-5)
        add(memory, scope, f"inserted {inserted}c", day=100)
        inserted += 1
        page = memory.timeline(scope, first=4, after=page.end_cursor)
        seen.extend(f.id for f in page.facts)
    assert seen == existing[::-1]
    assert len(_all_pages(memory, scope)) == 30 + 3 * inserted


def test_paging_stays_exact_with_a_concurrent_writer(memory: Memory, scope: str) -> None:
    existing = [add(memory, scope, f"steady {i}", day=i) for i in range(25)]
    stop = threading.Event()
    written: list[str] = []

    def writer() -> None:
        i = 0
        while not stop.is_set() and i < 200:
            written.append(add(memory, scope, f"racing {i}", day=i % 25))
            i += 1

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        seen = _all_pages(memory, scope, first=3)
    finally:
        stop.set()
        thread.join()
    assert written, "the writer never ran"
    # Anything inserted after paging began is simply not there; everything else once, in order.
    assert [i for i in seen if i in set(existing)] == existing[::-1]
    assert len(seen) == len(set(seen))


def test_a_bad_cursor_names_the_field(memory: Memory, scope: str) -> None:
    # Not base64 JSON; a JSON object of an unknown version; base64 of a JSON list.
    for cursor in ("garbage!", "eyJ2IjogOX0", "WzFd"):
        with pytest.raises(ValidationError) as caught:
            memory.timeline(scope, after=cursor)
        assert caught.value.field == "after"


def test_bad_arguments_name_their_field(memory: Memory, scope: str) -> None:
    with pytest.raises(ValidationError) as caught:
        memory.timeline(scope, first=0)
    assert caught.value.field == "first"
    with pytest.raises(ValidationError) as caught:
        memory.timeline(scope, since="2025-02-01", until="2025-01-01")
    assert caught.value.field == "until"
    with pytest.raises(ValidationError) as caught:
        memory.timeline(scope, exclude_ids="abc")
    assert caught.value.field == "excludeIds"


def test_an_unknown_scope_gives_an_empty_page(memory: Memory) -> None:
    page = memory.timeline("no-such-scope-at-all")
    assert page.edges == [] and not page.has_next_page and page.end_cursor is None


@pytest.mark.parametrize(
    ("query", "index"),
    [
        ("browse_timeline", "(scope, valid_from)"),
        ("browse_timeline_partition", "(scope, partition, valid_from)"),
        ("browse_timeline_session", "(scope, session_id, valid_from)"),
    ],
)
def test_pages_are_read_in_index_order_not_sorted(db: Database, query: str, index: str) -> None:
    params: dict[str, Any] = {
        "scope": "s",
        "upper_valid": "9999-12-31T00:00:00Z",
        "lower_valid": "0001-01-01T00:00:00Z",
        "until": None,
        "snapshot": T0,
        "partition": "p",
        "session_id": "s",
        "now": T0,
        "exclude_ids": [],
        "after_valid": None,
        "after_recorded": None,
        "after_id": None,
        "limit": 11,
    }
    _, summary, _ = db.driver.execute_query("EXPLAIN " + load(query), params)
    operators = _operators(summary.plan)
    assert any(op.startswith("NodeIndexSeek") for op in operators), operators
    assert index in str(summary.plan)
    # PartialTop only sorts ties of valid time; a plain Top would sort the whole scope.
    assert not any(op.split("@")[0] in ("Top", "Sort") for op in operators), operators


def _operators(plan: Any) -> list[str]:
    out = [str(plan["operatorType"])]
    for child in plan.get("children", []):
        out.extend(_operators(child))
    return out
