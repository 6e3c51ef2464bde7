"""A fact's status label follows its status, so the Neo4j Browser can colour facts by status.

The Browser styles nodes by label only; factgraph mirrors `status` as one of :Active,
:Quarantined, :Superseded, :Forgotten on every write path, and labels older facts at start-up.
"""

from __future__ import annotations

import json
from pathlib import Path

from graph.bulk.importer import ImportOptions, run_import
from graph.config import Settings
from graph.memory import Memory
from graph.platform.embedding import Embedder
from graph.storage.db import Database
from graph.storage.schema import label_statuses
from tests.conftest import lives_in

STATUS_LABELS = {"Active", "Quarantined", "Superseded", "Forgotten"}


def status_labels(db: Database, fact_id: str) -> set[str]:
    records = db.driver.execute_query(
        "MATCH (f:Fact {id: $id}) RETURN labels(f) AS labels", id=fact_id
    ).records
    return set(records[0]["labels"]) & STATUS_LABELS


def test_every_lifecycle_step_moves_the_label_with_the_status(
    memory: Memory, db: Database, scope: str
) -> None:
    old = memory.remember(scope, lives_in("Sweden"))
    assert status_labels(db, old.id) == {"Active"}
    new = memory.remember(scope, lives_in("Norway"))
    assert status_labels(db, old.id) == {"Superseded"}
    assert status_labels(db, new.id) == {"Active"}

    held = memory.remember_with_decision(scope, lives_in("Berlin", source="web")).fact
    assert status_labels(db, held.id) == {"Quarantined"}
    memory.validate(scope, held.id)
    assert status_labels(db, held.id) == {"Active"}
    assert status_labels(db, new.id) == {"Superseded"}

    memory.forget(scope, held.id)
    assert status_labels(db, held.id) == {"Forgotten"}


def test_a_rejected_quarantined_fact_is_labelled_forgotten(
    memory: Memory, db: Database, scope: str
) -> None:
    held = memory.remember_with_decision(scope, lives_in("Oslo", trusted=False)).fact
    memory.reject(scope, held.id)
    assert status_labels(db, held.id) == {"Forgotten"}


def test_facts_loaded_by_the_fast_import_carry_their_status_label(
    db: Database, embedder: Embedder, settings: Settings, scope: str, tmp_path: Path
) -> None:
    bulk = Memory(db, embedder, settings=settings.with_overrides(home=tmp_path / "home"))
    rows = [
        {"id": f"{scope}-a", "text": "Caroline adopted a puppy"},
        {"id": f"{scope}-b", "text": "Caroline had a cat", "status": "superseded"},
    ]
    path = tmp_path / "facts.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    run_import(bulk, ImportOptions(path=path, scope=scope, fast=True, progress=False))
    assert status_labels(db, f"{scope}-a") == {"Active"}
    assert status_labels(db, f"{scope}-b") == {"Superseded"}


def test_facts_written_before_the_labels_get_them_at_start_up(
    memory: Memory, db: Database, scope: str
) -> None:
    old = memory.remember(scope, lives_in("Lisbon"))
    new = memory.remember(scope, lives_in("Porto"))
    db.driver.execute_query(
        "MATCH (f:Fact {scope: $scope}) REMOVE f:Active:Quarantined:Superseded:Forgotten",
        scope=scope,
    )
    assert status_labels(db, old.id) == status_labels(db, new.id) == set()

    assert label_statuses(db) >= 2  # other tests' scopes share the database
    assert status_labels(db, old.id) == {"Superseded"}
    assert status_labels(db, new.id) == {"Active"}
