"""Both Neo4j lines: which Java and main class a version gets, which Cypher a server runs, that
the schema matches the server's generation, that a deprecation from the server fails a test,
and that a store is never opened by an older Neo4j than the one that last ran it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from neo4j.warnings import Neo4jDeprecationWarning

from graph.config import DEFAULT_NEO4J_VERSION, Settings
from graph.platform import java_runtime
from graph.platform.cypher_shell import shell_version
from graph.platform.embedding import Embedder
from graph.platform.neo4j_local import LocalNeo4j, Neo4jSetupError
from graph.platform.neo4j_versions import parse
from graph.storage import cypher, vector_shards
from graph.storage.db import Database
from graph.storage.schema import apply_schema


def test_versions_of_both_lines_are_read_and_ordered() -> None:
    assert parse("5.26.30") == (5, 26, 30)
    assert parse("2026.08.1") == (2026, 8, 1)
    assert parse("2026.08.1-aura") == (2026, 8, 1)
    assert str(parse("2026.08.1")) == "2026.08.1" and str(parse("5.26.30")) == "5.26.30"
    assert parse("5.26.30") < parse("2025.01.0") < parse("2026.08.1")
    with pytest.raises(ValueError, match="not a Neo4j version"):
        parse("latest")


def test_each_line_gets_its_own_main_class_and_java() -> None:
    lts, current = parse("5.26.30"), parse("2026.08.1")
    assert lts.entry_point == "org.neo4j.server.CommunityEntryPoint"
    assert current.entry_point == "org.neo4j.server.Neo4jCommunity"
    assert java_runtime.required_major(lts) == 17
    assert java_runtime.required_major(parse("2025.06.0")) == 21
    assert java_runtime.required_major(current) == 25


def test_calendar_versions_get_the_launchers_jvm_openings_and_a_526_cypher_shell() -> None:
    assert "--add-opens=java.base/java.nio=ALL-UNNAMED" in parse("2026.08.1").jvm_options
    assert parse("5.26.30").jvm_options == ()
    # cypher-shell stops at 5.26.x on Maven Central; it speaks Bolt to the calendar versions.
    assert shell_version("2026.08.1") == DEFAULT_NEO4J_VERSION
    assert shell_version("5.26.12") == "5.26.12"


def test_only_2026_and_later_filter_inside_the_vector_index() -> None:
    assert not parse("5.26.30").in_index_filters
    assert not parse("2025.12.0").in_index_filters
    assert parse("2026.01.0").in_index_filters


def test_a_bad_version_setting_is_refused_at_start_up(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FACTGRAPH_NEO4J_VERSION", "newest")
    with pytest.raises(ValueError, match="not a Neo4j version"):
        Settings.from_env()


def test_the_java_chosen_runs_the_configured_version(settings: Settings) -> None:
    version = parse(settings.local.version)
    java = java_runtime.java_for(version, install=False)
    major = java_runtime.java_major(java)
    assert major is not None and major >= java_runtime.required_major(version)


def test_the_server_runs_the_cypher_of_its_generation(db: Database) -> None:
    server = db.server_version
    expected = cypher.NEO4J_2026 if server.in_index_filters else cypher.BASE
    assert cypher.generation() == expected
    names = {str(r["name"]) for r in db.read("vector_index_names")}
    if server.in_index_filters:
        assert names == {vector_shards.FILTERED_INDEX, vector_shards.FILTERED_CHUNK_INDEX}
        assert "SEARCH f IN (VECTOR INDEX" in cypher.load("search_candidates")
        assert "queryNodes($vector_index" not in cypher.load("search_candidates")
        assert "queryNodes($chunk_index" not in cypher.load("search_candidates")
    else:
        assert names == set(vector_shards.INDEXES) | set(vector_shards.CHUNK_INDEXES)


def test_the_schema_is_applied_again_without_change(db: Database, embedder: Embedder) -> None:
    before = {str(r["name"]) for r in db.read("vector_index_names")}
    apply_schema(db, embedder.dimensions, embedder.id)
    assert {str(r["name"]) for r in db.read("vector_index_names")} == before


def test_a_deprecation_notification_from_the_server_fails_the_test(db: Database) -> None:
    # id() is deprecated on both lines; with the suite's settings the driver raises the
    # server's deprecation as a warning, which pyproject's filterwarnings makes an error.
    with pytest.warns(Neo4jDeprecationWarning, match="id"):
        db.driver.execute_query("MATCH (n:NoSuchLabel) RETURN id(n) AS i", database_=db.name)


def _local(tmp_path: Path, version: str) -> LocalNeo4j:
    base = Settings()
    local = replace(base.local, version=version, home=tmp_path / "neo4j")
    return LocalNeo4j(replace(base, home=tmp_path, local=local))


def test_a_store_last_run_by_a_newer_neo4j_is_refused_by_an_older_one(tmp_path: Path) -> None:
    server = _local(tmp_path, "5.26.30")
    server.data_dir.mkdir(parents=True)
    server.store_marker.write_text("2026.08.1")
    with pytest.raises(Neo4jSetupError, match=r"FACTGRAPH_NEO4J_VERSION=2026\.08\.1"):
        server.check_store_direction()


def test_a_526_store_is_upgraded_forward_with_a_notice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = _local(tmp_path, "2026.08.1")
    server.data_dir.mkdir(parents=True)
    server.store_marker.write_text("5.26.30")
    server.check_store_direction()
    assert "will not open in 5.26.30 again" in capsys.readouterr().err
