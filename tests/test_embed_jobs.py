"""Cypher loads finished by `factgraph embed --missing`; `factgraph reembed` on a model change."""

from __future__ import annotations

import csv
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

import pytest

from graph.bulk.autocommit import run_autocommit
from graph.bulk.embedjobs import embed_missing, reembed
from graph.bulk.spec import known_fact_properties
from graph.config import Settings
from graph.memory import Memory
from graph.platform.embedding import Embedder
from graph.platform.neo4j_local import LocalNeo4j
from graph.storage import vector_shards
from graph.storage.db import Database
from graph.storage.schema import apply_schema
from graph.write.facts import FactInput
from graph.write.indexing import content_hash
from tests.graph_snapshot import snapshot


@pytest.fixture
def bulk(db: Database, embedder: Embedder, settings: Settings, tmp_path: Path) -> Memory:
    return Memory(db, embedder, settings=settings.with_overrides(home=tmp_path / "home"))


def cosine(a: Iterable[float], b: Iterable[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_rows_loaded_by_the_cypher_template_become_remembered_facts_after_embed_missing(
    bulk: Memory, scope: str, embedder: Embedder
) -> None:
    remembered = bulk.remember(scope, FactInput(text="Caroline moved to Lisbon"))
    rows = [
        {
            "id": f"{scope}-1",
            "text": "Melanie adopted a greyhound",
            "subject": "Melanie",
            "predicate": "adopted",
            "object": "greyhound",
            "tags": ["pets"],
            "importance": 6,
            "metadata": '{"origin": "crm"}',
            "valid_from": "2024-04-01T09:00:00Z",
        },
        {"id": f"{scope}-2", "text": "caroline MOVED to lisbon"},
    ]
    loaded = bulk.db.write("import_template_rows", {"scope": scope, "rows": rows})
    assert loaded[0]["loaded"] == 2
    assert snapshot(bulk.db, scope).facts[f"{scope}-1"].get("embedding") is None

    summary = embed_missing(bulk, scopes=[scope])
    again = embed_missing(bulk, scopes=[scope])
    after = snapshot(bulk.db, scope)

    assert (summary.completed, summary.deduplicated, summary.invalid) == (1, 1, [])
    assert (again.completed, again.deduplicated) == (0, 0)
    assert set(after.facts) == {remembered.id, f"{scope}-1"}
    assert after.facts[remembered.id]["strength"] == 2.0
    loaded_fact = after.facts[f"{scope}-1"]
    reinforced = set(after.facts[remembered.id]) - {"last_accessed_at"}
    assert reinforced <= set(loaded_fact) <= known_fact_properties()
    assert loaded_fact["content_hash"] == content_hash("Melanie adopted a greyhound")
    assert loaded_fact["live_hash"] == loaded_fact["content_hash"]
    assert loaded_fact["index_text"].startswith("[about Melanie; on 01 April 2024]")
    vector = embedder.embed([loaded_fact["index_text"]])[0]
    # Same text, same model; int8 e5 pools a padded batch a little differently (~0.998).
    assert cosine(loaded_fact["embedding"], vector) > 0.995
    assert loaded_fact["subject_key"] == "melanie"
    assert (f"{scope}-1", "object", "greyhound") in after.mentions
    assert (f"{scope}-1", "subject", "melanie") in after.mentions
    assert (f"{scope}-1", "pets") in after.tagged
    assert after.audit_kinds["insert"] == 2 and after.audit_kinds["dedup"] == 1


def test_a_standing_instruction_loaded_by_cypher_is_one_after_embed_missing(
    bulk: Memory, scope: str
) -> None:
    rows = [
        {"id": f"{scope}-rule", "text": "Always include type hints in Python code."},
        {"id": f"{scope}-plain", "text": "The deploy ran on Friday."},
    ]
    bulk.db.write("import_template_rows", {"scope": scope, "rows": rows})
    embed_missing(bulk, scopes=[scope])
    listed = bulk.standing(scope)
    assert [(f.id, f.standing) for f in listed] == [(f"{scope}-rule", "instruction")]
    found = bulk.search(scope, "write a function that parses a CSV file")
    assert [s.fact.id for s in found.standing] == [f"{scope}-rule"]


def test_load_csv_template_commits_in_batches_and_embed_missing_completes_the_rows(
    bulk: Memory, scope: str, settings: Settings
) -> None:
    if not settings.uses_local_neo4j:
        pytest.skip("LOAD CSV reads from the server's import folder; NEO4J_URI is external")
    csv_path = settings.local.home / "import" / f"{scope}.csv"
    with csv_path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "text", "subject", "tags", "importance", "turn", "valid_from"])
        for i in range(30):
            writer.writerow(
                [
                    f"{scope}-{i}",
                    f"Jon practised scales on day {i}",
                    "Jon",
                    "music;daily",
                    "",
                    i,
                    "",
                ]
            )
        writer.writerow(["", "A row without an id", "", "", "3", "", "2024-01-01T00:00:00Z"])
    try:
        url = f"file:///{csv_path.name}"
        run_autocommit(bulk.db, "import_template_csv", {"scope": scope, "url": url})
    finally:
        csv_path.unlink()
    loaded = snapshot(bulk.db, scope)
    summary = embed_missing(bulk, scopes=[scope], batch_size=8)
    after = snapshot(bulk.db, scope)

    assert len(loaded.facts) == 31
    assert loaded.facts[f"{scope}-3"]["tags"] == ["music", "daily"]
    assert loaded.facts[f"{scope}-3"]["importance"] == 5.0
    assert "subject" not in next(f for f in loaded.facts.values() if f["importance"] == 3.0)
    assert summary.completed == 31
    assert all(len(f["embedding"]) == 384 for f in after.facts.values())
    assert sum(1 for m in after.mentions if m[2] == "jon") == 30


