"""Writing facts: one through the pipeline, a batch, or an explicit supersede.

The order of operations is here: a fact is checked, its entities resolved and its text embedded
outside any transaction; the transaction then decides (graph/write/pipeline.py) and writes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from neo4j import ManagedTransaction

from graph.errors import Conflict, NotFound
from graph.observability import tracing
from graph.reading import Reading, read, terms
from graph.reading.standing import revokes
from graph.storage import store
from graph.storage.store import EntityRef, fact_properties, new_id
from graph.write import batch, chunks
from graph.write.events import Action
from graph.write.facts import Decision, DecisionKind, Fact, FactInput, FactStatus
from graph.write.indexing import content_hash, index_text, lexical_text
from graph.write.pipeline import Verdict, decide, quarantine_reason
from graph.write.recording import Recording
from graph.write.validation import (
    check_id,
    check_reason,
    check_scope,
    fact_from_mapping,
    validate,
)


class Remembering(Recording):
    """`Memory`'s writes: remember, remember_with_decision, remember_many and supersede."""

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
        entities, props, made, linked = self._prepare(scope, data, status, now)
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
                    else [
                        # An expired fact is hidden from every read (the sweep keeps it, as
                        # mem0 does): a new write is never folded into it.
                        n
                        for n in store.neighbours(
                            tx,
                            scope=scope,
                            vector=embedding,
                            k=5,
                            statuses=("active",),
                            total=context.live,
                        )
                        if n.fact.expires_at is None or n.fact.expires_at > now
                    ],
                    same_slot=context.slot,
                    standing=store.standing_near(tx, scope=scope, vector=embedding, now=now)
                    if revokes(data.text, data.subject) and not quarantine
                    else (),
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
                tx,
                scope=scope,
                props=props_now,
                entities=entities,
                now=now,
                chunks=made,
                terms=linked,
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
            traced.set_attribute("factgraph.decision", decision.kind.value)
        self._published(scope, Action.REMEMBER, decision, actor)
        return decision

    def remember_many(
        self,
        scope: str,
        facts: Sequence[FactInput | Mapping[str, Any]],
        *,
        actor: str = "agent",
        pipeline: bool | None = None,
        within: Callable[[ManagedTransaction], object] | None = None,
    ) -> list[Decision]:
        """Write a batch through the pipeline: one decision per fact, in input order, equal to
        those of `remember_with_decision` called on each fact in turn (graph/write/batch.py).

        Every fact is validated first: one bad fact refuses the batch (ValidationError naming
        `facts[i].field`) and nothing is written. At most FACTGRAPH_BATCH_MAX facts (1,000).
        `within`: a step of the caller's run first in the batch's transaction (and again if the
        transaction is retried), so the facts commit with it or not at all: the knowledge-graph
        tools (graph/adapters/knowledge_graph/) check and mark the entities the facts belong to
        there.
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

        def work(tx: ManagedTransaction) -> list[Decision]:
            if within is not None:
                within(tx)
            return writer.work(tx)

        with tracing.span("remember_many.transaction", pipeline=full, facts=len(inputs)):
            decisions = self._write(work, "remember_many")
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
        check_id("id", old_id)
        data = fact_from_mapping(fact) if isinstance(fact, Mapping) else validate(fact)
        reason = check_reason(reason)
        now = self.clock()
        entities, props, made, linked = self._prepare(scope, data, FactStatus.ACTIVE, now)

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
                tx,
                scope=scope,
                props=props_now,
                entities=entities,
                now=now,
                chunks=made,
                terms=linked,
            )
            if not created:
                raise Conflict(f"the new content is already held by live fact {stored.id!r}")
            self._chain(tx, scope, old.id, stored, reason, actor, now)
            return self._decided(tx, scope, DecisionKind.SUPERSEDE, stored, old, reason, actor)

        return self._published(scope, Action.SUPERSEDE, self._write(work, "supersede"), actor)

    @property
    def _mode(self) -> str:
        return self.settings.contextual_indexing

    def _prepare(
        self, scope: str, data: FactInput, status: FactStatus, now: datetime
    ) -> tuple[list[EntityRef], dict[str, Any], tuple[chunks.Chunk, ...], list[dict[str, Any]]]:
        """Entities, the node's property map, embedding included, the chunks of a long text
        and the terms its text mentions (outside any transaction, so a retried write never
        pays for the model twice). A vector the caller supplied stands for the whole text: no
        chunks."""
        entities, text = self._entities(data), self._index_text(data, now)
        reading, linked = self._read(data)
        with tracing.span("remember.embed", supplied=data.embedding is not None):
            made = (
                chunks.Embedded(list(data.embedding))
                if data.embedding is not None
                else chunks.embed(self.embedder, [(text, data.text)])[0]
            )
        props = self._properties(scope, data, status, now, entities, text, made.vector, reading)
        return entities, props, made.chunks, linked

    def _read(self, data: FactInput) -> tuple[Reading, list[dict[str, Any]]]:
        """The text as graph/reading/ reads it, and the terms to link the fact to."""
        reading = read(data.text, data.subject)
        return reading, [term.row() for term in terms(reading, self.resolver)]

    def _batch_items(self, scope: str, inputs: list[FactInput], full: bool) -> list[batch.Item]:
        """`_prepare` for a batch: every text embedded in one pass (`Embedder.embed`).

        Before the transaction, not behind it: embedding in a thread while the transaction
        looked up each part's near duplicates was measured no faster (bench/batch.py, the
        model keeps both cores busy) and held the batch's slot locks for the model's time.
        """
        now = self.clock()
        texts = [self._index_text(data, now) for data in inputs]
        wanted = [i for i, data in enumerate(inputs) if data.embedding is None]
        with tracing.span("remember_many.embed", texts=len(wanted)):
            made = chunks.embed(self.embedder, [(texts[i], inputs[i].text) for i in wanted])
        embedded = dict(zip(wanted, made, strict=True))
        items: list[batch.Item] = []
        for i, data in enumerate(inputs):
            quarantine = quarantine_reason(data, self.settings.pipeline) if full else None
            status = FactStatus.QUARANTINED if quarantine else FactStatus.ACTIVE
            entities = self._entities(data)
            own = embedded.get(i) or chunks.Embedded(list(data.embedding or ()))
            reading, linked = self._read(data)
            props = self._properties(
                scope, data, status, now, entities, texts[i], own.vector, reading
            )
            items.append(batch.Item(i, data, quarantine, entities, props, own.chunks, linked))
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
        reading: Reading | None = None,
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
            reading=reading,
        )

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

    def _subject_key(self, fact: FactInput, entities: list[EntityRef]) -> str | None:
        return next((ref.entity.canonical for ref in entities if ref.role == "subject"), None)

    def _entities(self, fact: FactInput) -> list[EntityRef]:
        refs: list[EntityRef] = []
        for role, name in (("subject", fact.subject), ("object", fact.object)):
            if name:
                resolved = self.resolver.resolve(name)
                if resolved is not None:
                    refs.append(EntityRef(role, resolved))
        return refs
