"""remember_many: a batch of facts through the write pipeline, decided as one-by-one writes.

A batch answers exactly what `Memory.remember_with_decision` would answer for each fact in
turn, duplicates, supersedes and near duplicates inside the batch included. It is faster
because the parts that do not depend on order are done once for the whole batch:

1. Every item is validated before anything else; one bad item refuses the batch (its index
   and field in the error), and nothing is written.
2. Every text is embedded in one pass (`Embedder.embed`: shortest first, measured batch size).
3. One write transaction: one statement locks every slot the batch writes and reads what the
   pipeline looks at (live duplicates of each content hash, each slot's active facts, the
   scope's live count); one statement finds the stored near-duplicate candidates of every
   vector. The decisions are then taken in input order in Python, by `graph.write.pipeline.decide`,
   on what the store held plus what the items before wrote: a fact inserted earlier in the
   batch is a duplicate, slot fact or neighbour of the later ones, and a fact it retired is
   none of these any more.
4. The writes follow in the same transaction: all new facts in one statement (and the chunks
   of their long texts in one more, graph/write/chunks.py), then, in input order, the few
   writes that change a fact already there (reinforce, merge, supersede), then the passages
   and the audit trail, one statement each.

The transaction holds the batch's slot locks from its first statement, so a concurrent
writer of one of its slots waits, as it would behind a single remember. If a concurrent
writer got in anyway (an explicit supersede or forget of a fact the batch retires, or the
same content inserted meanwhile) the whole batch is decided again on the committed state.

One difference from one-by-one writes, documented in docs/batch-writes.md: whether stored
candidates are scanned exactly or asked of the vector index is chosen once per batch, from the
scope's live count before the batch (graph/storage/store.py EXACT_SCAN_LIMIT).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import numpy as np
from neo4j import ManagedTransaction

from graph.clock import Clock
from graph.config import PipelineSettings
from graph.errors import ValidationError
from graph.reading.standing import revokes
from graph.storage import store, vector_shards
from graph.storage.db import run
from graph.storage.store import EntityRef, new_id
from graph.storage.wire import Rows, Vector, split_times
from graph.write import chunks, passages
from graph.write.chunks import Chunk
from graph.write.facts import Decision, DecisionKind, Fact, FactInput, FactStatus
from graph.write.pipeline import Neighbour, Verdict, decide
from graph.write.validation import fact_from_mapping, validate

NEAR_K = 5  # neighbours the pipeline looks at, as in Memory.remember_with_decision
DUPLICATE = "exact duplicate of a live fact in this scope"


@dataclasses.dataclass
class Item:
    """One validated fact of the batch, ready to decide on."""

    index: int
    data: FactInput
    quarantine: str | None
    entities: list[EntityRef]
    props: dict[str, Any]
    chunks: tuple[Chunk, ...] = ()  # a long text's windows after the first
    terms: list[dict[str, Any]] = dataclasses.field(default_factory=list)  # graph/reading/

    @property
    def slot(self) -> tuple[str, str] | None:
        subject, predicate = self.props["subject_key"], self.props["predicate_key"]
        return (subject, predicate) if subject is not None and predicate is not None else None


def checked_size(size: int, limit: int, field: str = "facts") -> None:
    if size > limit:
        raise ValidationError(
            field,
            f"{size} facts is over the batch limit of {limit} (FACTGRAPH_BATCH_MAX); "
            "split the batch",
        )


def validated(facts: Any, *, limit: int) -> list[FactInput]:
    """Every item validated, or ValidationError naming the first bad one as `facts[i].field`."""
    if isinstance(facts, str | bytes | Mapping) or not isinstance(facts, Sequence):
        raise ValidationError("facts", "must be a list of facts")
    checked_size(len(facts), limit)
    checked: list[FactInput] = []
    for i, fact in enumerate(facts):
        try:
            if isinstance(fact, Mapping):
                checked.append(fact_from_mapping(fact))
            elif isinstance(fact, FactInput):
                checked.append(validate(fact))
            else:
                raise ValidationError("", "must be a fact (an object with at least a text)")
        except ValidationError as exc:
            field = f"facts[{i}].{exc.field}" if exc.field else f"facts[{i}]"
            raise ValidationError(field, exc.reason) from None
    return checked


@dataclasses.dataclass
class _Plan:
    """What one item does, decided in order before any write."""

    item: Item
    kind: DecisionKind
    reason: str
    now: datetime
    props: dict[str, Any] | None = None  # the new fact's properties (insert kinds)
    target: str | None = None  # the existing fact acted on (dedup / merge)
    matched: str | None = None
    retire: tuple[str, ...] = ()
    successor: str | None = None


class StaleBatch(Exception):
    """Internal: a concurrent writer changed what the batch decided on; decide again."""


class Batch:
    """The write transaction of one batch (`work`), prepared items in, decisions out."""

    def __init__(
        self,
        scope: str,
        items: list[Item],
        *,
        settings: PipelineSettings,
        dimensions: int,
        clock: Clock,
        full: bool,
        actor: str,
    ) -> None:
        self.scope = scope
        self.items = items
        self.settings = settings
        self.dimensions = dimensions
        self.clock = clock
        self.full = full
        self.actor = actor
        self._cosines: Any = None

    # -- the transaction -------------------------------------------------------------------
    def work(self, tx: ManagedTransaction) -> list[Decision]:
        """Raises StaleBatch when a concurrent writer changed what it decided on."""
        context = self._context(tx)
        plans = self._decide(tx, context)
        return self._apply(tx, plans, context)

    def _context(self, tx: ManagedTransaction) -> _Context:
        slots = sorted({item.slot for item in self.items if item.slot} if self.full else set())
        record = run(
            tx,
            "batch_write_context",
            scope=self.scope,
            lock_keys=sorted(store.slot_lock_key(s, p) for s, p in slots),
            hashes=sorted({item.props["content_hash"] for item in self.items}),
            slots=[{"subject_key": s, "predicate_key": p} for s, p in slots],
            live_cap=store.EXACT_SCAN_LIMIT + 1,
        )[0]
        context = _Context()
        for node in record["duplicates"]:
            fact = Fact.from_node(node)
            context.seen[fact.id] = fact
            context.live_hash[fact.content_hash] = fact.id
        for node in record["slot_facts"]:
            fact = Fact.from_node(node)
            context.seen[fact.id] = fact
            key = (node["subject_key"], node["predicate_key"])
            context.slots.setdefault(key, []).append(fact.id)
        context.live = int(record["live"])
        if self.full:
            self._stored_neighbours(tx, context)
        return context

    def _stored_neighbours(self, tx: ManagedTransaction, context: _Context) -> None:
        """Each item's stored near-duplicate candidates, for all items in one statement.

        Enough are fetched that the NEAR_K best survive even when every slot fact the batch
        could retire was among them (retired facts are dropped as the decisions proceed).
        """
        asked = [item for item in self.items if item.quarantine is None]
        if not asked:
            return
        threshold = self.settings.near_duplicate()
        k = NEAR_K + sum(len(ids) for ids in context.slots.values())
        params: dict[str, Any] = {
            "scope": self.scope,
            "vectors": [Vector(item.props["embedding"]) for item in asked],
            "k": k,
        }
        if context.live <= store.EXACT_SCAN_LIMIT:
            records = run(tx, "batch_neighbours_exact", min_score=(1 + threshold) / 2, **params)
        else:
            records = self._indexed(tx, params, k)
        now = self.clock()
        for record in records:
            item = asked[int(record["i"])]
            near: list[tuple[str, float]] = []
            for hit in record["near"]:
                fact = Fact.from_node(hit["fact"])
                context.seen.setdefault(fact.id, fact)
                cosine = 2.0 * float(hit["score"]) - 1.0
                expired = fact.expires_at is not None and fact.expires_at <= now
                if cosine >= threshold and not expired:  # hidden by expiry: never folded into
                    near.append((fact.id, cosine))
            context.near[item.index] = near

    def _indexed(self, tx: ManagedTransaction, params: dict[str, Any], k: int) -> list[Any]:
        """The vector index path, over-fetching more for the vectors short of k in the scope
        (as `store.neighbours` does for one)."""
        vectors: list[Vector] = list(params["vectors"])
        index = vector_shards.index(self.scope)
        found: dict[int, Any] = {}
        pending = list(range(len(vectors)))
        fetch = max(4 * k, 100)
        while pending:
            records = run(
                tx,
                "batch_neighbours_index",
                scope=self.scope,
                vectors=[vectors[i] for i in pending],
                k=k,
                fetch=fetch,
                index=index,
            )
            short: list[int] = []
            for record in records:
                position = pending[int(record["i"])]
                found[position] = {"i": position, "near": record["near"]}
                if len(record["near"]) < k:
                    short.append(position)
            if fetch >= store.MAX_INDEX_FETCH:
                break
            pending, fetch = short, min(fetch * 4, store.MAX_INDEX_FETCH)
        return [found[i] for i in sorted(found)]

    def _similarity(self) -> Any:
        """The cosines between the batch's own vectors, all at once (they are normalised:
        cosine is the dot product). A vector of another length than the model's is not
        compared (it could not be near anything in the vector index either)."""
        if self._cosines is None:
            dims = self.dimensions
            vectors = np.zeros((len(self.items), dims), np.float32)
            for item in self.items:
                if len(item.props["embedding"]) == dims:
                    vectors[item.index] = item.props["embedding"]
            self._cosines = vectors @ vectors.T
        return self._cosines

    # -- deciding, in input order ----------------------------------------------------------
    def _decide(self, tx: ManagedTransaction, context: _Context) -> list[_Plan]:
        """Each item's decision, on the store as the items before it left it."""
        plans: list[_Plan] = []
        for item in self.items:
            now = self.clock()
            props = {
                **item.props,
                "valid_from": item.data.valid_from or now,
                "recorded_at": item.data.recorded_at or now,
                "updated_at": now,
            }
            duplicate = context.live_hash.get(props["content_hash"])
            if duplicate is not None:
                plans.append(
                    _Plan(
                        item,
                        DecisionKind.DEDUP,
                        DUPLICATE,
                        now,
                        target=duplicate,
                        matched=duplicate,
                    )
                )
                continue
            verdict = (
                decide(
                    item.data,
                    settings=self.settings,
                    near=[] if item.quarantine else self._near(item, context),
                    same_slot=self._slot(item, context),
                    standing=self._standing(tx, item, context),
                )
                if self.full
                else Verdict(DecisionKind.INSERT, None, "new fact (pipeline off)")
            )
            matched = verdict.matched.id if verdict.matched is not None else None
            if verdict.kind in (DecisionKind.DEDUP, DecisionKind.MERGE) and matched is not None:
                plans.append(
                    _Plan(item, verdict.kind, verdict.reason, now, target=matched, matched=matched)
                )
                continue
            plan = _Plan(
                item,
                verdict.kind,
                verdict.reason,
                now,
                props=props,
                matched=matched,
                retire=tuple(old.id for old in verdict.retire),
                successor=verdict.successor.id if verdict.successor is not None else None,
            )
            plans.append(plan)
            self._inserted(plan, context)
        return plans

    def _inserted(self, plan: _Plan, context: _Context) -> None:
        """What a new fact changes for the items after it."""
        assert plan.props is not None
        props = {**plan.props, "embedding": None}
        fact = Fact.from_node(props)
        context.seen[fact.id] = fact
        context.live_hash[fact.content_hash] = fact.id
        retired = set(plan.retire)
        if plan.successor is not None:
            retired.add(fact.id)
        for old in retired:
            context.retired.add(old)
            context.live_hash = {h: i for h, i in context.live_hash.items() if i != old}
        if fact.id in retired or fact.status is not FactStatus.ACTIVE:
            return
        slot = plan.item.slot if self.full else None
        if slot is not None:
            context.slots.setdefault(slot, []).append(fact.id)
        if plan.item.quarantine is None:
            context.batch_facts.append((plan.item.index, fact.id))

    def _standing(self, tx: ManagedTransaction, item: Item, context: _Context) -> list[Neighbour]:
        """The stored standing statements a revoking item may withdraw, by cosine (asked only
        for such an item; a statement made earlier in the same batch is not among them)."""
        if item.quarantine or not revokes(item.data.text, item.data.subject):
            return []
        vector = item.props["embedding"]
        if not vector:
            return []
        found = store.standing_near(tx, scope=self.scope, vector=vector, now=self.clock())
        return [n for n in found if n.fact.id not in context.retired]

    def _slot(self, item: Item, context: _Context) -> list[Fact]:
        """The slot's active facts, newest first (as cypher/fact_write_context.cypher)."""
        if item.slot is None:
            return []
        facts = [
            context.seen[i] for i in context.slots.get(item.slot, []) if i not in context.retired
        ]
        return sorted(facts, key=lambda f: (f.valid_from, f.recorded_at), reverse=True)

    def _near(self, item: Item, context: _Context) -> list[Neighbour]:
        """The NEAR_K best live neighbours at or above the threshold, stored or from this batch."""
        threshold = self.settings.near_duplicate()
        found = [
            (cosine, fact_id)
            for fact_id, cosine in context.near.get(item.index, [])
            if fact_id not in context.retired
        ]
        if context.batch_facts:
            earlier = np.fromiter((i for i, _ in context.batch_facts), np.intp)
            cosines = self._similarity()[item.index, earlier]
            for position in np.flatnonzero(cosines >= threshold):
                fact_id = context.batch_facts[position][1]
                if fact_id not in context.retired:
                    found.append((float(cosines[position]), fact_id))
        found.sort(key=lambda pair: (-pair[0], pair[1]))
        return [Neighbour(context.seen[i], cosine) for cosine, i in found[:NEAR_K]]

    # -- writing ---------------------------------------------------------------------------
    def _apply(
        self, tx: ManagedTransaction, plans: list[_Plan], context: _Context
    ) -> list[Decision]:
        """Run the plans' writes in input order and build the decisions, each fact as
        one-by-one writes would have returned it.

        New facts wait in `pending` and go to Neo4j together, until a write needs one of them
        to exist or retires a fact (a later new fact may carry the retired one's content, which
        only a retired fact leaves free). `states` keeps each fact's successive states with the
        index of the item that left it so: a decision shows a fact as the items before it left
        it.
        """
        states: dict[str, list[tuple[int, Fact]]] = {
            fact_id: [(-1, fact)] for fact_id, fact in context.seen.items()
        }
        pending: list[_Plan] = []
        touched: list[Fact] = []
        events: list[dict[str, Any]] = []
        results: dict[int, Fact] = {}

        def flush() -> None:
            for plan, fact in zip(pending, self._insert(tx, pending), strict=True):
                states[fact.id] = [(plan.item.index, fact)]
                touched.append(fact)
            pending.clear()

        def state(fact_id: str, before: int) -> Fact:
            return [fact for at, fact in states[fact_id] if at < before][-1]

        for plan in plans:
            i = plan.item.index
            if plan.props is None:
                assert plan.target is not None
                if plan.target in {p.item.props["id"] for p in pending}:
                    flush()
                target = state(plan.target, i)
                if plan.kind is DecisionKind.MERGE:
                    stored = store.merge_into(
                        tx, scope=self.scope, target=target, fact=plan.item.data, now=plan.now
                    )
                else:
                    stored = store.reinforce(tx, self.scope, target.id, plan.now)
                states[stored.id].append((i, stored))
                results[i] = stored
            else:
                pending.append(plan)
                if plan.successor is None and not plan.retire:
                    events.append(self._event(plan.props["id"], plan.kind.value, plan.reason))
                    continue
                flush()
                stored = state(plan.props["id"], i + 1)
                if plan.successor is not None:
                    successor = state(plan.successor, i)
                    touched.append(self._retire(tx, stored.id, successor, plan, events))
                    stored = store.fact_in_tx(tx, self.scope, stored.id) or stored
                    states[stored.id].append((i, stored))
                for old in plan.retire:
                    retired = self._retire(tx, old, stored, plan, events)
                    states[old].append((i, retired))
                    touched.append(retired)
                results[i] = stored
            events.append(self._event(results[i].id, plan.kind.value, plan.reason))
        flush()
        passages.refresh(tx, self.scope, touched)
        run(tx, "batch_audit", scope=self.scope, actor=self.actor, events=Rows(events))
        decisions = []
        for plan in plans:
            i = plan.item.index
            stored = results[i] if i in results else state(plan.item.props["id"], i + 1)
            matched = state(plan.matched, i) if plan.matched is not None else None
            decisions.append(Decision(plan.kind, stored, matched, plan.reason))
        return decisions

    def _insert(self, tx: ManagedTransaction, plans: list[_Plan]) -> list[Fact]:
        if not plans:
            return []
        rows: list[dict[str, Any]] = []
        for plan in plans:
            assert plan.props is not None
            plain, times = split_times({**plan.props, "embedding": None})
            rows.append(
                {
                    "props": plain,
                    "times": times,
                    "embedding": Vector(plan.props["embedding"]),
                    "entities": [
                        {
                            "role": ref.role,
                            "canonical": ref.entity.canonical,
                            "name": ref.entity.name,
                            "type": ref.entity.type,
                        }
                        for ref in plan.item.entities
                    ],
                }
            )
        records = run(
            tx,
            "batch_insert",
            scope=self.scope,
            shard_label=vector_shards.label(self.scope),
            rows=Rows(rows),
            now=self.clock(),
        )
        if not all(record["created"] for record in records):
            raise StaleBatch("a concurrent writer stored the same content")
        chunks.write(tx, [chunks.row(p.item.props["id"], self.scope, p.item.chunks) for p in plans])
        store.link_terms(
            tx, [{"id": p.item.props["id"], "terms": p.item.terms} for p in plans], self.clock()
        )
        # Each new node is exactly what its row set (ON CREATE), its datetimes read back from
        # the ISO text Neo4j parsed them from: no need to send them back over the wire.
        return [Fact.from_node({**row["props"], **row["times"]}) for row in rows]

    def _retire(
        self,
        tx: ManagedTransaction,
        old_id: str,
        new: Fact,
        plan: _Plan,
        events: list[dict[str, Any]],
    ) -> Fact:
        """`Memory._chain`, its audit event queued for the batch's audit statement."""
        retired = store.retire(
            tx,
            scope=self.scope,
            old_id=old_id,
            new_id=new.id,
            reason=plan.reason,
            valid_until=new.valid_from,
            now=plan.now,
        )
        if retired is None:
            raise StaleBatch(old_id)
        events.append(self._event(old_id, "superseded", f"superseded by {new.id}: {plan.reason}"))
        return retired

    def _event(self, fact_id: str, kind: str, reason: str) -> dict[str, Any]:
        return {
            "id": new_id(),
            "fact_id": fact_id,
            "kind": kind,
            "reason": reason,
            "at": self.clock().isoformat(),
        }


@dataclasses.dataclass
class _Context:
    """The store as the batch sees it, updated item by item as the decisions proceed."""

    live: int = 0
    seen: dict[str, Fact] = dataclasses.field(default_factory=dict)
    live_hash: dict[str, str] = dataclasses.field(default_factory=dict)
    slots: dict[tuple[str, str], list[str]] = dataclasses.field(default_factory=dict)
    near: dict[int, list[tuple[str, float]]] = dataclasses.field(default_factory=dict)
    retired: set[str] = dataclasses.field(default_factory=set)
    # (item index, fact id) of the active facts the batch inserted so far, near-duplicate
    # candidates of the items after them.
    batch_facts: list[tuple[int, str]] = dataclasses.field(default_factory=list)
