"""mem0's reads on factgraph: a memory, its history, a filtered list, search and entities.

Filters (graph/adapters/mem0/filters.py) narrow in the database by scope and id tags and are
checked in full on each candidate. A search asks factgraph's hybrid search in every scope a
filter reaches (with its id tags as the search's tag filter, a few scopes at a time) and keeps
the best `top_k` of all; a scope is asked again, past the hits it gave, while it may hold more
that pass the filter. `threshold` is the search's `min_score`: it keeps hits whose relevance
(0..1, docs/search.md) reaches it. Every memory is shown named by its chain's first version
(graph/adapters/mem0/held.py).
"""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime

from graph.adapters.mem0 import store
from graph.adapters.mem0.base import MAX_LIST, ProjectState
from graph.adapters.mem0.entities import KINDS
from graph.adapters.mem0.filters import Conjunction, Filter, Route, matches, needs_origin
from graph.adapters.mem0.held import Held, Origin
from graph.errors import NotFound, ValidationError
from graph.search.options import MAX_TOP_K, SearchOptions
from graph.write.facts import Fact, FactStatus

# mem0's top_k reaches 1,000; factgraph's search answers at most MAX_TOP_K at a time, so a
# scope is asked again with the hits it gave excluded (each page is one search).
MAX_SEARCH_TOP_K = 1_000
# Each page draws at least this many candidates from each list (search's default), more for a
# larger page, so that a page that comes back short means the scope holds no more.
DEFAULT_CANDIDATES = SearchOptions().candidate_top_k
# A filter that says more than ids may turn hits away: a scope is asked for this many times
# the hits still wanted (at most MAX_TOP_K a page), and again past them while too few pass.
OVERASK = 3
# A search reads the scopes a filter reaches (one user, agent, app or run each) this many at
# a time: Neo4j does the work, so more threads than its cores' worth only queue there.
SEARCH_THREADS = 4
# A search reaches at most this many scopes, as a list reads at most MAX_LIST memories.
MAX_SEARCH_SCOPES = MAX_LIST
# History entry ids: a UUID derived from the version and the event, the same at every read.
HISTORY_IDS = uuid.UUID("6f0c7f5e-3a1d-4b8e-9a57-2f1d3c4b5a69")


@dataclass(frozen=True)
class HistoryEvent:
    """A change of a memory as mem0 reports it: ADD (the first version), UPDATE (each later
    version), DELETE (the current version forgotten). `memory_id` is the memory's (its first
    version's) id, whichever version the event made."""

    id: str
    memory_id: str
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

    held: Held
    score: float
    relevance: float


