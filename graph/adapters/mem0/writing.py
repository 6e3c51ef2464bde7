"""mem0's writes on factgraph: add, update, delete (one, by filter, by entity, in batches) and
feedback.

`add` stores each message as a fact of its owner's scope, tagged with its ids; a run is the
facts' session and the messages its next turns. With `infer` false the messages go the
straight-through way (validation and exact duplicates only: factgraph's `pipeline: false`),
stored as they are. With `infer` true they take the whole write pipeline (duplicates, near
duplicates, quarantine of text aimed at the agent) and, like every write, wait in the
consolidator's queue, whose extraction draws atomic facts from them when an LLM is configured
(docs/consolidation.md). `update` with a new text supersedes the current version, so the
history keeps both; metadata or an expiration date alone change in place. `delete` forgets:
the memory leaves every read, and its history says DELETE. A memory keeps the id and
`created_at` of its first version across updates (graph/adapters/mem0/held.py).

Which messages become memories is mem0's rule: user and assistant messages do, system and tool
messages do not (they instruct or report; mem0 drops them from direct imports too). A text its
owner already holds live is not stored twice: the memory gains the ids it lacked (another
agent_id, app_id or run_id), so a filter on them finds it.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from graph.adapters.mem0 import store
from graph.adapters.mem0.base import SOURCE
from graph.adapters.mem0.entities import EntityIds, owner_scope, role_tags
from graph.adapters.mem0.filters import Filter
from graph.adapters.mem0.held import Held
from graph.adapters.mem0.reading import Reading
from graph.errors import NotFound, ValidationError
from graph.write.facts import Decision, DecisionKind, Fact, FactInput
from graph.write.indexing import content_hash
from graph.write.validation import check_keys

MAX_MESSAGES = 1_000
# The roles of mem0's messages; the first two are stored as memories.
STORED_ROLES = ("user", "assistant")
ROLES = (*STORED_ROLES, "system", "tool")


@dataclass(frozen=True)
class Message:
    role: str
    content: str


@dataclass(frozen=True)
class Stored:
    """What became of one stored message: the write's decision, the memory that holds the
    text, and whether that memory gained ids it lacked (a duplicate said with another agent)."""

    decision: Decision
    held: Held
    gained: bool


@dataclass(frozen=True)
class Added:
    """What an add did: the owner's scope, one result per stored message (system and tool
    messages are not stored), and whether the consolidator will extract memories from them."""

    scope: str
    results: list[Stored]
    extraction: bool
    started: datetime


@dataclass(frozen=True)
class Change:
    """An update of one memory: any of a new text, metadata, expiry (None clears it) and the
    time the memory holds from (mem0's `timestamp`: with a new text, the new version's; alone,
    the current version's, changed in place)."""

    text: str | None = None
    metadata: Mapping[str, Any] | None = None
    set_expires: bool = False
    expires_at: datetime | None = None
    timestamp: datetime | None = None

    @property
    def empty(self) -> bool:
        return (
            self.text is None
            and self.metadata is None
            and not self.set_expires
            and self.timestamp is None
        )


class Writing(Reading):
    """`Project`'s writes."""

    def add(
        self,
        messages: Sequence[Message],
        ids: EntityIds,
        *,
        metadata: Mapping[str, Any] | None = None,
        infer: bool = True,
        timestamp: datetime | None = None,
        expires_at: datetime | None = None,
    ) -> Added:
        owner = ids.owner
        if owner is None:
            raise ValidationError(
                "user_id",
                "an add needs a user_id, agent_id, app_id or run_id (or filters naming one)",
            )
        if not messages:
            raise ValidationError("messages", "must hold at least one message")
        if len(messages) > MAX_MESSAGES:
            raise ValidationError("messages", f"more than {MAX_MESSAGES} messages")
        scope = owner_scope(self.namespace, *owner)
        self.caller.check(scope, "writer")
        started = self.memory.clock()
        messages = [m for m in messages if m.role in STORED_ROLES]
        if not messages:
            return Added(scope, [], False, started)
        session = ids.run or (f"mem0-{uuid.uuid4().hex}" if infer else None)
        last = store.last_turn(self.memory.db, scope, session) if session else None
        first_turn = 0 if last is None else last + 1
        facts: list[dict[str, Any]] = []
        for i, message in enumerate(messages):
            fact: dict[str, Any] = {
                "text": message.content,
                "tags": [*ids.tags(), *role_tags(message.role)],
                "source": SOURCE,
                "metadata": dict(metadata or {}),
                "session_id": session,
                "turn": first_turn + i if session else None,
                "valid_from": timestamp,
                "recorded_at": timestamp,
                "expires_at": expires_at,
            }
            facts.append({k: v for k, v in fact.items() if v is not None})
        decisions = self.memory.remember_many(
            scope, facts, actor=self.caller.actor, pipeline=None if infer else False
        )
        gained = [self._gain_ids(scope, decision, ids) for decision in decisions]
        helds = self.held([decision.fact for decision, _ in gained])
        settings = self.memory.settings
        extraction = infer and settings.llm.configured and settings.consolidation.extract
        results = [
            Stored(decision, held, more)
            for (decision, more), held in zip(gained, helds, strict=True)
        ]
        return Added(scope, results, extraction, started)

    def record_event(
        self, scope: str, payload: Any, results: Any, *, started: datetime
    ) -> store.Event:
        """Keep an add as a mem0 event, done (an add is done when it answers), for polling."""
        event = store.Event(
            id=str(uuid.uuid4()),
            scope=scope,
            event_type="ADD",
            status="SUCCEEDED",
            payload=payload,
            results=results,
            created_at=started,
            completed_at=self.memory.clock(),
        )
        store.create_event(self.memory.db, event)
        return event

    def _gain_ids(self, scope: str, decision: Decision, ids: EntityIds) -> tuple[Decision, bool]:
        """A duplicate of a live memory (or a near one merged into it) said with ids it lacks:
        the memory gains them."""
        if decision.kind not in (DecisionKind.DEDUP, DecisionKind.MERGE):
            return decision, False
        missing = [name for name in ids.tags() if name not in decision.fact.tags]
        if not missing:
            return decision, False
        now = self.memory.clock()
        fact = store.retag(
            self.memory.db, scope, decision.fact.id, missing, actor=self.caller.actor, now=now
        )
        if fact is None:  # no longer live: nothing to add the ids to
            return decision, False
        return replace(decision, fact=fact), True

    def update(self, memory_id: str, change: Change) -> Held:
        """The memory's current version after the change (its id and `created_at` stay)."""
        if change.empty:
            raise ValidationError(
                "text", "send at least one of text, metadata, timestamp or expiration_date"
            )
        scope, held = self.current(memory_id, "writer")
        current = held.fact
        text = change.text
        if text is not None and content_hash(text) == current.content_hash:
            text = None  # the same text: only the rest changes
        if text is not None:
            return Held(self._supersede(scope, current, text, change), held.origin)
        if change.metadata is None and not change.set_expires and change.timestamp is None:
            return held
        if change.metadata is not None:  # written in place: no FactInput checks it
            check_keys("metadata", change.metadata)
        now = self.memory.clock()
        stored = store.annotate(
            self.memory.db,
            scope,
            current.id,
            metadata=change.metadata,
            set_metadata=change.metadata is not None,
            expires_at=change.expires_at,
            set_expires=change.set_expires,
            valid_from=change.timestamp,
            actor=self.caller.actor,
            reason="metadata, timestamp or expiration date changed through mem0's API",
            now=now,
        )
        if stored is None:  # changed meanwhile by another writer
            raise NotFound(f"memory {memory_id!r} changed meanwhile; read it again")
        return Held(stored, held.origin)

    def _supersede(self, scope: str, current: Fact, text: str, change: Change) -> Fact:
        metadata = change.metadata if change.metadata is not None else current.metadata
        expires = change.expires_at if change.set_expires else current.expires_at
        new = FactInput(
            text=text,
            tags=current.tags,
            importance=current.importance,
            partition=current.partition,
            source=current.source,
            metadata=dict(metadata),
            session_id=current.session_id,
            turn=current.turn,
            expires_at=expires,
            valid_from=change.timestamp,
        )
        decision = self.memory.supersede(
            scope, current.id, new, reason="updated through mem0's API", actor=self.caller.actor
        )
        return decision.fact

    def delete(self, memory_id: str) -> Fact:
        """Forget the memory's current version; it stays in its history."""
        scope, held = self.current(memory_id, "writer")
        return self.memory.forget(
            scope, held.fact.id, reason="deleted through mem0's API", actor=self.caller.actor
        )

    def delete_where(self, where: Filter, *, role: str = "writer") -> int:
        """Forget every memory the filter matches; how many. The caller's `role` on every
        scope involved is checked before the first is forgotten."""
        doomed = self._select(where, role, show_expired=True)
        by_scope: dict[str, list[str]] = {}
        for held in doomed:
            by_scope.setdefault(held.fact.scope, []).append(held.fact.id)
        # forget_many passes over a fact forgotten since it was selected (the consolidator's
        # expiry, another delete): a 10-minute contract fuzz saw a reset answer 409 for one.
        for scope, ids in by_scope.items():
            self.memory.forget_many(
                scope, ids, reason="deleted through mem0's API", actor=self.caller.actor
            )
        return len(doomed)

    def update_many(self, changes: Sequence[tuple[str, Change]]) -> list[Held]:
        """Each change in order, once every memory was found and every change checked."""
        for i, (memory_id, change) in enumerate(changes):
            if change.empty:
                raise ValidationError(f"memories[{i}]", "needs a text or metadata")
            try:
                self.current(memory_id, "writer")
            except NotFound as exc:
                raise NotFound(f"memories[{i}]: {exc}") from None
        return [self.update(memory_id, change) for memory_id, change in changes]

    def delete_many(self, memory_ids: Sequence[str]) -> int:
        """Forget each memory, once every one was found."""
        for i, memory_id in enumerate(memory_ids):
            try:
                self.current(memory_id, "writer")
            except NotFound as exc:
                raise NotFound(f"memories[{i}]: {exc}") from None
        for memory_id in memory_ids:
            self.delete(memory_id)
        return len(memory_ids)

    def feedback(self, memory_id: str, feedback: str | None, reason: str | None) -> Held:
        """Record mem0 feedback on a memory as an audit event on its current version (it
        changes nothing else); that version."""
        scope, held = self.current(memory_id, "writer")
        current = held.fact
        text = feedback or "NONE"
        if reason:
            text += f": {reason}"
        store.audit(
            self.memory.db,
            scope,
            current.id,
            kind="feedback",
            actor=self.caller.actor,
            reason=text[:500],
            now=self.memory.clock(),
        )
        return held
