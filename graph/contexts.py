"""What an agent already holds: a conversation context's recalled and pinned fact ids.

A context is a `(:Context {scope, id})` node with two id lists. `recall_selected_ids` is what
the last search made with that context id returned (replaced on each such search, untouched when
a search is skipped or reused); `always_inject_ids` are facts pinned to the context. Callers pass
their union as `excludeIds` to lexical search, timeline and search, so an agent's own lookups
never hand back what its main context already has. Reading a context never writes; an unknown
context reads as empty.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graph.clock import Clock, system_clock
from graph.errors import NotFound, ValidationError
from graph.storage.db import Database, run
from graph.write.facts import read_time
from graph.write.validation import check_clean, check_scope

MAX_CONTEXT_ID_CHARS = 512
MAX_CONTEXT_IDS = 1_000


@dataclass(frozen=True)
class ConversationContext:
    """The two id sets of a context; both empty for a context never written."""

    id: str
    recall_selected_ids: tuple[str, ...] = ()
    always_inject_ids: tuple[str, ...] = ()
    recalled_at: datetime | None = None
    updated_at: datetime | None = None

    @property
    def exclude_ids(self) -> tuple[str, ...]:
        """Pins first, then the recall selection, without repeats: what to pass as excludeIds."""
        return tuple(dict.fromkeys((*self.always_inject_ids, *self.recall_selected_ids)))

    @classmethod
    def from_record(cls, record: Any) -> ConversationContext:
        return cls(
            id=record["id"],
            recall_selected_ids=tuple(record["recall_selected_ids"]),
            always_inject_ids=tuple(record["always_inject_ids"]),
            recalled_at=read_time(record["recalled_at"]),
            updated_at=read_time(record["updated_at"]),
        )


def check_context_id(context_id: str, field: str = "contextId") -> str:
    if not isinstance(context_id, str) or not context_id.strip():
        raise ValidationError(field, "must be a non-empty string")
    if len(context_id) > MAX_CONTEXT_ID_CHARS:
        raise ValidationError(field, f"longer than {MAX_CONTEXT_ID_CHARS} characters")
    return check_clean(field, context_id)


def check_ids(ids: Iterable[str], field: str) -> list[str]:
    """Fact ids as a list without repeats, in first-seen order; strings only."""
    if isinstance(ids, str):
        raise ValidationError(field, "must be a list of ids, not a single string")
    out: dict[str, None] = {}
    for value in ids:
        if not isinstance(value, str) or not value:
            raise ValidationError(field, "each id must be a non-empty string")
        out[check_clean(field, value)] = None
    return list(out)


def record_recall(
    db: Database, scope: str, context_id: str, ids: list[str], *, clock: Clock = system_clock
) -> None:
    """Replace the context's recall selection with the ids a search just returned.

    Called by search when the request carries a context id; creates the context on first use.
    A search the caller skipped (reusing its last result) must simply not call this, so the
    last sets stay as they were.
    """
    check_scope(scope)
    check_context_id(context_id)
    # A search never returns more than its limit; the cap only guards the node's size.
    db.write(
        "context_record_recall",
        {
            "scope": scope,
            "context_id": context_id,
            "ids": check_ids(ids, "ids")[:MAX_CONTEXT_IDS],
            "now": clock(),
        },
    )


def get_context(db: Database, scope: str, context_id: str) -> ConversationContext:
    """The context's id sets; an unknown scope or context gives empty sets, never an error."""
    check_scope(scope)
    check_context_id(context_id)
    records = db.read("context_get", {"scope": scope, "context_id": context_id})
    return (
        ConversationContext.from_record(records[0]) if records else ConversationContext(context_id)
    )


def pin(
    db: Database,
    scope: str,
    context_id: str,
    fact_ids: Iterable[str],
    *,
    clock: Clock = system_clock,
) -> ConversationContext:
    """Add facts to the context's always-inject set; every id must name a fact of the scope."""
    check_scope(scope)
    check_context_id(context_id)
    ids = check_ids(fact_ids, "factIds")
    now = clock()

    def work(tx: Any) -> ConversationContext:
        missing = run(tx, "context_missing_facts", scope=scope, ids=ids)[0]["missing"]
        if missing:
            raise NotFound(f"factIds: no fact {missing[0]!r} in scope {scope!r}")
        records = run(tx, "context_pin", scope=scope, context_id=context_id, ids=ids, now=now)
        context = ConversationContext.from_record(records[0])
        if len(context.always_inject_ids) > MAX_CONTEXT_IDS:  # raising here rolls the pin back
            raise ValidationError("factIds", f"a context holds at most {MAX_CONTEXT_IDS} pins")
        return context

    return db.write_tx(work, "context_pin")


def unpin(
    db: Database,
    scope: str,
    context_id: str,
    fact_ids: Iterable[str],
    *,
    clock: Clock = system_clock,
) -> ConversationContext:
    """Remove facts from the always-inject set; an unknown context stays unknown (empty)."""
    check_scope(scope)
    check_context_id(context_id)
    ids = check_ids(fact_ids, "factIds")
    records = db.write(
        "context_unpin", {"scope": scope, "context_id": context_id, "ids": ids, "now": clock()}
    )
    return (
        ConversationContext.from_record(records[0]) if records else ConversationContext(context_id)
    )
