"""`factgraph import --initial`: a first load through Neo4j's offline importer.

What an operator relies on: the graph it makes is the one `import --fast` makes (facts with
their labels and properties, entities, tags, audit events, supersede links, passages), it is
searchable by full text and by vector as soon as the command returns, and a database that
already holds anything is refused with a clear message, untouched.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from factgraph.cli import main
from graph.bulk.importer import ImportOptions, run_import
from graph.bulk.initial import NotEmpty, run_initial_import
from graph.config import Settings
from graph.memory import Memory
from graph.platform.embedding import Embedder
from graph.platform.neo4j_local import LocalNeo4j
from graph.search import SearchOptions
from graph.storage import vector_shards
from graph.storage.db import Database
from tests.graph_snapshot import snapshot

SCOPE = "initial"
T0 = "2024-03-01T09:30:00+00:00"


def rows(embedder: Embedder) -> list[dict[str, Any]]:
    names = ["Ana Berg", "ana berg", "ANA  BERG", "Bo Lind"]
    texts = [
        f"{names[i % 4]} talked about the {thing} on turn {i}"
        for i, thing in enumerate(
            ["garden", "bicycle", "Q3 report", "sourdough", "Lisbon trip", "chess"] * 4
        )
    ]
    vectors = embedder.embed(texts)
    out: list[dict[str, Any]] = []
    for i, text in enumerate(texts):
        row: dict[str, Any] = {
            "id": f"fact-{i}",
            "text": text,
            "subject": names[i % 4],
            "predicate": "talked_about",
            "object": "Lisbon" if i % 5 == 0 else None,
            "tags": ["chat", f"t{i % 3}"] if i % 6 else [],
            "importance": i % 10,
            "metadata": {"n": i} if i % 4 == 0 else None,
            "session_id": f"s-{i % 3}",
            "turn": (i * 7) % 11,
            "valid_from": T0,
            "recorded_at": T0,
            "embedding": vectors[i],
        }
        if i == 9:
            row["supersedes"] = ["fact-3"]
            row.pop("embedding")  # this one the model embeds, on both paths
        out.append({k: v for k, v in row.items() if v is not None})
    # A text past the model's window: embedded in chunks on both paths (graph/write/chunks.py).
    long = "\n\n".join(
        f"Part {i}: Ana Berg planned the {thing} step by step, with every cost, every date and "
        "every person involved written down, so that nothing was left to chance on the day."
        for i, thing in enumerate(["garden", "bicycle tour", "Q3 report", "Lisbon trip"] * 5)
    )
    out.append({"id": "fact-long", "text": long, "valid_from": T0, "recorded_at": T0})
    out.append(dict(out[0]))  # an exact duplicate line
    return out


def chunk_spans(db: Database) -> dict[str, list[tuple[int, int, int]]]:
    records = db.driver.execute_query(
        "MATCH (c:Chunk {scope: $scope})-[:CHUNK_OF]->(f:Fact) "
        "RETURN f.id AS fact, c.ord AS ord, c.start AS start, c.end AS end ORDER BY fact, ord",
        scope=SCOPE,
        database_=db.name,
    ).records
    out: dict[str, list[tuple[int, int, int]]] = {}
    for r in records:
        out.setdefault(str(r["fact"]), []).append((r["ord"], r["start"], r["end"]))
    return out


@pytest.fixture
def empty_neo4j(spare_to_restart: LocalNeo4j) -> Settings:
    """The suite's spare server, emptied: the offline importer stops it, replaces its
    database and starts it again."""
    return spare_to_restart.settings


def test_initial_import_makes_the_graph_fast_import_makes_searchable_at_once(
    empty_neo4j: Settings, db: Database, embedder: Embedder, scope: str, tmp_path: Path
) -> None:
    path = tmp_path / "facts.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows(embedder)) + "\n", encoding="utf-8")

    summary = run_initial_import(empty_neo4j, ImportOptions(path=path, scope=SCOPE, progress=False))
    fast_memory = Memory(db, embedder, settings=empty_neo4j)
    run_import(fast_memory, ImportOptions(path=path, scope=SCOPE, fast=True, progress=False))

    with Memory.connect(empty_neo4j) as initial:
        offline = snapshot(initial.db, SCOPE)
        found = initial.search(SCOPE, "who talked about sourdough?", options=SearchOptions.build())
        sources = {s.list for hit in found.hits[:3] for s in hit.sources}
        lexical = initial.db.driver.execute_query(
            "CALL db.index.fulltext.queryNodes('fact_passage_fulltext', 'sourdough') "
            "YIELD node RETURN count(node) AS n",
            database_=initial.db.name,
        ).records[0]["n"]
        vector = initial.db.read(
            "fact_vector_nearest",
            {
                "index": vector_shards.index(SCOPE),
                "scope": SCOPE,
                "k": 1,
                # The supplied vector was made from the text alone (rows above).
                "vector": embedder.embed([offline.facts["fact-4"]["text"]])[0],
            },
        )[0]["id"]
        labels = initial.db.driver.execute_query(
            "MATCH (f:Fact:Active) RETURN count(f) AS n", database_=initial.db.name
        ).records[0]["n"]
        offline_chunks = chunk_spans(initial.db)
    online = snapshot(db, SCOPE)
    try:
        assert (summary.inserted, summary.deduplicated, summary.superseded) == (25, 1, 1)
        assert offline_chunks == chunk_spans(db) and len(offline_chunks["fact-long"]) >= 1
        supplied = {k for k, fact in offline.facts.items() if fact["embedder"] == "supplied"}
        vectors: list[dict[str, list[float]]] = []
        for snap in (offline, online):
            vectors.append({key: fact.pop("embedding") for key, fact in snap.facts.items()})
            for fact in snap.facts.values():
                fact.pop("updated_at")
                fact.pop("consolidation_queued_at")
            snap.entities = {k: {**v, "created_at": None} for k, v in snap.entities.items()}
            snap.supersedes = [(n, o, r, None) for n, o, r, _ in snap.supersedes]
        assert offline.facts == online.facts
        assert all(len(v) == embedder.dimensions for v in vectors[0].values())
        assert len(supplied) == len(offline.facts) - 2  # both paths store them alike (32-bit)
        assert {k: vectors[0][k] for k in supplied} == {k: vectors[1][k] for k in supplied}
        assert offline == online
        assert offline.facts["fact-3"]["passage_text"]
        assert any("sourdough" in hit.fact.text for hit in found.hits[:3])
        assert "vector" in sources
        assert lexical > 0 and vector == "fact-4" and labels == 25
    finally:
        db.driver.execute_query(
            "MATCH (n) WHERE n.scope = $s DETACH DELETE n", s=SCOPE, database_=db.name
        )


def test_initial_import_refuses_a_database_that_holds_anything(
    empty_neo4j: Settings,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    LocalNeo4j(empty_neo4j).start()
    with Memory.connect(empty_neo4j) as memory:
        memory.remember("someone", {"text": "Already here before the bulk load"})
    path = tmp_path / "facts.jsonl"
    path.write_text(json.dumps({"text": "Would replace the database"}) + "\n", encoding="utf-8")

    with pytest.raises(NotEmpty, match="empty database only"):
        run_initial_import(empty_neo4j, ImportOptions(path=path, scope=SCOPE, progress=False))
    monkeypatch.setenv("FACTGRAPH_NEO4J_HOME", str(empty_neo4j.local.home))
    monkeypatch.setenv("FACTGRAPH_NEO4J_BOLT_PORT", str(empty_neo4j.local.bolt_port))
    monkeypatch.setenv("FACTGRAPH_NEO4J_HTTP_PORT", str(empty_neo4j.local.http_port))
    code = main(["import", str(path), "--scope", SCOPE, "--initial", "--no-progress"])
    err = capsys.readouterr().err

    with Memory.connect(empty_neo4j) as memory:
        kept = memory.db.driver.execute_query(
            "MATCH (f:Fact) RETURN collect(f.text) AS t", database_=memory.db.name
        ).records[0]["t"]
    assert kept == ["Already here before the bulk load"]
    assert code == 2 and "empty database only" in err and "import --fast" in err
    assert "Traceback" not in err
