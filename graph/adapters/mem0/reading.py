"""mem0's reads on factgraph: a memory, its history, a filtered list, search and entities.

Filters (graph/adapters/mem0/filters.py) narrow in the database by scope and id tags and are
checked in full on each candidate. A search asks factgraph's hybrid search in each scope a filter
can reach (with its id tags as the search's tag filter) and keeps the best `top_k` of all; when
the filter says more than ids, each scope is asked for `MAX_TOP_K` hits so that enough pass
it. `threshold` is the search's `min_score`: it keeps hits whose relevance (0..1,
docs/search.md) reaches it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from graph.adapters.mem0 import store
from graph.adapters.mem0.base import MAX_LIST, MAX_SEARCH_SCOPES, ProjectState, unique
from graph.adapters.mem0.entities import KINDS
from graph.adapters.mem0.filters import Filter, matches
from graph.errors import ValidationError
from graph.search.options import MAX_TOP_K, SearchOptions
from graph.write.facts import Fact, FactStatus


@dataclass(frozen=True)
class HistoryEvent:
    """A change of a memory as mem0 reports it: ADD (the first version), UPDATE (each later
    version), DELETE (the current version forgotten)."""

    event: str
    fact: Fact
    previous: Fact | None
    at: datetime


@dataclass(frozen=True)
class Entity:
    """A user, agent, app or run holding live memories."""

    kind: str
    name: str
    memories: int
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True)
class Scored:
    """A hit: `score` ranks it (factgraph's, with importance, recency and newer-first),
    `relevance` is what mem0 shows as its score and what `threshold` compares."""

    fact: Fact
    score: float
    relevance: float


class Reading(ProjectState):
    """`Project`'s reads: get, history, list, search, entities."""

    def get(self, memory_id: str) -> Fact:
        """The current version of a memory (any version's id finds it)."""
        return self.current(memory_id, "reader")[1]

    def history(self, memory_id: str) -> list[HistoryEvent]:
        """Every change of the memory, oldest first."""
        found = self.find(memory_id, "reader")
        versions = [f for f in found.chain if f.status is not FactStatus.QUARANTINED]
        events: list[HistoryEvent] = []
        previous: Fact | None = None
        for fact in versions:
            kind = "ADD" if previous is None else "UPDATE"
            events.append(HistoryEvent(kind, fact, previous, fact.recorded_at))
            previous = fact
        if previous is not None and previous.status is FactStatus.FORGOTTEN:
            at = previous.expired_at or previous.updated_at or previous.recorded_at
            events.append(HistoryEvent("DELETE", previous, previous, at))
        return events

    def select(self, where: Filter, *, show_expired: bool = False) -> list[Fact]:
        """Every live memory the filter matches, newest first (at most MAX_LIST)."""
        return self._select(where, "reader", show_expired=show_expired)

    def _select(self, where: Filter, role: str, *, show_expired: bool) -> list[Fact]:
        now = self.memory.clock()
        found: list[Fact] = []
        for route, conjunction in where.routes():
            scopes = set(self.reachable(route, role, limit=MAX_LIST))
            if not scopes:
                continue
            rows = store.tagged_facts(
                self.memory.db,
                self.prefix,
                name=route.anchor,
                name_prefix=route.anchor_prefix,
                tags=route.tags,
                show_expired=show_expired,
                now=now,
                limit=MAX_LIST + 1,
            )
            if len(rows) > MAX_LIST:
                raise ValidationError(
                    "filters", f"matches more than {MAX_LIST:,} memories; narrow it"
                )
            found += [
                fact
                for fact in rows
                if fact.scope in scopes and matches(conjunction, fact, self.ids(fact))
            ]
        newest = sorted(unique(found), key=lambda f: (f.recorded_at, f.id), reverse=True)
        if len(newest) > MAX_LIST:
            raise ValidationError("filters", f"matches more than {MAX_LIST:,} memories; narrow it")
        return newest

    def search(
        self,
        query: str,
        where: Filter,
        *,
        top_k: int = 10,
        threshold: float | None = None,
        as_of: datetime | None = None,
    ) -> list[Scored]:
        """The best `top_k` memories for the query that the filter matches, best first."""
        if not 1 <= top_k <= MAX_TOP_K:
            raise ValidationError("top_k", f"must be between 1 and {MAX_TOP_K}, got {top_k}")
        plans = []
        for route, conjunction in where.routes():
            scopes = self.reachable(route, "reader", limit=MAX_SEARCH_SCOPES + 1)
            plans.append((route, conjunction, scopes))
        reached = {scope for _, _, scopes in plans for scope in scopes}
        if len(reached) > MAX_SEARCH_SCOPES:
            raise ValidationError(
                "filters",
                f"reaches the memories of more than {MAX_SEARCH_SCOPES} users, agents, apps or "
                "runs; a search reads at most that many: name them",
            )
        best: dict[str, Scored] = {}
        for route, conjunction, scopes in plans:
            fetch = top_k if route.exact else MAX_TOP_K
            for scope in scopes:
                # Ordered by relevance alone (MODEL fusion, no importance or recency mixed in):
                # it depends on nothing but the memory and the query, so hits of different
                # scopes compare, and `score` (the relevance) comes back sorted as mem0's does.
                options = SearchOptions.build(
                    top_k=fetch,
                    tags=self.narrowing_tags(route, scope),
                    as_of=as_of,
                    related_limit=0,
                    min_score=threshold,
                    fusion={"method": "model"},
                    weights={"relevance": 1.0, "importance": 0.0, "recency": 0.0},
                )
                result = self.memory.search(scope, query, options=options)
                for hit in result.hits:
                    fact = hit.fact
                    if not matches(conjunction, fact, self.ids(fact)):
                        continue
                    if fact.id not in best or best[fact.id].score < hit.score:
                        best[fact.id] = Scored(fact, hit.score, hit.relevance)
        ranked = sorted(best.values(), key=lambda s: (-s.score, s.fact.id))
        return ranked[:top_k]

    def entities(self) -> list[Entity]:
        """The users, agents, apps and runs with live memories the caller may read."""
        rows = store.tag_counts(self.memory.db, self.prefix, MAX_LIST)
        merged: dict[str, Entity] = {}
        for row in rows:
            if not self.caller.may(row.scope, "reader"):
                continue
            kind, _, name = row.name.partition(":")
            seen = merged.get(row.name)
            merged[row.name] = Entity(
                kind,
                name,
                row.memories + (seen.memories if seen else 0),
                min(row.created_at, seen.created_at) if seen else row.created_at,
                max(row.updated_at, seen.updated_at) if seen else row.updated_at,
            )
        return sorted(merged.values(), key=_entity_order)


def _entity_order(entity: Entity) -> tuple[int, str]:
    return KINDS.index(entity.kind), entity.name
