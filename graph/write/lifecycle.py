"""A fact's life after its write: forgotten, validated or rejected from review, or purged.

Each change locks the fact, checks the status it may move from, and is audited in the same
transaction; a purge keeps only the audit event.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime

from neo4j import ManagedTransaction

from graph.errors import Conflict, NotFound
from graph.storage import store
from graph.write.events import Action, FactChange, QueueMove
from graph.write.facts import Decision, DecisionKind, Fact, FactStatus
from graph.write.pipeline import is_single_valued, object_key, predicate_key
from graph.write.recording import Recording
from graph.write.validation import check_id, check_reason, check_scope


class Lifecycle(Recording):
    """`Memory`'s status changes after a write: forget, validate, reject and purge."""

    def forget(
        self, scope: str, fact_id: str, *, reason: str = "forgotten", actor: str = "agent"
    ) -> Fact:
        """Soft delete: the fact leaves every normal read but stays in its history."""
        return self._transition(
            scope,
            fact_id,
            allowed=(FactStatus.ACTIVE, FactStatus.QUARANTINED, FactStatus.SUPERSEDED),
            status=FactStatus.FORGOTTEN,
            kind="forget",
            reason=reason,
            actor=actor,
        )

    def forget_many(
        self,
        scope: str,
        fact_ids: Iterable[str] = (),
        *,
        within: Callable[[ManagedTransaction], Iterable[str]] | None = None,
        reason: str = "forgotten",
        actor: str = "agent",
    ) -> list[Fact]:
        """`forget` for several facts in one transaction: all of them or none.

        `within`, when given, runs first in that transaction and names more facts to forget:
        the knowledge-graph tools (graph/adapters/knowledge_graph/) lock an entity and find its
        facts there, so a fact written concurrently cannot slip between the finding and the
        forgetting. Facts that are unknown or already forgotten are passed over. Returns the facts
        moved.
        """
        check_scope(scope)
        reason = check_reason(reason)
        now = self.clock()
        allowed = (FactStatus.ACTIVE, FactStatus.QUARANTINED, FactStatus.SUPERSEDED)
        given = [check_id("ids", fact_id) for fact_id in fact_ids]

        def work(tx: ManagedTransaction) -> list[tuple[Fact, Fact]]:
            found = list(within(tx)) if within is not None else []
            moved: list[tuple[Fact, Fact]] = []
            for fact_id in dict.fromkeys([*given, *found]):
                before = store.locked_fact(tx, scope, fact_id)
                if before is None or before.status not in allowed:
                    continue
                after = store.set_status(
                    tx,
                    scope=scope,
                    fact_id=fact_id,
                    allowed=allowed,
                    status=FactStatus.FORGOTTEN,
                    now=now,
                )
                assert after is not None
                store.record_audit(
                    tx,
                    scope=scope,
                    fact_id=fact_id,
                    kind="forget",
                    actor=actor,
                    reason=reason,
                    now=now,
                )
                moved.append((before, after))
            return moved

        moved = self.db.write_tx(work, "forget_many")
        for before, after in moved:
            self._published_move(scope, Action.FORGET, after.id, after, before, reason, actor, now)
        return [after for _, after in moved]

    def validate(
        self, scope: str, fact_id: str, *, reason: str = "validated", actor: str = "reviewer"
    ) -> Decision:
        """Promote a quarantined fact; it then supersedes what it contradicts, like a new write."""
        check_scope(scope)
        check_id("id", fact_id)
        reason = check_reason(reason)
        now = self.clock()

        def work(tx: ManagedTransaction) -> Decision:
            # The slot before the fact, the order remember takes them in: two writers never
            # wait on each other's second lock. A fact's subject and predicate never change,
            # so reading them unlocked is safe.
            seen = store.fact_in_tx(tx, scope, fact_id)
            if seen is not None:
                self._lock_slot_of(tx, scope, seen)
            fact = self._require(tx, scope, fact_id, FactStatus.QUARANTINED, "validated")
            slot = [
                old
                for old in self._same_slot_of(tx, scope, fact)
                if old.id != fact.id and object_key(old.object) != object_key(fact.object)
            ]
            promoted = store.set_status(
                tx,
                scope=scope,
                fact_id=fact.id,
                allowed=(FactStatus.QUARANTINED,),
                status=FactStatus.ACTIVE,
                now=now,
            )
            assert promoted is not None
            store.record_audit(
                tx,
                scope=scope,
                fact_id=fact.id,
                kind="validate",
                actor=actor,
                reason=reason,
                now=now,
            )
            if slot and fact.object and is_single_valued(fact.predicate, self.settings.pipeline):
                why = f"validated fact replaces {slot[0].object!r} with {fact.object!r}"
                for old in slot:
                    self._chain(tx, scope, old.id, fact, why, actor, now)
                return Decision(DecisionKind.SUPERSEDE, promoted, slot[0], why)
            return Decision(DecisionKind.INSERT, promoted, None, reason)

        return self._published(scope, Action.VALIDATE, self._write(work, "validate"), actor)

    def reject(
        self, scope: str, fact_id: str, *, reason: str = "rejected", actor: str = "reviewer"
    ) -> Fact:
        """Refuse a quarantined fact: it is kept as forgotten so the decision stays auditable."""
        return self._transition(
            scope,
            fact_id,
            allowed=(FactStatus.QUARANTINED,),
            status=FactStatus.FORGOTTEN,
            kind="reject",
            reason=reason,
            actor=actor,
        )

    def purge(
        self, scope: str, fact_id: str, *, reason: str = "purged", actor: str = "admin"
    ) -> bool:
        """Hard delete. The audit keeps one event with the id and the reason, nothing else."""
        check_scope(scope)
        check_id("id", fact_id)
        reason = check_reason(reason)
        now = self.clock()

        def work(tx: ManagedTransaction) -> tuple[bool, Fact | None]:
            purged, before = store.purge(tx, scope, fact_id)
            if not purged:
                return False, None
            store.record_audit(
                tx,
                scope=scope,
                fact_id=fact_id,
                kind="purge",
                actor=actor,
                reason=reason,
                now=now,
            )
            return True, before

        purged, before = self.db.write_tx(work, "purge")
        if purged:
            self._published_move(scope, Action.PURGE, fact_id, None, before, reason, actor, now)
        return purged

    def _lock_slot_of(self, tx: ManagedTransaction, scope: str, fact: Fact) -> None:
        subject = self.resolver.resolve(fact.subject) if fact.subject else None
        key = predicate_key(fact.predicate)
        if subject is not None and key is not None:
            store.lock_slot(tx, scope, subject.canonical, key)

    def _same_slot_of(self, tx: ManagedTransaction, scope: str, fact: Fact) -> list[Fact]:
        subject = self.resolver.resolve(fact.subject) if fact.subject else None
        if subject is None or not fact.predicate:
            return []
        return store.same_slot(tx, scope, subject.canonical, fact.predicate)

    def _require(
        self, tx: ManagedTransaction, scope: str, fact_id: str, status: FactStatus, verb: str
    ) -> Fact:
        fact = store.locked_fact(tx, scope, fact_id)
        if fact is None:
            raise NotFound(f"no fact {fact_id!r} in scope {scope!r}")
        if fact.status is not status:
            raise Conflict(
                f"fact {fact_id!r} is {fact.status.value}; only a {status.value} fact can be {verb}"
            )
        return fact

    def _transition(
        self,
        scope: str,
        fact_id: str,
        *,
        allowed: tuple[FactStatus, ...],
        status: FactStatus,
        kind: str,
        reason: str,
        actor: str,
    ) -> Fact:
        check_scope(scope)
        check_id("id", fact_id)
        reason = check_reason(reason)
        now = self.clock()

        def work(tx: ManagedTransaction) -> tuple[Fact, Fact]:
            fact = store.locked_fact(tx, scope, fact_id)
            if fact is None:
                raise NotFound(f"no fact {fact_id!r} in scope {scope!r}")
            if fact.status not in allowed:
                raise Conflict(f"fact {fact_id!r} is {fact.status.value}; cannot {kind} it")
            moved = store.set_status(
                tx, scope=scope, fact_id=fact_id, allowed=allowed, status=status, now=now
            )
            assert moved is not None
            store.record_audit(
                tx, scope=scope, fact_id=fact_id, kind=kind, actor=actor, reason=reason, now=now
            )
            return fact, moved

        before, moved = self.db.write_tx(work, kind)
        self._published_move(scope, Action(kind), fact_id, moved, before, reason, actor, now)
        return moved

    def _published_move(
        self,
        scope: str,
        action: Action,
        fact_id: str,
        fact: Fact | None,
        before: Fact | None,
        reason: str,
        actor: str,
        now: datetime,
    ) -> None:
        """Tell live subscribers a fact moved (or was purged) without a pipeline decision."""
        self.events.publish(
            FactChange(
                scope=scope,
                action=action,
                fact_id=fact_id,
                fact=fact,
                decision=None,
                matched_id=None,
                reason=reason,
                actor=actor,
                at=now,
                queue=_left_queue(before),
            )
        )


def _left_queue(before: Fact | None) -> QueueMove | None:
    """LEFT when the fact was waiting for review before the change."""
    if before is not None and before.status is FactStatus.QUARANTINED:
        return QueueMove.LEFT
    return None
