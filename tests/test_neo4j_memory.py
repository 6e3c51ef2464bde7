"""The local Neo4j's heap and page cache follow the machine, unless set by hand, so a store that
grows by an import keeps fitting its page cache without a restart."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from graph.config import Settings
from graph.platform.neo4j_local import LocalNeo4j
from graph.platform.neo4j_memory import GIB, MIB, outgrown, page_cached_bytes, plan, size_bytes


def test_a_fresh_store_gets_room_to_grow_and_an_eighth_of_the_machine_as_heap() -> None:
    # Neo4j takes page cache memory as pages are used, so the ceiling costs an empty store
    # nothing and a million-fact import into it does not page until the next restart.
    chosen = plan(store_bytes=40 * MIB, machine_bytes=24 * GIB)
    assert (chosen.heap, chosen.pagecache) == ("3g", "8640m")  # 35% of 24 GiB, rounded up


def test_the_page_cache_leaves_most_of_the_machine_to_lucene_and_the_service() -> None:
    chosen = plan(store_bytes=60 * GIB, machine_bytes=24 * GIB)
    assert chosen.pagecache == "8640m"


def test_a_small_machine_still_gets_a_usable_heap_and_cache() -> None:
    chosen = plan(store_bytes=3 * GIB, machine_bytes=4 * GIB)
    assert (chosen.heap, chosen.pagecache) == ("1g", "1472m")
    assert plan(store_bytes=0, machine_bytes=1 * GIB).pagecache == "512m"  # the floor


def test_sizes_set_by_hand_are_kept() -> None:
    chosen = plan(store_bytes=4 * GIB, machine_bytes=24 * GIB, heap="1g", pagecache="512m")
    assert (chosen.heap, chosen.pagecache) == ("1g", "512m")


def test_lucene_index_files_do_not_count_towards_the_page_cache(tmp_path: Path) -> None:
    database = tmp_path / "databases" / "neo4j"
    (database / "schema" / "index" / "range-1.0" / "3").mkdir(parents=True)
    (database / "schema" / "index" / "vector-2.0" / "7").mkdir(parents=True)
    (database / "schema" / "index" / "fulltext-1.0" / "5").mkdir(parents=True)
    (database / "block.big_values.db").write_bytes(b"x" * 1000)
    (database / "schema" / "index" / "range-1.0" / "3" / "index-3").write_bytes(b"x" * 200)
    (database / "schema" / "index" / "vector-2.0" / "7" / "segment").write_bytes(b"x" * 5000)
    (database / "schema" / "index" / "fulltext-1.0" / "5" / "segment").write_bytes(b"x" * 5000)
    assert page_cached_bytes(database) == 1200
    assert page_cached_bytes(tmp_path / "missing") == 0


def test_the_written_config_carries_the_planned_sizes(settings: Settings, tmp_path: Path) -> None:
    local = replace(settings.local, home=tmp_path / "neo4j", heap="auto", pagecache="auto")
    instance = LocalNeo4j(replace(settings, local=local, neo4j_uri=None))
    expected = instance.memory_plan()
    instance.write_config()
    assert instance.configured_memory() == {
        "heap": expected.heap,
        "pagecache": expected.pagecache,
    }
    assert expected.pagecache != "512m"  # an empty store gets room to grow


def test_a_malformed_size_is_refused_with_the_variable_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FACTGRAPH_NEO4J_PAGECACHE", "lots")
    with pytest.raises(ValueError, match="FACTGRAPH_NEO4J_PAGECACHE must be 'auto' or a size"):
        Settings.from_env()


def test_a_store_that_outgrew_its_running_cache_is_noticed() -> None:
    # A server started with a smaller cache (an older rule, or a machine given more memory).
    assert size_bytes("512m") == 512 * MIB and size_bytes("3g") == 3 * GIB
    grown = plan(store_bytes=2 * GIB, machine_bytes=24 * GIB)
    assert outgrown("512m", grown)
    assert not outgrown(grown.pagecache, grown)
    assert not outgrown("3g", grown)  # the store still fits: no restart needed
    assert not outgrown("512m", plan(store_bytes=100 * MIB, machine_bytes=24 * GIB))
