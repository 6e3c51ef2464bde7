"""Browsing a scope from the memory service: lexical search, the timeline and a node, and the
conversation contexts (`graph.contexts`) whose ids an agent passes back as `exclude_ids`."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from graph import browse, contexts
from graph.state import MemoryState


class Browsing(MemoryState):
    """`Memory`'s cheap looks around a scope: lexical_search, timeline and node."""

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


class Contexts(MemoryState):
    """`Memory`'s conversation contexts: context, pin and unpin."""

    def context(self, scope: str, context_id: str) -> contexts.ConversationContext:
        """What a conversation context holds (recalled and pinned ids); empty when unknown."""
        return contexts.get_context(self.db, scope, context_id)

    def pin(
        self, scope: str, context_id: str, fact_ids: Iterable[str]
    ) -> contexts.ConversationContext:
        """Pin facts of the scope to a context, so the agent's later lookups leave them out."""
        return contexts.pin(self.db, scope, context_id, fact_ids, clock=self.clock)

    def unpin(
        self, scope: str, context_id: str, fact_ids: Iterable[str]
    ) -> contexts.ConversationContext:
        """Unpin facts from a context; an unknown context stays unknown (empty)."""
        return contexts.unpin(self.db, scope, context_id, fact_ids, clock=self.clock)
