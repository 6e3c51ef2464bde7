"""Conversation contexts: what an agent already holds (recalled and pinned facts)."""

from __future__ import annotations

import pytest

from graph.contexts import get_context, pin, record_recall, unpin
from graph.errors import NotFound, ValidationError
from graph.memory import Memory
from graph.storage.db import Database


def _facts(memory: Memory, scope: str, *texts: str) -> list[str]:
    return [memory.remember(scope, {"text": t}).id for t in texts]


def test_an_unknown_context_reads_as_empty_sets(db: Database, scope: str) -> None:
    context = get_context(db, scope, "never-used")
    assert context.id == "never-used"
    assert context.recall_selected_ids == ()
    assert context.always_inject_ids == ()
    assert context.exclude_ids == ()


def test_reading_an_unknown_context_does_not_create_it(db: Database, scope: str) -> None:
    get_context(db, scope, "ghost")
    assert db.read("context_get", {"scope": scope, "context_id": "ghost"}) == []


def test_record_recall_replaces_the_last_selection(db: Database, scope: str) -> None:
    record_recall(db, scope, "chat-1", ["a", "b", "a"])
    assert get_context(db, scope, "chat-1").recall_selected_ids == ("a", "b")
    record_recall(db, scope, "chat-1", ["c"])
    context = get_context(db, scope, "chat-1")
    assert context.recall_selected_ids == ("c",)
    assert context.recalled_at is not None


def test_a_context_belongs_to_its_scope(db: Database, scope: str, other_scope: str) -> None:
    record_recall(db, scope, "chat-1", ["a"])
    assert get_context(db, other_scope, "chat-1").recall_selected_ids == ()


def test_pins_keep_their_order_and_survive_a_new_recall(
    memory: Memory, db: Database, scope: str
) -> None:
    first, second = _facts(memory, scope, "Ana likes tea", "Bo plays chess")
    pin(db, scope, "chat-1", [second])
    pin(db, scope, "chat-1", [first, second])
    record_recall(db, scope, "chat-1", [first, "other"])
    context = get_context(db, scope, "chat-1")
    assert context.always_inject_ids == (second, first)
    assert context.recall_selected_ids == (first, "other")
    assert context.exclude_ids == (second, first, "other")


def test_unpin_removes_only_the_named_facts(memory: Memory, db: Database, scope: str) -> None:
    first, second = _facts(memory, scope, "Ana likes tea", "Bo plays chess")
    pin(db, scope, "chat-1", [first, second])
    context = unpin(db, scope, "chat-1", [first, "not-pinned"])
    assert context.always_inject_ids == (second,)


def test_unpin_on_an_unknown_context_is_empty_and_writes_nothing(db: Database, scope: str) -> None:
    assert unpin(db, scope, "ghost", ["x"]).always_inject_ids == ()
    assert db.read("context_get", {"scope": scope, "context_id": "ghost"}) == []


def test_pinning_a_fact_of_another_scope_is_refused_and_pins_nothing(
    memory: Memory, db: Database, scope: str, other_scope: str
) -> None:
    (foreign,) = _facts(memory, other_scope, "Secret of another tenant")
    (own,) = _facts(memory, scope, "Ana likes tea")
    with pytest.raises(NotFound, match="factIds"):
        pin(db, scope, "chat-1", [own, foreign])
    assert get_context(db, scope, "chat-1").always_inject_ids == ()


@pytest.mark.parametrize("context_id", ["", "   ", "x" * 513])
def test_a_bad_context_id_names_the_field(db: Database, scope: str, context_id: str) -> None:
    with pytest.raises(ValidationError) as caught:
        record_recall(db, scope, context_id, [])
    assert caught.value.field == "contextId"


def test_ids_must_be_a_list_not_a_string(db: Database, scope: str) -> None:
    with pytest.raises(ValidationError) as caught:
        pin(db, scope, "chat-1", "abc")
    assert caught.value.field == "factIds"


def test_a_search_with_a_context_id_records_what_it_returned(
    memory: Memory, db: Database, scope: str
) -> None:
    ids = _facts(memory, scope, "Kai repairs vintage clocks", "Kai collects pocket watches")
    (pinned,) = _facts(memory, scope, "Kai lives above the shop")
    pin(db, scope, "chat-5", [pinned])
    result = memory.search(scope, "Kai clocks watches", context_id="chat-5", top_k=2)
    returned = [hit.fact.id for hit in result.hits]
    assert returned and set(returned) <= {*ids, pinned}
    context = get_context(db, scope, "chat-5")
    assert context.recall_selected_ids == tuple(returned)
    assert context.always_inject_ids == (pinned,)
    # A later search without the context id (the caller reused its last result) changes nothing.
    memory.search(scope, "pocket watches", top_k=1)
    assert get_context(db, scope, "chat-5") == context
