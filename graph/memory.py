"""The memory service: the Python API of factgraph, and what the GraphQL resolvers call.

`Memory` owns a Neo4j connection and an embedder and exposes every operation as a method that
names its scope first. It holds the order of operations; the storage details are in
`graph.store` and the Cypher in `cypher/`.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from graph.clock import Clock, system_clock
from graph.config import Settings
from graph.db import Database
from graph.embedding import Embedder
from graph.entities import DefaultEntityResolver, EntityResolver
from graph.facts import Decision, DecisionKind, Fact, FactInput, FactStatus
from graph.indexing import content_hash, index_text, lexical_text
from graph.schema import apply_schema
from graph.store import EntityRef, fact_properties, get_fact, insert_fact, new_id, record_audit
from graph.validation import check_scope, fact_from_mapping, validate


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
        self.settings = settings or db.settings
        self.resolver: EntityResolver = resolver or DefaultEntityResolver()
        self.clock = clock

    @classmethod
    def connect(cls, settings: Settings | None = None, *, apply: bool = True) -> Memory:
        """Connect to Neo4j, load the model and make sure the schema is in place."""
        settings = settings or Settings.from_env()
        embedder = Embedder(settings)
        db = Database(settings)
        try:
            if apply:
                apply_schema(db, embedder.dimensions, embedder.id)
        except Exception:
            db.close()
            raise
        return cls(db, embedder, settings=settings)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writes ----------------------------------------------------------------------------
    def remember(
        self, scope: str, fact: FactInput | Mapping[str, Any], *, actor: str = "agent"
    ) -> Fact:
        """Write a fact through the pipeline and return the fact that now holds it."""
        return self.remember_with_decision(scope, fact, actor=actor).fact

    def remember_with_decision(
        self, scope: str, fact: FactInput | Mapping[str, Any], *, actor: str = "agent"
    ) -> Decision:
        check_scope(scope)
        data = fact_from_mapping(fact) if isinstance(fact, Mapping) else validate(fact)
        now = self.clock()
        entities = self._entities(data)
        embedding = (
            list(data.embedding)
            if data.embedding is not None
            else self.embedder.embed_one(index_text(data, data.valid_from or now, self._mode))
        )
        props = fact_properties(
            data,
            fact_id=data.id or new_id(),
            scope=scope,
            content_hash=content_hash(data.text),
            index_text=index_text(data, data.valid_from or now, self._mode),
            lexical_text=lexical_text(data, [ref.entity.name for ref in entities]),
            subject_key=entities[0].entity.canonical if entities and data.subject else None,
            embedding=embedding,
            embedder=self.embedder.id,
            status=FactStatus.ACTIVE,
            now=now,
        )

        def work(tx: Any) -> Decision:
            stored, created = insert_fact(tx, scope=scope, props=props, entities=entities, now=now)
            kind = DecisionKind.INSERT if created else DecisionKind.DEDUP
            reason = "new fact" if created else "exact duplicate of a live fact in this scope"
            record_audit(
                tx,
                scope=scope,
                fact_id=stored.id,
                kind=kind.value,
                actor=actor,
                reason=reason,
                now=now,
            )
            return Decision(kind, stored, None if created else stored, reason)

        return self.db.write_tx(work, "remember")

    # -- reads -----------------------------------------------------------------------------
    def get(self, scope: str, fact_id: str, *, as_of: datetime | None = None) -> Fact | None:
        """A fact by id; None when missing, forgotten, or not valid at `as_of`."""
        check_scope(scope)
        fact = get_fact(self.db, scope, fact_id)
        if fact is None or fact.status is FactStatus.FORGOTTEN:
            return None
        if as_of is not None and not _valid_at(fact, as_of):
            return None
        return fact

    # -- helpers ---------------------------------------------------------------------------
    @property
    def _mode(self) -> str:
        return self.settings.contextual_indexing

    def _entities(self, fact: FactInput) -> list[EntityRef]:
        refs: list[EntityRef] = []
        for role, name in (("subject", fact.subject), ("object", fact.object)):
            if name:
                resolved = self.resolver.resolve(name)
                if resolved is not None:
                    refs.append(EntityRef(role, resolved))
        return refs


def _valid_at(fact: Fact, at: datetime) -> bool:
    return fact.valid_from <= at and (fact.valid_to is None or at < fact.valid_to)
