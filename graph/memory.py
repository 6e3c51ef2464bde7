"""The memory service: the Python API of factgraph, and what the GraphQL resolvers call.

`Memory` owns a Neo4j connection and an embedder and exposes every operation as a method that
names its scope first. It holds the order of operations; the storage details are in
`graph.storage.store` and the Cypher in `cypher/`.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, TypeVar

from neo4j import ManagedTransaction

from graph import browse, contexts
from graph.clock import Clock, system_clock
from graph.config import Settings
from graph.errors import Conflict, NotFound, ValidationError
from graph.observability import tracing
from graph.platform.embedding import Embedder
from graph.recall import DeepRecall, IterativeResult
from graph.search import SearchOptions, SearchResult, access
from graph.search import search as hybrid_search
from graph.storage import store
from graph.storage.cursors import Page, decode_cursor, encode_cursor
from graph.storage.db import Database
from graph.storage.schema import apply_schema, other_models
from graph.storage.store import EntityRef, fact_properties, get_fact, new_id
from graph.write import batch, validation
from graph.write.entities import DefaultEntityResolver, EntityResolver
from graph.write.events import Action, EventBus, FactChange, QueueMove
from graph.write.facts import Decision, DecisionKind, Fact, FactInput, FactStatus
from graph.write.indexing import content_hash, index_text, lexical_text
from graph.write.pipeline import (
    Verdict,
    decide,
    is_single_valued,
    object_key,
    predicate_key,
    quarantine_reason,
)
from graph.write.validation import check_scope, fact_from_mapping, validate

T = TypeVar("T")
log = logging.getLogger("factgraph.memory")


STALE_RETRIES = 5


class StaleDecision(Exception):
    """Internal: a fact a write decided on was retired concurrently; decide again."""


class Memory:
    """Long-term memory over one Neo4j database, shared by every scope."""

    def __init__(
        self,
        db: Database,
        embedder: Embedder,
        *,
        settings: Settings | None = None,
        resolver: EntityResolver | None = None,
        clock: Clock = system_clock,
    ) -> None:
        self.db = db
        self.embedder = embedder
        self.settings = _with_model_threshold(settings or db.settings, embedder)
        self.resolver: EntityResolver = resolver or DefaultEntityResolver()
        self.clock = clock
        self._recall: DeepRecall | None = None
        # Committed changes, for live subscribers (graph/write/events.py); per process.
        self.events = EventBus()

    @classmethod
    def connect(cls, settings: Settings | None = None, *, apply: bool = True) -> Memory:
        """Connect to Neo4j, load the model and make sure the schema is in place."""
        settings = settings or Settings.from_env()
        embedder = Embedder(settings)
        db = Database(settings)
        try:
            if apply:
                apply_schema(db, embedder.dimensions, embedder.id)
                warning = other_models(db, embedder.id)
                if warning is not None:
                    log.warning(warning)
        except Exception:
            db.close()
            raise
        return cls(db, embedder, settings=settings)

    def close(self) -> None:
        """Write the queued access bookkeeping, then close the driver."""
        access.flush_pending(self.db)
        self.db.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writes ----------------------------------------------------------------------------
    def remember(
        self,
        scope: str,
        fact: FactInput | Mapping[str, Any],
        *,
        actor: str = "agent",
        pipeline: bool | None = None,
    ) -> Fact:
        """Write a fact through the pipeline and return the fact that now holds it."""
        return self.remember_with_decision(scope, fact, actor=actor, pipeline=pipeline).fact

    def remember_with_decision(
        self,
        scope: str,
        fact: FactInput | Mapping[str, Any],
        *,
        actor: str = "agent",
        pipeline: bool | None = None,
        derived_from: Sequence[str] = (),
    ) -> Decision:
        """Write a fact and say what the pipeline decided.

        `pipeline=False` (or FACTGRAPH_PIPELINE=off) is the straight-through path: validation
        and exact dedup only, for trusted bulk writers that already reconciled their data.
        `derived_from`: the facts a synthesised fact was drawn from (the consolidator's
        extraction), linked `DERIVED_FROM` in the same transaction, or nothing is written.
        """
        check_scope(scope)
        data = fact_from_mapping(fact) if isinstance(fact, Mapping) else validate(fact)
        full = self.settings.pipeline.enabled if pipeline is None else pipeline
        now = self.clock()
        quarantine = quarantine_reason(data, self.settings.pipeline) if full else None
        status = FactStatus.QUARANTINED if quarantine else FactStatus.ACTIVE
        entities, props = self._prepare(scope, data, status, now)
        embedding: list[float] = props["embedding"]

        def work(tx: ManagedTransaction) -> Decision:
            decision = decide_and_write(tx)
            if derived_from:
                store.derive(tx, scope, decision.fact.id, derived_from)
            return decision

        def decide_and_write(tx: ManagedTransaction) -> Decision:
            context = store.write_context(
                tx,
                scope=scope,
                content_hash=props["content_hash"],
                subject_key=props["subject_key"] if full else None,
                predicate_key=props["predicate_key"] if full else None,
                lock_slot=full,
            )
            now, props_now = self._stamped(props, data)
            if context.duplicate is not None:
                existing = context.duplicate
                stored = store.reinforce(tx, scope, existing.id, now)
                reason = "exact duplicate of a live fact in this scope"
                return self._decided(tx, scope, DecisionKind.DEDUP, stored, existing, reason, actor)
            verdict = (
                decide(
                    data,
                    settings=self.settings.pipeline,
                    near=[]
                    if quarantine
                    else store.neighbours(
                        tx,
                        scope=scope,
                        vector=embedding,
                        k=5,
                        statuses=("active",),
                        total=context.live,
                    ),
                    same_slot=context.slot,
                )
                if full
                else Verdict(DecisionKind.INSERT, None, "new fact (pipeline off)")
            )
            if verdict.kind is DecisionKind.DEDUP and verdict.matched is not None:
                stored = store.reinforce(tx, scope, verdict.matched.id, now)
                return self._decided(
                    tx, scope, verdict.kind, stored, verdict.matched, verdict.reason, actor
                )
            if verdict.kind is DecisionKind.MERGE and verdict.matched is not None:
                stored = store.merge_into(
                    tx, scope=scope, target=verdict.matched, fact=data, now=now
                )
                return self._decided(
                    tx, scope, verdict.kind, stored, verdict.matched, verdict.reason, actor
                )
            stored, created = store.insert_fact(
                tx, scope=scope, props=props_now, entities=entities, now=now
            )
            if not created:  # lost a race to a concurrent writer of the same content
                reason = "exact duplicate of a live fact in this scope"
                return self._decided(tx, scope, DecisionKind.DEDUP, stored, stored, reason, actor)
            if verdict.successor is not None:
                self._chain(tx, scope, stored.id, verdict.successor, verdict.reason, actor, now)
                stored = store.fact_in_tx(tx, scope, stored.id) or stored
            for old in verdict.retire:
                self._chain(tx, scope, old.id, stored, verdict.reason, actor, now)
            return self._decided(
                tx, scope, verdict.kind, stored, verdict.matched, verdict.reason, actor
            )

        with tracing.span("remember.transaction", pipeline=full) as traced:
            decision = self._write(work, "remember")
            traced.set("decision", decision.kind.value)
        self._published(scope, Action.REMEMBER, decision, actor)
        return decision

    def remember_many(
        self,
        scope: str,
        facts: Sequence[FactInput | Mapping[str, Any]],
        *,
        actor: str = "agent",
        pipeline: bool | None = None,
    ) -> list[Decision]:
        """Write a batch through the pipeline: one decision per fact, in input order, equal to
        those of `remember_with_decision` called on each fact in turn (graph/write/batch.py).

        Every fact is validated first: one bad fact refuses the batch (ValidationError naming
        `facts[i].field`) and nothing is written. At most FACTGRAPH_BATCH_MAX facts (1,000).
        """
        check_scope(scope)
        inputs = batch.validated(facts, limit=self.settings.batch_max)
        if not inputs:
            return []
        full = self.settings.pipeline.enabled if pipeline is None else pipeline
        writer = batch.Batch(
            scope,
            self._batch_items(scope, inputs, full),
            settings=self.settings.pipeline,
            dimensions=self.embedder.dimensions,
            clock=self.clock,
            full=full,
            actor=actor,
        )
        with tracing.span("remember_many.transaction", pipeline=full, facts=len(inputs)):
            decisions = self._write(writer.work, "remember_many")
        for decision in decisions:  # live subscribers see a batch as its writes, in input order
            self._published(scope, Action.REMEMBER, decision, actor)
        return decisions

    def supersede(
        self,
        scope: str,
        old_id: str,
        fact: FactInput | Mapping[str, Any],
        *,
        reason: str = "superseded by the caller",
        actor: str = "agent",
    ) -> Decision:
        """Replace an active fact with a new one, chaining them, whatever the predicate."""
        check_scope(scope)
        data = fact_from_mapping(fact) if isinstance(fact, Mapping) else validate(fact)
        reason = _reason(reason)
        now = self.clock()
        entities, props = self._prepare(scope, data, FactStatus.ACTIVE, now)

        def work(tx: ManagedTransaction) -> Decision:
            old = store.locked_fact(tx, scope, old_id)
            if old is None:
                raise NotFound(f"no fact {old_id!r} in scope {scope!r}")
            if old.status is not FactStatus.ACTIVE:
                raise Conflict(
                    f"fact {old_id!r} is {old.status.value}; only an active fact can be superseded"
                )
            if old.content_hash == props["content_hash"]:
                raise Conflict("the new fact has the same content as the one it would supersede")
            now, props_now = self._stamped(props, data)
            stored, created = store.insert_fact(
                tx, scope=scope, props=props_now, entities=entities, now=now
            )
            if not created:
                raise Conflict(f"the new content is already held by live fact {stored.id!r}")
            self._chain(tx, scope, old.id, stored, reason, actor, now)
            return self._decided(tx, scope, DecisionKind.SUPERSEDE, stored, old, reason, actor)

        return self._published(scope, Action.SUPERSEDE, self._write(work, "supersede"), actor)

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

    def validate(
        self, scope: str, fact_id: str, *, reason: str = "validated", actor: str = "reviewer"
    ) -> Decision:
        """Promote a quarantined fact; it then supersedes what it contradicts, like a new write."""
        check_scope(scope)
        reason = _reason(reason)
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
        reason = _reason(reason)
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
            self.events.publish(
                FactChange(
                    scope=scope,
                    action=Action.PURGE,
                    fact_id=fact_id,
                    fact=None,
                    decision=None,
                    matched_id=None,
                    reason=reason,
                    actor=actor,
                    at=now,
                    queue=_left_queue(before),
                )
            )
        return purged

    # -- reads -----------------------------------------------------------------------------
    def get(
        self,
        scope: str,
        fact_id: str,
        *,
        as_of: datetime | None = None,
        include_quarantined: bool = False,
    ) -> Fact | None:
        """A fact by id; None when missing, forgotten, quarantined, or not valid at `as_of`.

        Without `as_of`, a superseded fact is still returned (by id, with its status), so a
        caller holding an old id learns it was replaced rather than that it never existed.
        """
        check_scope(scope)
        fact = get_fact(self.db, scope, fact_id)
        if fact is None or fact.status is FactStatus.FORGOTTEN:
            return None
        if fact.status is FactStatus.QUARANTINED and not include_quarantined:
            return None
        if as_of is not None and not _valid_at(fact, as_of):
            return None
        return fact

    def history(self, scope: str, fact_id: str, *, as_of: datetime | None = None) -> list[Fact]:
        """The supersede chain of a fact, oldest to newest, retired rows included.

        `as_of` keeps the rows that had become true by then (valid_from <= as_of): the chain
        as it could have been told at that moment. Unknown id -> empty list.
        """
        check_scope(scope)
        chain = store.history(self.db, scope, fact_id)
        if as_of is not None:
            chain = [fact for fact in chain if fact.valid_from <= as_of]
        return chain

    def review_queue(self, scope: str, *, first: int = 20, after: str | None = None) -> Page[Fact]:
        """Quarantined facts, oldest first, with an opaque cursor for the next page."""
        page = self.review_entries(scope, first=first, after=after)
        return Page(items=[held.fact for held in page.items], next_cursor=page.next_cursor)

    def review_entries(
        self, scope: str, *, first: int = 20, after: str | None = None
    ) -> Page[store.HeldFact]:
        """The review queue with why and when each fact was held (its quarantine event)."""
        check_scope(scope)
        if not 1 <= first <= 100:
            raise ValidationError("first", "must be between 1 and 100")
        key = decode_cursor(after, "after") if after else None
        rows = store.review_queue(self.db, scope, limit=first + 1, after=key)
        items = rows[:first]
        last = items[-1].fact if items else None
        next_cursor = (
            encode_cursor(last.recorded_at, last.id)
            if last is not None and len(rows) > first
            else None
        )
        return Page(items=items, next_cursor=next_cursor)

    def neighbours(
        self,
        scope: str,
        *,
        fact_id: str | None = None,
        text: str | None = None,
        k: int = 10,
    ) -> list[tuple[Fact, float]]:
        """Raw nearest neighbours by cosine (quarantined included), for reconciliation tools.

        Give a fact id (its own vector, itself excluded) or a text (embedded like a query).
        """
        check_scope(scope)
        if not 1 <= k <= 100:
            raise ValidationError("k", "must be between 1 and 100")
        if (fact_id is None) == (text is None):
            raise ValidationError("factId", "give exactly one of factId and text")
        if text is not None:
            if not text.strip():
                raise ValidationError("text", "must not be empty")
            vector = list(self.embedder.embed_query(text[: validation.MAX_TEXT_CHARS]))
            exclude: tuple[str, ...] = ()
        else:
            assert fact_id is not None
            found = store.fact_vector(self.db, scope, fact_id)
            if found is None:
                return []
            vector, exclude = found, (fact_id,)

        def work(tx: ManagedTransaction) -> list[tuple[Fact, float]]:
            near = store.neighbours(
                tx, scope=scope, vector=vector, k=k, statuses=_LIVE, exclude=exclude
            )
            return [(n.fact, n.cosine) for n in near]

        return self.db.read_tx(work, "neighbours")

    def derived_from(self, scope: str, fact_id: str) -> list[str]:
        """The facts a synthesised fact was drawn from (graph/consolidation/llm_enrichers.py)."""
        check_scope(scope)
        return store.derived_from(self.db, scope, fact_id)

    def audit_trail(self, scope: str, fact_id: str) -> list[store.AuditEvent]:
        """Every state change of a fact: decision, supersede, forget, validate, reject, purge."""
        check_scope(scope)
        return store.audit_trail(self.db, scope, fact_id)

    # -- helpers ---------------------------------------------------------------------------
    @property
    def _mode(self) -> str:
        return self.settings.contextual_indexing

    def _prepare(
        self, scope: str, data: FactInput, status: FactStatus, now: datetime
    ) -> tuple[list[EntityRef], dict[str, Any]]:
        """Entities and the node's property map, embedding included (outside any transaction,
        so a retried write never pays for the model twice)."""
        entities, text = self._entities(data), self._index_text(data, now)
        with tracing.span("remember.embed", supplied=data.embedding is not None):
            embedding = (
                list(data.embedding)
                if data.embedding is not None
                else self.embedder.embed_one(text)
            )
        return entities, self._properties(scope, data, status, now, entities, text, embedding)

    def _batch_items(self, scope: str, inputs: list[FactInput], full: bool) -> list[batch.Item]:
        """`_prepare` for a batch: every text embedded in one pass (`Embedder.embed`)."""
        now = self.clock()
        texts = [self._index_text(data, now) for data in inputs]
        wanted = [i for i, data in enumerate(inputs) if data.embedding is None]
        with tracing.span("remember_many.embed", texts=len(wanted)):
            made = self.embedder.embed([texts[i] for i in wanted])
        vectors = dict(zip(wanted, made, strict=True))
        items: list[batch.Item] = []
        for i, data in enumerate(inputs):
            quarantine = quarantine_reason(data, self.settings.pipeline) if full else None
            status = FactStatus.QUARANTINED if quarantine else FactStatus.ACTIVE
            entities = self._entities(data)
            embedding = list(data.embedding) if data.embedding is not None else vectors[i]
            props = self._properties(scope, data, status, now, entities, texts[i], embedding)
            items.append(batch.Item(i, data, quarantine, entities, props))
        return items

    def _index_text(self, data: FactInput, now: datetime) -> str:
        return index_text(data, data.valid_from or now, self._mode)

    def _properties(
        self,
        scope: str,
        data: FactInput,
        status: FactStatus,
        now: datetime,
        entities: list[EntityRef],
        text: str,
        embedding: list[float],
    ) -> dict[str, Any]:
        """The node's property map, the embedding already made (see `_prepare`)."""
        return fact_properties(
            data,
            fact_id=data.id or new_id(),
            scope=scope,
            content_hash=content_hash(data.text),
            index_text=text,
            lexical_text=lexical_text(data, [ref.entity.name for ref in entities]),
            subject_key=self._subject_key(data, entities),
            embedding=embedding,
            embedder=self.embedder.id if data.embedding is None else "supplied",
            status=status,
            now=now,
        )

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

        Raises StaleDecision when `old_id` is no longer active: another writer retired it after
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
            raise StaleDecision(old_id)
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

    def _stamped(self, props: dict[str, Any], data: FactInput) -> tuple[datetime, dict[str, Any]]:
        """The write's time, taken inside its transaction, and the fact's times from it.

        The fact's properties are prepared (and embedded) before the transaction, which may
        then wait for a lock behind another writer, on this replica or another: a time taken
        before the wait would date the new fact before the one it replaces. (Replicas' clocks
        still differ by their skew; keep them synchronised.)
        """
        now = self.clock()
        stamped = {
            **props,
            "valid_from": data.valid_from or now,
            "recorded_at": data.recorded_at or now,
            "updated_at": now,
        }
        return now, stamped

    def _lock_slot_of(self, tx: ManagedTransaction, scope: str, fact: Fact) -> None:
        subject = self.resolver.resolve(fact.subject) if fact.subject else None
        key = predicate_key(fact.predicate)
        if subject is not None and key is not None:
            store.lock_slot(tx, scope, subject.canonical, key)

    def _write(self, work: Callable[[ManagedTransaction], T], label: str) -> T:
        """`db.write_tx`, run again when a fact it decided on was retired under it.

        Slot locks serialise writers of one slot, but an explicit supersede or a forget locks
        only its fact: a write that read the slot before such a writer committed finds, when
        it retires a fact, that the fact is no longer active (`_chain` raises StaleDecision).
        Deciding again on the committed state keeps the chain linear.
        """
        for _ in range(STALE_RETRIES):
            try:
                return self.db.write_tx(work, label)
            except (StaleDecision, batch.StaleBatch):
                continue
        return self.db.write_tx(work, label)

    def _same_slot_of(self, tx: ManagedTransaction, scope: str, fact: Fact) -> list[Fact]:
        subject = self.resolver.resolve(fact.subject) if fact.subject else None
        if subject is None or not fact.predicate:
            return []
        return store.same_slot(tx, scope, subject.canonical, fact.predicate)

    def _subject_key(self, fact: FactInput, entities: list[EntityRef]) -> str | None:
        return next((ref.entity.canonical for ref in entities if ref.role == "subject"), None)

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
        reason = _reason(reason)
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
        self.events.publish(
            FactChange(
                scope=scope,
                action=Action(kind),
                fact_id=fact_id,
                fact=moved,
                decision=None,
                matched_id=None,
                reason=reason,
                actor=actor,
                at=now,
                queue=_left_queue(before),
            )
        )
        return moved

    def _published(self, scope: str, action: Action, decision: Decision, actor: str) -> Decision:
        """Tell live subscribers about a committed decision, and hand the decision back."""
        self.events.publish(FactChange.of_decision(scope, action, decision, actor, self.clock()))
        return decision

    def _entities(self, fact: FactInput) -> list[EntityRef]:
        refs: list[EntityRef] = []
        for role, name in (("subject", fact.subject), ("object", fact.object)):
            if name:
                resolved = self.resolver.resolve(name)
                if resolved is not None:
                    refs.append(EntityRef(role, resolved))
        return refs

    # -- hybrid search (issue 4; the pipeline lives in graph/search/) ----------------------
    def search(
        self,
        scope: str,
        query: str,
        *,
        options: SearchOptions | None = None,
        **kwargs: Any,
    ) -> SearchResult:
        """Hybrid search: keyword options as in `SearchOptions` (or a built `options=`)."""
        built = options.validated() if options is not None else SearchOptions.build(**kwargs)
        return hybrid_search(
            self.db,
            self.embedder,
            scope,
            query,
            built,
            clock=self.clock,
            overlap=self.settings.search_overlap,
        )

    # -- browsing (issue 5; logic in graph/browse/ and graph/contexts.py) ------------------
    def lexical_search(
        self,
        scope: str,
        query: str,
        *,
        limit: int = 10,
        exclude_ids: Iterable[str] | None = None,
        include_entities: bool = True,
    ) -> list[browse.LexicalHit]:
        """Case-insensitive substring search, newest first; no embedding involved."""
        return browse.lexical_search(
            self.db,
            scope,
            query,
            limit=limit,
            exclude_ids=exclude_ids,
            include_entities=include_entities,
            clock=self.clock,
        )

    def timeline(
        self,
        scope: str,
        *,
        first: int = browse.DEFAULT_PAGE,
        after: str | None = None,
        partition: str | None = None,
        session_id: str | None = None,
        since: datetime | str | None = None,
        until: datetime | str | None = None,
        exclude_ids: Iterable[str] | None = None,
    ) -> browse.TimelinePage:
        """Active facts newest first (valid, then recorded time), paged by opaque cursors."""
        return browse.timeline(
            self.db,
            scope,
            first=first,
            after=after,
            partition=partition,
            session_id=session_id,
            since=since,
            until=until,
            exclude_ids=exclude_ids,
            clock=self.clock,
        )

    def node(
        self, scope: str, node_id: str, *, neighbours: bool = True, limit: int = 25
    ) -> browse.BrowseNode | None:
        """A fact or entity (`entity:<canonical>`) with neighbour references; None if unknown."""
        return browse.get_node(self.db, scope, node_id, neighbours=neighbours, limit=limit)

    def context(self, scope: str, context_id: str) -> contexts.ConversationContext:
        """What a conversation context holds (recalled and pinned ids); empty when unknown."""
        return contexts.get_context(self.db, scope, context_id)

    def pin(
        self, scope: str, context_id: str, fact_ids: Iterable[str]
    ) -> contexts.ConversationContext:
        return contexts.pin(self.db, scope, context_id, fact_ids, clock=self.clock)

    def unpin(
        self, scope: str, context_id: str, fact_ids: Iterable[str]
    ) -> contexts.ConversationContext:
        return contexts.unpin(self.db, scope, context_id, fact_ids, clock=self.clock)

    # -- deep recall (issue 6; the engine lives in graph/recall/) ---------------------------
    @property
    def recall(self) -> DeepRecall:
        """Deep recall with the providers the settings configure (none: plain search)."""
        if self._recall is None:
            self._recall = DeepRecall.from_settings(self, self.settings.llm)
        return self._recall

    @recall.setter
    def recall(self, engine: DeepRecall) -> None:
        self._recall = engine

    def deep_search(
        self,
        scope: str,
        query: str,
        *,
        multi_query: int = 1,
        hyde: bool = False,
        options: SearchOptions | None = None,
        **kwargs: Any,
    ) -> SearchResult:
        """Search with query variants and / or a hypothetical answer fused in (RRF)."""
        check_scope(scope)
        built = options.validated() if options is not None else SearchOptions.build(**kwargs)
        return self.recall.search(scope, query, built, multi_query=multi_query, hyde=hyde)

    def search_iterative(
        self,
        scope: str,
        query: str,
        *,
        max_iterations: int = 3,
        force_hard: bool = False,
        options: SearchOptions | None = None,
        **kwargs: Any,
    ) -> IterativeResult:
        """Gated grade-then-reformulate loop; `abstained` when still insufficient at the end."""
        check_scope(scope)
        built = options.validated() if options is not None else SearchOptions.build(**kwargs)
        return self.recall.search_iterative(
            scope, query, built, max_iterations=max_iterations, force_hard=force_hard
        )


_LIVE = ("active", "quarantined")


def _reason(reason: str) -> str:
    if not isinstance(reason, str) or not reason.strip():
        raise ValidationError("reason", "must not be empty")
    if len(reason) > validation.MAX_FIELD_CHARS:
        raise ValidationError("reason", f"longer than {validation.MAX_FIELD_CHARS} characters")
    return reason.strip()


def _valid_at(fact: Fact, at: datetime) -> bool:
    return fact.valid_from <= at and (fact.valid_to is None or at < fact.valid_to)


def _with_model_threshold(settings: Settings, embedder: Embedder) -> Settings:
    """Settings whose near-duplicate threshold is the model's own, unless one was configured:
    cosines of different models are not on one scale (bench/near_duplicates.py)."""
    pipeline = settings.pipeline
    if pipeline.near_duplicate_threshold is not None:
        return settings
    return settings.with_overrides(
        pipeline=dataclasses.replace(pipeline, near_duplicate_threshold=embedder.near_duplicate)
    )


def _left_queue(before: Fact | None) -> QueueMove | None:
    """LEFT when the fact was waiting for review before the change."""
    if before is not None and before.status is FactStatus.QUARANTINED:
        return QueueMove.LEFT
    return None
