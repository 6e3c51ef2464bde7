"""After a start, the service reads what searches read into Neo4j's page cache, once.

A cold page cache makes the first hours of searches at a million facts slower (each hit's facts
read from disk); `factgraph serve` warms it in the background as it starts answering
(graph/platform/warmup.py), and `factgraph neo4j warm` does the same in the foreground.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from graph.config import Settings
from graph.memory import Memory
from graph.platform.warmup import enabled, warm_page_cache
from graph.storage.db import Database
from resolvers.app import create_app
from tests.cli_helpers import cli_env, factgraph


def remember_linked(memory: Memory, scope: str) -> None:
    for i, city in enumerate(("Lisbon", "Porto", "Braga")):
        memory.remember(
            scope,
            {
                "text": f"Ana visited {city} ({i})",
                "subject": "Ana",
                "predicate": "visited",
                "object": city,
                "tags": ["travel", f"trip-{i}"],
            },
        )


def count(db: Database, query: str) -> int:
    return int(db.driver.execute_query(query, database_=db.name).records[0][0])


def test_the_warm_up_reads_every_fact_its_ids_and_its_links(
    memory: Memory, db: Database, scope: str
) -> None:
    remember_linked(memory, scope)
    warmed = warm_page_cache(db)
    facts = count(db, "MATCH (f:Fact) RETURN count(f)")
    assert warmed.facts == facts >= 3
    assert warmed.ids >= facts  # the id index and the (scope, session, turn) index
    # The links the search's expansions walk: tags and entities (a fact's :Term links, read from
    # its text, are the graph list's, off by default, and not warmed).
    links = count(db, "MATCH (:Fact)-[r:TAGGED]->(:Tag) RETURN count(r)") + count(
        db, "MATCH (:Fact)-[r:MENTIONS]->(:Entity) RETURN count(r)"
    )
    assert warmed.links == links >= 3 * 2 + 3 * 2  # two tags, subject and object each
    assert "facts" in warmed.describe() and warmed.seconds >= 0


def test_only_the_local_server_is_warmed_unless_asked(settings: Settings) -> None:
    local = settings.with_overrides(neo4j_uri=None)
    cluster = settings.with_overrides(neo4j_uri="neo4j+s://example.databases.neo4j.io")
    assert enabled(local.with_overrides(warmup="auto"))
    assert not enabled(cluster.with_overrides(warmup="auto"))
    assert enabled(cluster.with_overrides(warmup="on"))
    assert not enabled(local.with_overrides(warmup="off"))


def test_an_unknown_warm_up_setting_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FACTGRAPH_WARMUP", "sometimes")
    with pytest.raises(ValueError, match="FACTGRAPH_WARMUP must be one of auto, on, off"):
        Settings.from_env()


def test_the_service_warms_the_page_cache_as_it_starts(
    settings: Settings, memory: Memory, scope: str, caplog: pytest.LogCaptureFixture
) -> None:
    remember_linked(memory, scope)
    app = create_app(settings=settings.with_overrides(warmup="on"))
    with caplog.at_level(logging.INFO, logger="factgraph.warmup"), TestClient(app) as client:
        assert client.get("/healthz").status_code == 200  # answering while it warms
        app.state.warmup.join(60)
    assert any(r.getMessage().startswith("page cache warmed: ") for r in caplog.records)


def test_the_warm_command_reads_in_the_foreground_and_says_what(
    settings: Settings, memory: Memory, scope: str, tmp_path: Path
) -> None:
    remember_linked(memory, scope)
    done = factgraph(cli_env(settings, tmp_path), "neo4j", "warm")
    assert done.stdout.startswith("page cache warmed: ") and " facts, " in done.stdout
