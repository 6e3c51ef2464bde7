"""A second, private local Neo4j for tests that must not touch the suite's shared server."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import neo4j

from graph.config import Settings
from graph.storage.db import Database
from tests.live_server import free_port


def private_settings(settings: Settings, home: Path) -> Settings:
    """The suite's settings pointed at a small server of its own under `home`, on free ports
    (its store, schema and vector index can be emptied or dropped without other tests seeing).

    Short-lived (the JIT's first tier, no quiet periods at stop), and without the HTTP server
    and Browser, which no test asks of it: each takes seconds off every start and stop.
    """
    local = replace(
        settings.local,
        home=home,
        bolt_port=free_port(),
        http_port=free_port(),
        heap="512m",
        pagecache="64m",
        short_lived=True,
        http=False,
    )
    return replace(settings, local=local, neo4j_uri=None)


def wipe(db: Database) -> None:
    """Empty a private server's database: no node, no constraint, no index but the lookups.

    A test on the shared spare server starts from this, as from a fresh store: what an earlier
    test, an import or a benchmark left (facts, Lucene segments, an index of another dimension)
    is gone, so nothing it asserts depends on who used the server before.
    """

    def run(query: str) -> list[neo4j.Record]:
        return db.driver.execute_query(query, database_=db.name).records

    run("MATCH (n) DETACH DELETE n")  # a test's store is small
    for record in run("SHOW CONSTRAINTS YIELD name"):
        run(f"DROP CONSTRAINT `{record['name']}` IF EXISTS")
    for record in run("SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP' RETURN name"):
        run(f"DROP INDEX `{record['name']}` IF EXISTS")