def test_embed_missing_names_invalid_facts_and_leaves_them_untouched(
    bulk: Memory, scope: str
) -> None:
    rows = [
        {"id": f"{scope}-ok", "text": "Maria bakes sourdough"},
        {"id": f"{scope}-bad", "text": "Maria is very important", "importance": 42},
    ]
    bulk.db.write("import_template_rows", {"scope": scope, "rows": rows})
    summary = embed_missing(bulk, scopes=[scope])
    facts = snapshot(bulk.db, scope).facts

    assert summary.completed == 1
    assert summary.invalid == [(f"{scope}-bad", "importance", "42.0 is outside 0..10")]
    assert "embedding" not in facts[f"{scope}-bad"]
    assert f"{scope}-bad: importance" in summary.render()


def test_reembed_replaces_vectors_of_another_model_in_resumable_batches(
    bulk: Memory, scope: str, embedder: Embedder, settings: Settings, tmp_path: Path
) -> None:
    facts = [FactInput(text=f"Audrey walked her dogs on day {i}") for i in range(5)]
    ids = [bulk.remember(scope, fact, pipeline=False).id for fact in facts]  # no near-dup merge
    bulk.db.driver.execute_query(
        "MATCH (f:Fact {scope: $scope}) "
        "SET f.embedder = 'old-model@384', f.embedding = [x IN f.embedding | 0.0 - x]",
        scope=scope,
        database_=bulk.db.name,
    )
    home = settings.with_overrides(home=tmp_path / "home")

    first = reembed(bulk.db, embedder, home, scopes=[scope], batch_size=2, max_batches=1)
    second = reembed(bulk.db, embedder, home, scopes=[scope], batch_size=2)
    after = snapshot(bulk.db, scope).facts

    assert (first.reembedded, first.finished, first.rebuilt) == (2, False, False)
    assert "run `factgraph reembed` again" in first.render()
    assert (second.reembedded, second.finished) == (3, True)
    for fact_id in ids:
        fact = after[fact_id]
        assert fact["embedder"] == embedder.id
        # Batched with other texts, int8 e5 pools a text a little differently (~0.998).
        assert cosine(fact["embedding"], embedder.embed([fact["index_text"]])[0]) > 0.995


@pytest.mark.slow
def test_reembed_rebuilds_the_vector_index_at_the_new_models_dimension(
    empty_store: Database, spare_neo4j: LocalNeo4j, embedder: Embedder, tmp_path: Path
) -> None:
    """On a second server (the suite's vector index is never dropped under other tests)."""
    other = replace(spare_neo4j.settings, home=tmp_path / "home")
    db = empty_store
    apply_schema(db, 3, "old-model@3")
    texts = ["Nate collects vintage stamps", "The quarterly report is due Friday"]
    db.driver.execute_query(
        "UNWIND range(0, size($texts) - 1) AS i "
        "CREATE (:Fact {id: 'f' + i, scope: 's', text: $texts[i], index_text: $texts[i], "
        "status: 'active', embedding: [1.0, 0.0, 0.0], embedder: 'old-model@3'})",
        texts=texts,
        database_=db.name,
    )
    summary = reembed(db, embedder, other, batch_size=1)
    query = embedder.embed_query("who collects stamps?")
    records = db.read(
        "fact_vector_nearest",
        # 5.26: the shard the schema step of reembed labelled the facts with
        {"index": vector_shards.index("s"), "scope": "s", "k": 1, "vector": list(query)},
    )

    assert (summary.rebuilt, summary.old_dimensions, summary.new_dimensions) == (True, 3, 384)
    assert summary.reembedded == 2
    assert "3 -> 384" in summary.render()
    assert [r["id"] for r in records] == ["f0"]
