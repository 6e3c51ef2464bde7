"""What every part of the memory service holds, so each concept's part can live in its own folder.

`graph.memory.Memory` composes the parts (the write path in `graph/write/`, reads and browsing in
`graph/browse/`, search and recall in `graph/search/` and `graph/recall/`, conversation contexts
in `graph/contexts.py`) and sets this state once, in its constructor.
"""

from __future__ import annotations

from graph.clock import Clock
from graph.config import Settings
from graph.platform.embedding import Embedder
from graph.storage.db import Database
from graph.write.entities import EntityResolver
from graph.write.events import EventBus


class MemoryState:
    """One Neo4j database, one embedder, the settings, the entity resolver, the clock, and the
    bus that tells live subscribers of committed changes (per process)."""

    db: Database
    embedder: Embedder
    settings: Settings
    resolver: EntityResolver
    clock: Clock
    events: EventBus
