"""How a write commits: its decision and every retired fact are audited in the transaction, a
decision taken on a fact retired meanwhile is taken again, and the committed change is published."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TypeVar

from neo4j import ManagedTransaction

from graph.state import MemoryState
from graph.storage import store
from graph.write import batch
from graph.write.events import Action, FactChange
from graph.write.facts import Decision, DecisionKind, Fact

T = TypeVar("T")

_STALE_RETRIES = 5


class _StaleDecision(Exception):
    """A fact a write decided on was retired concurrently; decide again."""


class Recording(MemoryState):
    """What every write shares: the retried transaction, the chain, the audit and the event."""

    def _write(self, work: Callable[[ManagedTransaction], T], label: str) -> T:
        """`db.write_tx`, run again when a fact it decided on was retired under it.

        Slot locks serialise writers of one slot, but an explicit supersede or a forget locks
        only its fact: a write that read the slot before such a writer committed finds, when
        it retires a fact, that the fact is no longer active (`_chain` raises _StaleDecision).
        Deciding again on the committed state keeps the chain linear.
        """
        for _ in range(_STALE_RETRIES):
            try:
                return self.db.write_tx(work, label)
            except (_StaleDecision, batch.StaleBatch):
                continue
        return self.db.write_tx(work, label)

    def _chain(
        self,
        tx: ManagedTransaction,
        scope: str,
        old_id: str,
        new: Fact,
        reason: str,
        actor: str,
        now: datetime,
    ) -> None:
        """`new` SUPERSEDES `old_id`: the old fact closes at new.valid_from, and it is audited.

        Raises _StaleDecision when `old_id` is no longer active: another writer retired it after
        this transaction read it, so the decision must be taken again (see `_write`).
        """
        retired = store.retire(
            tx,
            scope=scope,
            old_id=old_id,
            new_id=new.id,
            reason=reason,
            valid_until=new.valid_from,
            now=now,
        )
        if retired is None:
            raise _StaleDecision(old_id)
        store.record_audit(
            tx,
            scope=scope,
            fact_id=old_id,
            kind="superseded",
            actor=actor,
            reason=f"superseded by {new.id}: {reason}",
            now=now,
        )

    def _decided(
        self,
        tx: ManagedTransaction,
        scope: str,
        kind: DecisionKind,
        stored: Fact,
        matched: Fact | None,
        reason: str,
        actor: str,
    ) -> Decision:
        store.record_audit(
            tx,
            scope=scope,
            fact_id=stored.id,
            kind=kind.value,
            actor=actor,
            reason=reason,
            now=self.clock(),
        )
        return Decision(kind, stored, matched, reason)

    def _published(self, scope: str, action: Action, decision: Decision, actor: str) -> Decision:
        """Tell live subscribers about a committed decision, and hand the decision back."""
        self.events.publish(FactChange.of_decision(scope, action, decision, actor, self.clock()))
        return decision
