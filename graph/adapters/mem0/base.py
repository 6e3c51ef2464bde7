"""What every mem0 operation shares: the project, the caller's access, and finding a memory.

A mem0 memory id names no scope; the memory is found among the project's scopes by id (a
unique-id seek), then the caller's access to that scope is checked. Every version of a
memory (factgraph supersedes on update, so a version is a fact) addresses the memory: reads
and writes act on its current version, and answer with the id of its first
(graph/adapters/mem0/held.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from graph.adapters.mem0 import store
from graph.adapters.mem0.entities import (
    EntityIds,
    check_namespace,
    ids_of,
    namespace_prefix,
    owner_of_scope,
    owner_scope,
    tag,
)
from graph.adapters.mem0.filters import Route
from graph.adapters.mem0.held import Held, Origin
from graph.errors import FactgraphError, NotFound, ValidationError
from graph.memory import Memory
from graph.write.facts import Fact, FactStatus
from graph.write.validation import check_clean

# The source of every fact written through mem0's API (operators may trust it for extraction:
# FACTGRAPH_CONSOLIDATE_TRUSTED_SOURCES), and the audit's actor when no key is used.
SOURCE = "mem0"
ACTOR = SOURCE
# A list (and a delete by filter) reads at most this many memories.
MAX_LIST = 10_000


@dataclass(frozen=True)
class Caller:
    """Who calls: `check(scope, role)` raises Unauthenticated or Forbidden unless allowed;
    `actor` is who the audit trail names (the API key's id, as for GraphQL)."""

    check: Callable[[str, str], None]
    actor: str = ACTOR

    def may(self, scope: str, role: str) -> bool:
        try:
            self.check(scope, role)
        except FactgraphError:
            return False
        return True


@dataclass(frozen=True)
class Found:
    """A memory found by one of its ids: its scope, its versions (oldest first) and the
    current one (None once deleted)."""

    scope: str
    chain: list[Fact]
    current: Fact | None
    origin: Origin
    """The first version: mem0's id and `created_at` for every version."""


class ProjectState:
    """A mem0 project (a namespace of scopes) seen by one caller."""

    def __init__(self, memory: Memory, namespace: str, caller: Caller) -> None:
        self.memory = memory
        self.namespace = check_namespace(namespace)
        self.prefix = namespace_prefix(namespace)
        self.caller = caller

    def ids(self, fact: Fact) -> EntityIds:
        """The mem0 ids a stored fact carries."""
        return ids_of(fact.tags, owner_of_scope(self.namespace, fact.scope))

    def find(self, memory_id: str, role: str) -> Found:
        """A memory by any of its versions' ids; NotFound when the project has none."""
        if not isinstance(memory_id, str) or not memory_id.strip():
            raise ValidationError("memory_id", "must be a non-empty string")
        check_clean("memory_id", memory_id)
        scope = store.fact_scope(self.memory.db, self.prefix, memory_id)
        if scope is None:
            raise NotFound(f"no memory {memory_id!r}")
        self.caller.check(scope, role)
        chain = self.memory.history(scope, memory_id)
        live = [fact for fact in chain if fact.status is FactStatus.ACTIVE]
        first = store.origins(self.memory.db, self.prefix, [memory_id]).get(memory_id)
        return Found(scope, chain, live[-1] if live else None, first or Origin.of(chain[0]))

    def held(self, facts: Sequence[Fact]) -> list[Held]:
        """Facts as mem0 shows them, named by their chains' first versions (one query)."""
        first = store.origins(self.memory.db, self.prefix, [f.id for f in facts])
        return [Held(f, first.get(f.id) or Origin.of(f)) for f in facts]

    def current(self, memory_id: str, role: str) -> tuple[str, Held]:
        """The current version of a memory; NotFound once it was deleted (or while its only
        version waits in the review queue)."""
        found = self.find(memory_id, role)
        if found.current is None:
            last = found.chain[-1] if found.chain else None
            if last is not None and last.status is FactStatus.QUARANTINED:
                raise NotFound(f"memory {memory_id!r} is held for review")
            raise NotFound(f"memory {memory_id!r} was deleted")
        return found.scope, Held(found.current, found.origin)

    def reachable(self, route: Route, role: str, *, limit: int) -> list[str]:
        """The scopes an alternative of a filter can find matches in, that the caller may use.

        A user named by the filter is one scope, checked (403 if the key may not use it);
        otherwise the scopes holding the id's tag are looked up and those the key may not use
        are left out, as if they held nothing.
        """
        if route.owner is not None:
            scope = owner_scope(self.namespace, *route.owner)
            self.caller.check(scope, role)
            return [scope]
        found = store.scopes_with_tag(
            self.memory.db,
            self.prefix,
            name=route.anchor,
            name_prefix=route.anchor_prefix,
            limit=limit,
        )
        return [scope for scope in found if self.caller.may(scope, role)]

    def narrowing_tags(self, route: Route, scope: str) -> list[str]:
        """The route's id tags, less the one every fact of `scope` carries (its owner's)."""
        owner = owner_of_scope(self.namespace, scope)
        implied = tag(*owner) if owner is not None else None
        return [name for name in route.tags if name != implied]
