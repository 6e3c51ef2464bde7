"""Vectors split over sixteen indexes by scope, so a small scope beside a large one stays fast.

What an operator and a user rely on: every fact carries the label of its scope's shard, whichever
way it was written; a search and the write pipeline's neighbour lookup ask that shard's index;
and a store of an earlier version, with one index over every vector, is moved to the shards at
start-up without losing a vector. Neo4j 5.26 only: 2026.01+ filters by scope inside one index
(tests/test_neo4j_versions.py, tests/test_search_selective.py); facts keep their label there.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graph.bulk.importer import ImportOptions, run_import
from graph.memory import Memory
from graph.platform.embedding import Embedder
from graph.search.candidates import shares
from graph.storage import vector_shards
from graph.storage.db import Database
from graph.storage.schema import apply_schema, index_states
from graph.write.facts import FactInput


def scopes_in_two_shards(prefix: str) -> tuple[str, str]:
    first = f"{prefix}-a"
    for n in range(100):
        other = f"{prefix}-b{n}"
        if vector_shards.shard_of(other) != vector_shards.shard_of(first):
            return first, other
    raise AssertionError("no two shards among 100 names")


def labels_of(db: Database, scope: str) -> list[list[str]]:
    records, _, _ = db.driver.execute_query(
        "MATCH (f:Fact {scope: $scope}) RETURN labels(f) AS labels ORDER BY f.id",
        scope=scope,
        database_=db.name,
    )
    return [sorted(r["labels"]) for r in records]


def index_hits(db: Database, index: str, vector: list[float], scope: str) -> int:
    records, _, _ = db.driver.execute_query(
        "CALL db.index.vector.queryNodes($index, 100, $vector) YIELD node "
        "WHERE node.scope = $scope RETURN count(node) AS n",
        index=index,
        vector=vector,
        scope=scope,
        database_=db.name,
    )
    return int(records[0]["n"])


def test_the_shard_is_a_stable_function_of_the_scope_name() -> None:
    assert vector_shards.shard_of("acme") == vector_shards.shard_of("acme")
    assert {vector_shards.shard_of(f"tenant-{n}") for n in range(200)} == set(range(16))
    assert vector_shards.label("acme") == f"VectorShard{vector_shards.shard_of('acme'):02d}"
    assert vector_shards.index("acme") == f"fact_embedding_{vector_shards.shard_of('acme'):02d}"


@pytest.fixture
def shards(db: Database) -> None:
    """The shard indexes exist on Neo4j 5.26 only."""
    if db.server_version.in_index_filters:
        pytest.skip("Neo4j 2026.01+ has one vector index filtered by scope, no shards")


@pytest.mark.usefixtures("shards")
def test_facts_remembered_and_imported_carry_their_shard_label_and_live_in_its_index_only(
    memory: Memory, scope: str, embedder: Embedder, tmp_path: Path
) -> None:
    mine, theirs = scopes_in_two_shards(scope)
    memory.remember(mine, FactInput(text="Nate adopted a turtle named Shelly"))
    path = tmp_path / "facts.jsonl"
    path.write_text(json.dumps({"text": "Nate's turtle likes strawberries"}) + "\n")
    run_import(memory, ImportOptions(path=path, scope=mine, fast=True, progress=False))
    memory.remember(theirs, FactInput(text="Joanna writes screenplays"))

    assert labels_of(memory.db, mine) == [["Active", "Fact", vector_shards.label(mine)]] * 2
    assert labels_of(memory.db, theirs) == [["Active", "Fact", vector_shards.label(theirs)]]
    query = list(embedder.embed_query("what pet does Nate have?"))
    assert index_hits(memory.db, vector_shards.index(mine), query, mine) == 2
    assert index_hits(memory.db, vector_shards.index(theirs), query, mine) == 0
    found = memory.search(mine, "what pet does Nate have?", mode="vector")
    assert {h.fact.text for h in found.hits} == {
        "Nate adopted a turtle named Shelly",
        "Nate's turtle likes strawberries",
    }


def test_a_scopes_share_is_taken_of_its_own_shard(memory: Memory, scope: str) -> None:
    """How wide the shard's index is asked depends on the scope's part of that shard alone."""
    memory.remember(scope, FactInput(text="Caroline moved to Lisbon"))
    size = shares.share(memory.db, scope)
    records, _, _ = memory.db.driver.execute_query(
        "MATCH (f:Fact) WHERE $label IN labels(f) RETURN count(f) AS n",
        label=vector_shards.label(scope),
        database_=memory.db.name,
    )
    assert size.live == 1
    assert size.total == records[0]["n"]


@pytest.fixture
def private(empty_store: Database) -> Database:
    """A server of its own (the suite's spare one, emptied): the test drops and recreates
    vector indexes."""
    return empty_store


@pytest.mark.usefixtures("shards")
def test_a_store_with_the_single_vector_index_of_earlier_versions_moves_to_shards_at_start_up(
    private: Database, embedder: Embedder
) -> None:
    db = private
    texts = ["Nate collects vintage stamps", "The quarterly report is due Friday"]
    db.driver.execute_query(
        "CREATE VECTOR INDEX fact_embedding FOR (f:Fact) ON (f.embedding) OPTIONS {indexConfig: "
        "{`vector.dimensions`: $d, `vector.similarity_function`: 'cosine'}}",
        d=embedder.dimensions,
        database_=db.name,
    )
    db.driver.execute_query(
        "UNWIND range(0, size($texts) - 1) AS i "
        "CREATE (:Fact:Active {id: 'f' + i, scope: 'old', text: $texts[i], status: 'active', "
        "embedding: $vectors[i]})",
        texts=texts,
        vectors=[list(v) for v in embedder.embed(texts)],
        database_=db.name,
    )

    apply_schema(db, embedder.dimensions, embedder.id)

    states = {s.name: s.state for s in index_states(db)}
    assert "fact_embedding" not in states
    assert all(states[name] == "ONLINE" for name in vector_shards.INDEXES)
    assert labels_of(db, "old") == [["Active", "Fact", vector_shards.label("old")]] * 2
    query = list(embedder.embed_query("who collects stamps?"))
    records, _, _ = db.driver.execute_query(
        "CALL db.index.vector.queryNodes($index, 1, $v) YIELD node RETURN node.id AS id",
        index=vector_shards.index("old"),
        v=query,
        database_=db.name,
    )
    assert [r["id"] for r in records] == ["f0"]
