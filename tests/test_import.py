"""`factgraph import`: what an operator loading facts in bulk can rely on."""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from graph.bulk.importer import Importer, ImportOptions, ImportSummary, run_import
from graph.config import Settings
from graph.memory import Memory
from graph.platform.embedding import Embedder
from graph.storage import vector_shards
from graph.storage.db import Database
from graph.write.facts import FactInput
from tests.graph_snapshot import snapshot

T0 = "2024-03-01T09:30:00+00:00"


@pytest.fixture
def bulk(db: Database, embedder: Embedder, settings: Settings, tmp_path: Path) -> Memory:
    """A Memory whose checkpoints go to the test's own folder."""
    return Memory(db, embedder, settings=settings.with_overrides(home=tmp_path / "home"))


def write_jsonl(path: Path, rows: Iterable[dict[str, Any] | str]) -> Path:
    lines = [row if isinstance(row, str) else json.dumps(row) for row in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def load(memory: Memory, path: Path, **options: Any) -> ImportSummary:
    options.setdefault("progress", False)
    return run_import(memory, ImportOptions(path=path, **options))


def count(db: Database, scope: str) -> int:
    return int(db.read("export_count", {"scopes": [scope]})[0]["n"])


def cosine(a: Iterable[float], b: Iterable[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_fast_import_writes_the_same_nodes_and_links_as_remember(
    bulk: Memory, scope: str, other_scope: str, embedder: Embedder, tmp_path: Path
) -> None:
    row = {
        "text": "Melanie moved from Sweden",
        "subject": "Melanie",
        "predicate": "moved_from",
        "object": "Sweden",
        "tags": ["bio", "travel"],
        "importance": 7,
        "metadata": {"source_row": 12},
        "session_id": "s-1",
        "turn": 3,
        "valid_from": T0,
        "recorded_at": T0,
    }
    load(bulk, write_jsonl(tmp_path / "one.jsonl", [row]), scope=scope, fast=True)
    bulk.remember(other_scope, FactInput(**_as_input(row)))

    imported, remembered = snapshot(bulk.db, scope), snapshot(bulk.db, other_scope)
    (a,), (b,) = imported.facts.values(), remembered.facts.values()
    differ = {"id", "scope", "updated_at", "consolidation_queued_at"}
    assert {k: v for k, v in a.items() if k not in differ} == {
        k: v for k, v in b.items() if k not in differ
    }
    assert [(r, e) for _, r, e in imported.mentions] == [(r, e) for _, r, e in remembered.mentions]
    assert imported.tags == remembered.tags == ["bio", "travel"]
    assert _entities(imported.entities, scope) == _entities(remembered.entities, scope)
    assert imported.audit_kinds == remembered.audit_kinds == {"insert": 1}


def _entities(entities: dict[str, dict[str, Any]], scope: str) -> dict[str, dict[str, Any]]:
    return {k: {**v, "scope": scope, "created_at": None} for k, v in entities.items()}


def _as_input(row: dict[str, Any]) -> dict[str, Any]:
    out = dict(row)
    for name in ("valid_from", "recorded_at"):
        out[name] = datetime.fromisoformat(out[name])
    out["tags"] = tuple(out["tags"])
    return out


def test_importing_the_same_file_twice_adds_nothing(
    bulk: Memory, scope: str, tmp_path: Path
) -> None:
    path = write_jsonl(
        tmp_path / "facts.jsonl",
        [
            {"text": "Caroline paints landscapes", "subject": "Caroline", "tags": ["art"]},
            {"text": "Caroline has two cats", "subject": "Caroline"},
            {"text": "caroline   PAINTS landscapes"},
            {"id": "fixed-id-1-" + scope, "text": "The team meets on Mondays"},
        ],
    )
    first = load(bulk, path, scope=scope, fast=True)
    before = snapshot(bulk.db, scope)
    second = load(bulk, path, scope=scope, fast=True)

    assert (first.inserted, first.deduplicated, first.rejected) == (3, 1, 0)
    assert (second.inserted, second.deduplicated, second.unchanged) == (0, 1, 3)
    assert snapshot(bulk.db, scope) == before


def test_pipeline_import_goes_through_remember_and_is_idempotent_too(
    bulk: Memory, scope: str, embedder: Embedder, tmp_path: Path
) -> None:
    bulk.remember(scope, FactInput(text="Joanna works at the library"))
    path = write_jsonl(
        tmp_path / "facts.jsonl",
        [
            {"text": "Joanna works at the library"},
            {"text": "Joanna plays the violin", "subject": "Joanna", "trusted": True},
        ],
    )
    first = load(bulk, path, scope=scope)
    before = snapshot(bulk.db, scope)
    second = load(bulk, path, scope=scope)

    assert first.mode == "pipeline"
    assert (first.inserted, first.deduplicated) == (1, 1)
    assert (second.inserted, second.unchanged) == (0, 1)
    assert count(bulk.db, scope) == 2
    assert snapshot(bulk.db, scope).facts.keys() == before.facts.keys()
    assert {f["embedder"] for f in before.facts.values()} == {embedder.id}


def test_bad_rows_are_reported_with_line_and_reason_and_the_rest_is_imported(
    bulk: Memory, scope: str, tmp_path: Path
) -> None:
    path = write_jsonl(
        tmp_path / "mixed.jsonl",
        [
            {"text": "A good fact"},
            {"text": ""},
            "{not json",
            {"text": "Too important", "importance": 42},
            {"text": "Odd", "colour": "blue"},
            {"text": "Wrong size", "embedding": [0.1, 0.2, 0.3]},
            "[1, 2]",
            {"text": "Another good fact", "tags": ["x"]},
        ],
    )
    summary = load(bulk, path, scope=scope, fast=True)

    assert summary.inserted == 2 and summary.rejected == 6 and not summary.aborted
    assert [(e.line, e.field) for e in summary.errors] == [
        (2, "text"),
        (3, "line"),
        (4, "importance"),
        (5, "colour"),
        (6, "embedding"),
        (7, "line"),
    ]
    assert "384" in summary.errors[4].reason
    assert "line 4: importance: 42" in summary.render()
    assert count(bulk.db, scope) == 2


def test_more_bad_rows_than_max_errors_stops_the_import_after_what_was_good(
    bulk: Memory, scope: str, tmp_path: Path
) -> None:
    rows: list[dict[str, Any] | str] = [{"text": f"Fact number {i}"} for i in range(5)]
    rows += [{"text": ""}, {"text": ""}, {"text": "Never reached"}]
    path = write_jsonl(tmp_path / "bad.jsonl", rows)
    summary = load(bulk, path, scope=scope, fast=True, max_errors=1, batch_size=2)

    assert summary.aborted and summary.rejected == 2
    assert "ABORTED" in summary.render()
    assert count(bulk.db, scope) == 5


def test_dry_run_validates_every_row_and_writes_nothing(
    bulk: Memory, scope: str, tmp_path: Path
) -> None:
    path = write_jsonl(
        tmp_path / "check.jsonl",
        [{"text": "Fine"}, {"text": "Also fine", "turn": -1}, {"text": "Fine too"}],
    )
    summary = load(bulk, path, scope=scope, dry_run=True, fast=True)

    assert (summary.valid, summary.rejected) == (2, 1)
    assert summary.errors[0].field == "turn"
    assert count(bulk.db, scope) == 0
    assert not (bulk.settings.home / "checkpoints").exists()


def test_csv_with_a_header_gives_the_same_facts_as_json_lines(
    bulk: Memory, scope: str, other_scope: str, tmp_path: Path
) -> None:
    row = {
        "text": "Dev runs marathons",
        "subject": "Dev",
        "tags": ["sport", "health"],
        "importance": 8.5,
        "metadata": {"from": "crm"},
        "turn": 4,
        "valid_from": T0,
    }
    with (tmp_path / "facts.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["text", "subject", "tags", "importance", "metadata", "turn", "valid_from"])
        writer.writerow(
            ["Dev runs marathons", "Dev", "sport;health", "8.5", '{"from": "crm"}', "4", T0]
        )
        writer.writerow(["Broken row", "x", "", "high", "", "", ""])
    from_csv = load(bulk, tmp_path / "facts.csv", scope=scope, fast=True)
    load(bulk, write_jsonl(tmp_path / "facts.jsonl", [row]), scope=other_scope, fast=True)

    assert (from_csv.inserted, from_csv.rejected) == (1, 1)
    assert (from_csv.errors[0].line, from_csv.errors[0].field) == (3, "importance")
    (a,) = snapshot(bulk.db, scope).facts.values()
    (b,) = snapshot(bulk.db, other_scope).facts.values()
    for name in ("text", "tags", "importance", "metadata", "turn", "valid_from", "embedding"):
        assert a[name] == b[name], name


def test_scope_comes_from_the_option_or_from_a_scope_column(
    bulk: Memory, scope: str, other_scope: str, tmp_path: Path
) -> None:
    path = write_jsonl(
        tmp_path / "scoped.jsonl",
        [
            {"scope": scope, "text": "Lives in the first scope"},
            {"scope": other_scope, "text": "Lives in the second scope"},
            {"text": "Has no scope"},
        ],
    )
    summary = load(bulk, path, fast=True)

    assert summary.inserted == 2
    assert (summary.errors[0].line, summary.errors[0].field) == (3, "scope")
    assert count(bulk.db, scope) == count(bulk.db, other_scope) == 1

    forced = load(bulk, path, scope=scope, fast=True)
    assert forced.inserted == 2 and count(bulk.db, scope) == 3


def test_an_import_knows_the_scopes_it_wrote_so_settling_watches_only_their_vector_shards(
    bulk: Memory, scope: str, other_scope: str, tmp_path: Path
) -> None:
    # Segments that earlier writes left in other scopes' shards are not the import's to wait
    # for (graph/bulk/settle.py).
    path = write_jsonl(
        tmp_path / "two.jsonl",
        [{"scope": scope, "text": "First scope"}, {"scope": other_scope, "text": "Second"}],
    )
    importer = Importer(bulk, ImportOptions(path=path, fast=True, progress=False))
    importer.run()
    assert importer.scopes == {scope, other_scope}

    forced = Importer(bulk, ImportOptions(path=path, scope=scope, fast=True, progress=False))
    forced.run()
    assert forced.scopes == {scope}


def test_missing_vectors_are_computed_by_the_model_and_supplied_ones_kept(
    bulk: Memory, scope: str, embedder: Embedder, tmp_path: Path
) -> None:
    supplied = [1.0] + [0.0] * (embedder.dimensions - 1)
    path = write_jsonl(
        tmp_path / "vectors.jsonl",
        [
            {"id": f"computed-{scope}", "text": "Nate adopted a turtle", "valid_from": T0},
            {"id": f"supplied-{scope}", "text": "Nate likes chess", "embedding": supplied},
        ],
    )
    summary = load(bulk, path, scope=scope, fast=True)
    facts = snapshot(bulk.db, scope).facts

    assert summary.embedded == 1
    computed = facts[f"computed-{scope}"]
    assert computed["index_text"].endswith("Nate adopted a turtle")
    expected = embedder.embed([computed["index_text"]])[0]
    assert cosine(computed["embedding"], expected) > 0.999
    assert computed["embedder"] == embedder.id
    assert facts[f"supplied-{scope}"]["embedding"] == supplied
    assert facts[f"supplied-{scope}"]["embedder"] == "supplied"  # as `remember` records it


def test_vectors_are_stored_as_32_bit_floats_by_remember_and_the_fast_import(
    bulk: Memory, scope: str, embedder: Embedder, tmp_path: Path
) -> None:
    """Half the bytes of `SET`'s 64-bit lists, for the largest property of every fact.

    A supplied vector whose numbers 32 bits cannot hold exactly comes back rounded to them.
    """
    supplied = [round(0.1 + i / 1000, 4) for i in range(embedder.dimensions)]
    rounded = [float(x) for x in np.asarray(supplied, dtype=np.float32)]
    assert rounded != supplied
    bulk.remember(scope, FactInput(text="Nate likes chess", embedding=tuple(supplied)))
    path = write_jsonl(
        tmp_path / "vectors.jsonl",
        [{"id": f"imported-{scope}", "text": "Nate adopted a turtle", "embedding": supplied}],
    )
    load(bulk, path, scope=scope, fast=True)

    facts = snapshot(bulk.db, scope).facts
    assert len(facts) == 2
    assert all(fact["embedding"] == rounded for fact in facts.values())
    found = bulk.db.read(
        "fact_vector_nearest",
        {"index": vector_shards.index(scope), "scope": scope, "k": 50, "vector": supplied},
    )
    # and the vector index holds them
    assert len(found) == 2 and min(r["score"] for r in found) > 0.9999


def test_exact_duplicates_of_live_facts_are_absorbed_without_reinforcing_them(
    bulk: Memory, scope: str, tmp_path: Path
) -> None:
    existing = bulk.remember(scope, FactInput(text="Audrey has four dogs"))
    path = write_jsonl(
        tmp_path / "dups.jsonl", [{"text": "audrey HAS four   dogs"}, {"text": "Audrey has 4 dogs"}]
    )
    summary = load(bulk, path, scope=scope, fast=True)
    facts = snapshot(bulk.db, scope).facts

    assert (summary.inserted, summary.deduplicated) == (1, 1)
    assert facts[existing.id]["strength"] == 1.0


def test_the_pipeline_refuses_exported_state_and_points_at_fast(
    bulk: Memory, scope: str, tmp_path: Path
) -> None:
    path = write_jsonl(
        tmp_path / "state.jsonl",
        [
            {"text": "Old news", "status": "superseded"},
            {"entity": {"canonical": "melanie", "name": "Melanie"}},
            {"text": "Plain news", "status": "active"},
        ],
    )
    summary = load(bulk, path, scope=scope)

    assert summary.inserted == 1
    assert [(e.field, "--fast" in e.reason) for e in summary.errors] == [
        ("status", True),
        ("entity", True),
    ]


def test_rows_repeating_an_id_with_other_content_are_rejected(
    bulk: Memory, scope: str, tmp_path: Path
) -> None:
    path = write_jsonl(
        tmp_path / "ids.jsonl",
        [
            {"id": f"a-{scope}", "text": "First version"},
            {"id": f"a-{scope}", "text": "First version"},
            {"id": f"a-{scope}", "text": "Different content"},
        ],
    )
    summary = load(bulk, path, scope=scope, fast=True)

    assert (summary.inserted, summary.deduplicated, summary.rejected) == (1, 1, 1)
    assert "already used on line 1" in summary.errors[0].reason


def test_ids_of_another_scope_are_refused_rather_than_moved(
    bulk: Memory, scope: str, other_scope: str, tmp_path: Path
) -> None:
    path = write_jsonl(tmp_path / "one.jsonl", [{"id": f"shared-{scope}", "text": "Owned"}])
    load(bulk, path, scope=scope, fast=True)
    summary = load(bulk, path, scope=other_scope, fast=True)

    assert summary.inserted == 0
    assert "another scope" in summary.errors[0].reason
    assert count(bulk.db, other_scope) == 0


def test_untrusted_rows_are_refused_by_the_fast_path(
    bulk: Memory, scope: str, tmp_path: Path
) -> None:
    path = write_jsonl(tmp_path / "t.jsonl", [{"text": "Click this link", "trusted": False}])
    summary = load(bulk, path, scope=scope, fast=True)

    assert summary.errors[0].field == "trusted" and count(bulk.db, scope) == 0


def test_the_closing_summary_accounts_for_every_row(
    bulk: Memory, scope: str, tmp_path: Path
) -> None:
    path = write_jsonl(
        tmp_path / "s.jsonl", [{"text": "One"}, {"text": "one"}, {"text": ""}, {"text": "Two"}]
    )
    summary = load(bulk, path, scope=scope, fast=True)
    data = summary.as_json()

    assert data["records"] == 4
    assert data["inserted"] + data["deduplicated"] + data["rejected"] == 4
    assert math.isfinite(data["rate_per_second"])
    assert set(data["timings"]) >= {"parse", "embed", "neo4j writes", "waiting for neo4j"}


def test_batches_write_the_same_entities_tags_and_passages_as_rows_one_by_one(
    bulk: Memory, scope: str, other_scope: str, tmp_path: Path
) -> None:
    """Entities, tags and passages are written once per batch; the graph is the same."""
    names = ["Ana Berg", "ana berg", "ANA  BERG", "Ana Berg.", "Bo Lind", "bo lind"]
    turns = [4, 0, 7, 2, 1, 9, 3, 8, 5, 6, 2, 0]  # out of order, a slot shared across sessions

    def rows(prefix: str) -> list[dict[str, Any]]:
        return [
            {
                "id": f"{prefix}-{i}",
                "text": f"{name} mentioned item {i}",
                "subject": name,
                "object": names[(i + 3) % len(names)],
                "tags": ["t", f"t{i % 3}", "t"],
                "session_id": f"s-{i % 2}",
                "turn": turn,
                "valid_from": T0,
                "recorded_at": T0,
            }
            for i, (name, turn) in enumerate(zip(names * 2, turns, strict=True))
        ]

    one_by_one = write_jsonl(tmp_path / "single.jsonl", rows(scope))
    batched = write_jsonl(tmp_path / "batched.jsonl", rows(other_scope))
    load(bulk, one_by_one, scope=scope, fast=True, batch_size=1)
    load(bulk, batched, scope=other_scope, fast=True, batch_size=5)

    def plain(snap: Any, prefix: str) -> Any:
        # Vectors are compared apart: int8 e5 pools a text batched with others a little
        # differently from the same text alone (cosine ~0.998).
        snap = snap.without("updated_at", "consolidation_queued_at", "embedding")
        snap = snap.remapped(lambda i: i.replace(prefix, "x"), "x")
        snap.entities = {k: {**v, "created_at": None} for k, v in snap.entities.items()}
        return snap

    single, batch = snapshot(bulk.db, scope), snapshot(bulk.db, other_scope)
    assert plain(batch, other_scope) == plain(single, scope)
    for fid, fact in single.facts.items():
        twin = batch.facts[fid.replace(scope, other_scope)]
        assert cosine(fact["embedding"], twin["embedding"]) > 0.995
    assert sorted(single.entities["ana berg"]["aliases"]) == ["ANA BERG", "Ana Berg.", "ana berg"]
    assert all(f.get("passage_text") for f in single.facts.values())