class Reading(ProjectState):
    """`Project`'s reads: get, history, list, search, entities."""

    def get(self, memory_id: str) -> Held:
        """The current version of a memory (any version's id finds it)."""
        return self.current(memory_id, "reader")[1]

    def history(self, memory_id: str) -> list[HistoryEvent]:
        """Every change of the memory, oldest first."""
        found = self.find(memory_id, "reader")
        versions = [f for f in found.chain if f.status is not FactStatus.QUARANTINED]
        stable = found.origin.id
        events: list[HistoryEvent] = []
        previous: Fact | None = None
        for fact in versions:
            kind = "ADD" if previous is None else "UPDATE"
            events.append(_event(stable, kind, fact, previous, fact.recorded_at))
            previous = fact
        if previous is not None and previous.status is FactStatus.FORGOTTEN:
            at = previous.expired_at or previous.updated_at or previous.recorded_at
            events.append(_event(stable, "DELETE", previous, previous, at))
        return events

    def select(self, where: Filter, *, show_expired: bool = False) -> list[Held]:
        """Every live memory the filter matches, newest first (at most MAX_LIST)."""
        return self._select(where, "reader", show_expired=show_expired)

    def _select(self, where: Filter, role: str, *, show_expired: bool) -> list[Held]:
        now = self.memory.clock()
        found: list[Held] = []
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
            candidates = [fact for fact in rows if fact.scope in scopes]
            found += [
                held
                for held in self.held(candidates)
                if matches(conjunction, held.fact, self.ids(held.fact), held.origin)
            ]
        seen: dict[str, Held] = {}
        for held in found:
            seen.setdefault(held.fact.id, held)
        newest = sorted(seen.values(), key=lambda h: (h.fact.recorded_at, h.fact.id), reverse=True)
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
        show_expired: bool = False,
    ) -> list[Scored]:
        """The best `top_k` memories for the query that the filter matches, best first."""
        if not 1 <= top_k <= MAX_SEARCH_TOP_K:
            raise ValidationError("top_k", f"must be between 1 and {MAX_SEARCH_TOP_K}, got {top_k}")
        tasks: list[tuple[Route, Conjunction, str]] = []
        for route, conjunction in where.routes():
            scopes = self.reachable(route, "reader", limit=MAX_SEARCH_SCOPES + 1)
            tasks += [(route, conjunction, scope) for scope in scopes]
        if len({scope for _, _, scope in tasks}) > MAX_SEARCH_SCOPES:
            raise ValidationError(
                "filters",
                f"reaches the memories of more than {MAX_SEARCH_SCOPES:,} users, agents, apps "
                "or runs; narrow it",
            )
        search = _ScopeSearch(self, query, top_k, threshold, as_of, show_expired)
        if len(tasks) <= 1:
            found = [search(*task) for task in tasks]
        else:
            with ThreadPoolExecutor(min(SEARCH_THREADS, len(tasks))) as pool:
                found = list(pool.map(lambda task: search(*task), tasks))
        best: dict[str, tuple[Fact, float, float]] = {}
        for hits in found:
            for fact, score, relevance in hits:
                if fact.id not in best or best[fact.id][1] < score:
                    best[fact.id] = (fact, score, relevance)
        ranked = sorted(best.values(), key=lambda hit: (-hit[1], hit[0].id))[:top_k]
        helds = self.held([fact for fact, _, _ in ranked])
        return [
            Scored(held, score, relevance)
            for held, (_, score, relevance) in zip(helds, ranked, strict=True)
        ]

    def event(self, event_id: str) -> store.Event:
        """An add's event, by the id it answered."""
        if not isinstance(event_id, str) or not event_id.strip():
            raise ValidationError("event_id", "must be a non-empty string")
        found = store.get_event(self.memory.db, self.prefix, event_id)
        if found is None:
            raise NotFound(f"no event {event_id!r}")
        self.caller.check(found.scope, "reader")
        return found

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


@dataclass(frozen=True)
class _ScopeSearch:
    """One search's question, asked of one scope at a time: the hits that pass the filter,
    as (fact, score, relevance), at most `top_k`."""

    project: Reading
    query: str
    top_k: int
    threshold: float | None
    as_of: datetime | None
    show_expired: bool

    def __call__(
        self, route: Route, conjunction: Conjunction, scope: str
    ) -> list[tuple[Fact, float, float]]:
        project = self.project
        kept: list[tuple[Fact, float, float]] = []
        seen: list[str] = []
        origins = needs_origin(conjunction)
        while len(kept) < self.top_k and len(seen) < MAX_SEARCH_TOP_K:
            wanted = self.top_k - len(kept)
            page = min(MAX_TOP_K, wanted if route.exact else wanted * OVERASK)
            # Ordered by relevance alone (MODEL fusion, no importance or recency mixed in):
            # it depends on nothing but the memory and the query, so hits of different scopes
            # compare, and `score` (the relevance) comes back sorted as mem0's does.
            options = SearchOptions.build(
                top_k=page,
                candidate_top_k=max(DEFAULT_CANDIDATES, page),
                tags=project.narrowing_tags(route, scope),
                as_of=self.as_of,
                related_limit=0,
                min_score=self.threshold,
                fusion={"method": "model"},
                weights={"relevance": 1.0, "importance": 0.0, "recency": 0.0},
                exclude_ids=tuple(seen),
                include_expired=self.show_expired,
            )
            hits = project.memory.search(scope, self.query, options=options).hits
            first = (
                store.origins(project.memory.db, project.prefix, [h.fact.id for h in hits])
                if origins
                else {}
            )
            for hit in hits:
                fact = hit.fact
                seen.append(fact.id)
                origin = first.get(fact.id) or Origin.of(fact)
                if matches(conjunction, fact, project.ids(fact), origin):
                    kept.append((fact, hit.score, hit.relevance))
            if len(hits) < page:
                break
        return kept[: self.top_k]


def _event(
    memory_id: str, kind: str, fact: Fact, previous: Fact | None, at: datetime
) -> HistoryEvent:
    entry = str(uuid.uuid5(HISTORY_IDS, f"{fact.id}:{kind}"))
    return HistoryEvent(entry, memory_id, kind, fact, previous, at)


def _entity_order(entity: Entity) -> tuple[int, str]:
    return KINDS.index(entity.kind), entity.name
