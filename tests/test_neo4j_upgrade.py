"""A store made by Neo4j 5.26 opens on the calendar line, as docs/neo4j-versions.md says it does:
stop the server, set FACTGRAPH_NEO4J_VERSION, start it again (issue 41 §1).

Its first start on 2026.x upgrades the store; start-up's schema then builds the filtered
vector index of that line and drops the 16 shard indexes. That schema failed on an upgraded
store until a data write moved the database to its new kernel version first (the filtered
index was refused: "provider 'vector-2.0' is not supported"), so this runs both servers for
real.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

from graph.config import CALENDAR_NEO4J_VERSION, DEFAULT_NEO4J_VERSION, Settings
from graph.memory import Memory
from graph.platform.embedding import Embedder
from graph.platform.neo4j_local import LocalNeo4j
from graph.storage import cypher
from graph.storage.db import Database
from graph.storage.schema import apply_schema
from tests.private_neo4j import private_settings

SCOPE = "upgrade"


def _on(settings: Settings, version: str) -> LocalNeo4j:
    return LocalNeo4j(replace(settings, local=replace(settings.local, version=version)))


def _vector_indexes(db: Database) -> set[str]:
    records = db.driver.execute_query(
        "SHOW INDEXES YIELD name, type WHERE type = 'VECTOR' RETURN name", database_=db.name
    ).records
    return {str(r["name"]) for r in records}


@pytest.fixture
def generation_restored() -> Iterator[None]:
    """The Cypher generation is chosen once per process, by the last server a Database met
    (graph/storage/cypher.py); this test meets both lines, so the worker's other tests get back
    the generation of their own server."""
    before = cypher.generation()
    yield
    cypher.use_generation(before)


@pytest.mark.usefixtures("generation_restored")
def test_a_526_store_opens_on_2026_with_its_facts_and_the_filtered_index(
    settings: Settings, embedder: Embedder, tmp_path_factory: pytest.TempPathFactory
) -> None:
    private = private_settings(settings, tmp_path_factory.mktemp("upgrade") / "neo4j")
    old = _on(private, DEFAULT_NEO4J_VERSION)
    old.start()
    try:
        db = Database(old.settings)
        apply_schema(db, embedder.dimensions, embedder.id, progress=False)
        assert "fact_embedding_00" in _vector_indexes(db)
        moved = Memory(db, embedder).remember(SCOPE, {"text": "Melanie moved from Sweden"})
        Memory(db, embedder).remember(SCOPE, {"text": "Caroline paints sunsets by the lake"})
        db.close()
    finally:
        old.stop()

    new = _on(old.settings, CALENDAR_NEO4J_VERSION)
    new.start()
    try:
        db = Database(new.settings)
        apply_schema(db, embedder.dimensions, embedder.id, progress=False)
        assert _vector_indexes(db) == {"fact_embedding_filtered", "chunk_embedding_filtered"}
        memory = Memory(db, embedder)
        found = memory.search(
            SCOPE, "Which country did Melanie leave?", mode="vector", track_access=False
        )
        assert [h.fact.text for h in found.hits][:1] == ["Melanie moved from Sweden"]
        kept = memory.get(SCOPE, moved.id)
        assert kept is not None and (kept.text, kept.valid_from) == (moved.text, moved.valid_from)
        db.close()
    finally:
        new.kill()
