"""The memory service: the Python API of factgraph, and what the GraphQL resolvers call.

`Memory` owns a Neo4j connection and an embedder and exposes every operation as a method that
names its scope first. The storage details are in `graph.storage.store` and the Cypher in
`cypher/`.

Each operation lives with its concept, in a part `Memory` is composed of:
- writes and supersedes, with their order of operations: `graph/write/remembering.py`;
- forget, validate, reject and purge: `graph/write/lifecycle.py`;
- a fact by id, its history and audit, the review queue, neighbours: `graph/browse/reading.py`;
- lexical search, the timeline, a node and conversation contexts: `graph/browse/browsing.py`;
- search and deep recall: `graph/search/searching.py` and `graph/recall/recalling.py`.
"""

from __future__ import annotations

import dataclasses
import logging

from graph.browse.browsing import Browsing, Contexts
from graph.browse.reading import Reading
from graph.clock import Clock, system_clock
from graph.config import Settings
from graph.platform.embedding import Embedder
from graph.recall.recalling import Recalling
from graph.search import access
from graph.storage.db import Database
from graph.storage.schema import apply_schema, other_models
from graph.write.entities import DefaultEntityResolver, EntityResolver
from graph.write.events import EventBus
from graph.write.lifecycle import Lifecycle
from graph.write.remembering import Remembering

log = logging.getLogger("factgraph.memory")


class Memory(Remembering, Lifecycle, Reading, Browsing, Contexts, Recalling):
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
        self._recall = None
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


def _with_model_threshold(settings: Settings, embedder: Embedder) -> Settings:
    """Settings whose near-duplicate threshold is the model's own, unless one was configured:
    cosines of different models are not on one scale (bench/near_duplicates.py)."""
    pipeline = settings.pipeline
    if pipeline.near_duplicate_threshold is not None:
        return settings
    return settings.with_overrides(
        pipeline=dataclasses.replace(pipeline, near_duplicate_threshold=embedder.near_duplicate)
    )
