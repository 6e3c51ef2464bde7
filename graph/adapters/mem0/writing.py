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
the memory leaves every read, and its history says DELETE.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graph.adapters.mem0 import store
from graph.adapters.mem0.base import SOURCE
from graph.adapters.mem0.entities import EntityIds, owner_scope
from graph.adapters.mem0.filters import Filter
from graph.adapters.mem0.reading import Reading
from graph.errors import NotFound, ValidationError
from graph.write.facts import Decision, Fact, FactInput
from graph.write.indexing import content_hash

MAX_MESSAGES = 1_000


@dataclass(frozen=True)
class Message:
    role: str
    content: str


@dataclass(frozen=True)
class Added:
    """What an add did: one decision per message, in order, and whether the consolidator will
    extract memories from them."""

    decisions: list[Decision]
    extraction: bool


@dataclass(frozen=True)
class Change:
    """An update of one memory: any of a new text, metadata, expiry (None clears it) and, with
    a new text, the time the new version holds from."""

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
        session = ids.run or (f"mem0-{uuid.uuid4().hex}" if infer else None)
        last = store.last_turn(self.memory.db, scope, session) if session else None
        first_turn = 0 if last is None else last + 1
        facts: list[dict[str, Any]] = []
        for i, message in enumerate(messages):
            fact: dict[str, Any] = {
                "text": message.content,
                "tags": ids.tags(),
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
        settings = self.memory.settings
        extraction = infer and settings.llm.configured and settings.consolidation.extract
        return Added(decisions, extraction)

    def update(self, memory_id: str, change: Change) -> Fact:
        """The memory's current version after the change."""
        if change.empty:
            raise ValidationError(
                "text", "send at least one of text, metadata, timestamp or expiration_date"
            )
        scope, current = self.current(memory_id, "writer")
        text = change.text
        if text is not None and content_hash(text) == current.content_hash:
            text = None  # the same text: only the rest changes
        if text is None and change.timestamp is not None:
            raise ValidationError(
                "timestamp", "changes only with a new text (the new version holds from it)"
            )
        if text is not None:
            return self._supersede(scope, current, text, change)
        if change.metadata is None and not change.set_expires:
            return current
        now = self.memory.clock()
        stored = store.annotate(
            self.memory.db,
            scope,
            current.id,
            metadata=change.metadata,
            set_metadata=change.metadata is not None,
            expires_at=change.expires_at,
            set_expires=change.set_expires,
            actor=self.caller.actor,
            reason="metadata or expiration date changed through mem0's API",
            now=now,
        )
        if stored is None:  # changed meanwhile by another writer
            raise NotFound(f"memory {memory_id!r} changed meanwhile; read it again")
        return stored

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
        scope, current = self.current(memory_id, "writer")
        return self.memory.forget(
            scope, current.id, reason="deleted through mem0's API", actor=self.caller.actor
        )

    def delete_where(self, where: Filter) -> int:
        """Forget every memory the filter matches; how many. The caller's right to write every
        scope involved is checked before the first is forgotten."""
        doomed = self._select(where, "writer", show_expired=True)
        for fact in doomed:
            self.memory.forget(
                fact.scope, fact.id, reason="deleted through mem0's API", actor=self.caller.actor
            )
        return len(doomed)

    def update_many(self, changes: Sequence[tuple[str, Change]]) -> list[Fact]:
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

    def feedback(self, memory_id: str, feedback: str | None, reason: str | None) -> Fact:
        """Record mem0 feedback on a memory as an audit event on its current version (it
        changes nothing else); that version."""
        scope, current = self.current(memory_id, "writer")
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
        return current
