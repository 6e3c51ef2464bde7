"""`factgraph export` then `factgraph import --fast`: the operator gets the same graph back."""

from __future__ import annotations

import dataclasses
import io
import json
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest

from graph.bulk.exporter import export, export_to
from graph.bulk.fileformat import FORMAT, VERSION
from graph.bulk.importer import ImportOptions, run_import
from graph.bulk.spec import translate_id
from graph.config import ConsolidationSettings, Settings
from graph.consolidation import Consolidator
from graph.memory import Memory
from graph.platform.embedding import Embedder
from graph.storage.db import Database
from graph.write.facts import FactInput
from tests.cli_helpers import cli_env, factgraph
from tests.graph_snapshot import Snapshot, snapshot


@pytest.fixture
def bulk(db: Database, embedder: Embedder, settings: Settings, tmp_path: Path) -> Memory:
    return Memory(db, embedder, settings=settings.with_overrides(home=tmp_path / "home"))


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def seed(memory: Memory, scope: str) -> dict[str, str]:
    """A scope with every kind of state: chains, statuses, aliases, metadata, extra properties."""
    facts = {
        "sweden": FactInput(
            text="Melanie lives in Sweden",
            subject="Melanie",
            predicate="lives_in",
            object="Sweden",
            tags=("home",),
            valid_from=at("2023-01-01T00:00:00"),
            recorded_at=at("2023-01-02T08:00:00"),
        ),
        "boston": FactInput(
            text="Melanie lives in Boston",
            subject="Melanie's",
            predicate="lives_in",
            object="Boston",
            tags=("home", "move"),
            valid_from=at("2024-05-01T00:00:00"),
        ),
        "denver": FactInput(
            text="Melanie lives in Denver",
            subject="melanie",
            predicate="lives_in",
            object="Denver",
            tags=("home",),
        ),
        "paints": FactInput(
            text="Caroline paints watercolours on Sundays",
            subject="Caroline",
            tags=("hobby",),
            importance=9,
            partition="people",
            source="chat",
            metadata={"confidence": 0.9, "refs": [1, 2], "note": "ünïcode"},
            session_id="session-7",
            turn=12,
            expires_at=at("2030-01-01T00:00:00"),
        ),
        "forgotten": FactInput(text="The wifi password is hunter2"),
        "doubtful": FactInput(text="Caroline is secretly a spy", subject="Caroline"),
    }
    facts = {
        key: fact
        if fact.valid_from
        else dataclasses.replace(fact, valid_from=at("2025-06-01T12:00"))
        for key, fact in facts.items()
    }
    ids = {  # straight through: the lifecycle below is scripted, not decided by the pipeline
        key: memory.remember(scope, fact, pipeline=False).id for key, fact in facts.items()
    }
    # The lifecycle, written as the write pipeline records it (test instrumentation).
    memory.db.driver.execute_query(
        """
        MATCH (sweden:Fact {id: $sweden}), (boston:Fact {id: $boston}),
              (denver:Fact {id: $denver}), (paints:Fact {id: $paints}),
              (forgotten:Fact {id: $forgotten}), (doubtful:Fact {id: $doubtful})
        SET sweden.status = 'superseded', sweden.live_hash = null,
            sweden.valid_to = datetime('2024-05-01T00:00:00Z'),
            sweden.expired_at = datetime('2024-05-02T10:00:00Z'),
            boston.status = 'superseded', boston.live_hash = null,
            boston.expired_at = datetime('2025-01-01T00:00:00Z'),
            forgotten.status = 'forgotten', forgotten.live_hash = null,
            doubtful.status = 'quarantined',
            paints.strength = 2.5, paints.access_count = 3,
            paints.last_accessed_at = datetime('2025-02-03T04:05:06.789Z'),
            paints.reviewed_by = 'ops', paints.reviewed_at = datetime('2025-02-04T00:00:00Z')
        REMOVE sweden:Active, boston:Active, forgotten:Active, doubtful:Active
        SET sweden:Superseded, boston:Superseded, forgotten:Forgotten, doubtful:Quarantined
        CREATE (boston)-[:SUPERSEDES {reason: 'moved to Boston',
                                      at: datetime('2024-05-02T10:00:00Z')}]->(sweden)
        CREATE (denver)-[:SUPERSEDES {reason: 'moved again',
                                      at: datetime('2025-01-01T00:00:00Z')}]->(boston)
        WITH 1 AS done
        MATCH (e:Entity {scope: $scope, canonical: 'melanie'})
        SET e.type = 'person'
        """,
        parameters_={"scope": scope, **ids},
        database_=memory.db.name,
    )
    return ids


def without_audit(snap: Snapshot) -> Snapshot:
    """The audit trail is history of the source database; an import records its own."""
    return dataclasses.replace(snap, audit_kinds=Counter())


def worked(memory: Memory, scope: str) -> dict[str, str]:
    """`seed`'s scope after a life in service: the consolidator has linked facts to the known
    entities they name (`mention` links), a synthesised fact is derived from its turns, a
    standing instruction carries its mark, one preference lost its mark (as `mark-standing`
    with newer patterns leaves it), and the last fact written still waits in the queue."""
    ids = seed(memory, scope)
    said = at("2025-06-02T09:00")
    turns = [
        memory.remember(
            scope,
            FactInput(text=text, session_id="s1", turn=turn, valid_from=said),
            pipeline=False,
        ).id
        for turn, text in enumerate(["I told Melanie about the move", "Caroline came too"])
    ]
    ids["told"] = turns[0]
    ids["summary"] = memory.remember_with_decision(
        scope,
        FactInput(text="Melanie and Caroline heard about the move", valid_from=said),
        derived_from=turns,
    ).fact.id
    ids["rule"] = memory.remember(
        scope, FactInput(text="Always include type hints in code examples"), pipeline=False
    ).id
    ids["liked"] = memory.remember(
        scope, FactInput(text="I prefer PostgreSQL for side projects"), pipeline=False
    ).id
    Consolidator(memory, ConsolidationSettings(time=True, mentions=True, expiry="off")).run(scope)
    memory.db.driver.execute_query(
        "MATCH (f:Fact {id: $id}) REMOVE f:Standing SET f.standing = null",
        id=ids["liked"],
        database_=memory.db.name,
    )
    ids["queued"] = memory.remember(
        scope, FactInput(text="Caroline moved to Denver last week"), pipeline=False
    ).id
    return ids


def test_a_scope_the_consolidator_worked_is_restored_exactly_by_the_cli(
    bulk: Memory, settings: Settings, scope: str, other_scope: str, tmp_path: Path
) -> None:
    ids = worked(bulk, scope)
    before = snapshot(bulk.db, scope)
    # What makes this scope hard to restore is there to be restored.
    assert (ids["told"], "mention", "melanie") in before.mentions
    assert {role for _, role, _ in before.mentions} == {"subject", "object", "mention"}
    assert len(before.derived) == 2
    assert "Standing" in before.labels[ids["rule"]]
    assert before.facts[ids["rule"]]["standing"] == "instruction"
    assert "standing" not in before.facts[ids["liked"]]
    assert "consolidation_queued_at" in before.facts[ids["queued"]]
    assert "consolidation_queued_at" not in before.facts[ids["rule"]]
    assert {f["status"] for f in before.facts.values()} == {
        "active",
        "superseded",
        "forgotten",
        "quarantined",
    }
    env = cli_env(settings, tmp_path / "home")
    out = tmp_path / "demo.jsonl"

    factgraph(env, "export", "--scope", scope, "--out", out, "--no-progress")
    dry = factgraph(env, "import", out, "--scope", other_scope, "--fast", "--dry-run")
    done = factgraph(env, "import", out, "--scope", other_scope, "--fast", "--json")

    header = json.loads(out.read_text().splitlines()[0])
    assert (header["format"], header["version"], header["scopes"]) == (FORMAT, VERSION, [scope])
    assert "rejected      0" in dry.stdout
    summary = json.loads(done.stdout)
    assert (summary["rejected"], summary["links_missing"]) == (0, 0)
    assert summary["inserted"] == len(before.facts)
    assert summary["format_version"] == VERSION
    expected = before.remapped(lambda fact_id: translate_id(other_scope, fact_id), other_scope)
    assert without_audit(snapshot(bulk.db, other_scope)) == without_audit(expected)


def test_an_import_that_rejects_a_line_fails_unless_the_loss_is_accepted(
    bulk: Memory, settings: Settings, scope: str, other_scope: str, tmp_path: Path
) -> None:
    env = cli_env(settings, tmp_path / "home")
    path = tmp_path / "facts.jsonl"
    path.write_text('{"text": "Jon plays the cello"}\n{"text": "Jon", "importance": 99}\n')

    dry = factgraph(env, "import", path, "--scope", scope, "--fast", "--dry-run", check=1)
    assert snapshot(bulk.db, scope).facts == {}
    failed = factgraph(env, "import", path, "--scope", scope, "--fast", check=1)
    accepted = factgraph(
        env, "import", path, "--scope", other_scope, "--fast", "--allow-rejects", check=0
    )

    for done in (dry, failed, accepted):
        assert "line 2: importance" in done.stdout and "rejected      1" in done.stdout
    assert "FAILED: 1 rows would be rejected" in dry.stdout
    assert "FAILED: 1 rows were rejected" in failed.stdout
    assert "FAILED" not in accepted.stdout
    assert len(snapshot(bulk.db, scope).facts) == len(snapshot(bulk.db, other_scope).facts) == 1


def test_an_export_of_a_newer_version_is_refused_whole(
    settings: Settings, scope: str, tmp_path: Path
) -> None:
    env = cli_env(settings, tmp_path / "home")
    path = tmp_path / "future.jsonl"
    header = {"format": FORMAT, "version": VERSION + 1}
    path.write_text(json.dumps(header) + '\n{"text": "from the future"}\n')

    done = factgraph(env, "import", path, "--scope", scope, "--fast", check=2)

    assert f"version {VERSION + 1}" in done.stderr and "Traceback" not in done.stderr


def test_export_then_import_into_the_emptied_scope_gives_back_every_field(
    bulk: Memory, scope: str, tmp_path: Path
) -> None:
    ids = seed(bulk, scope)
    before = snapshot(bulk.db, scope)
    assert len(before.supersedes) == 2 and len(before.facts) == 6
    assert before.entities["melanie"]["aliases"] == ["Melanie's", "melanie"]

    exported = export_to(bulk.db, tmp_path / "scope.jsonl", scopes=[scope])
    bulk.db.write("scope_delete", {"scope": scope})
    assert snapshot(bulk.db, scope).facts == {}
    summary = run_import(
        bulk, ImportOptions(path=tmp_path / "scope.jsonl", fast=True, progress=False)
    )
    after = snapshot(bulk.db, scope)

    assert (exported.facts, exported.entities) == (6, len(before.entities))
    assert (summary.inserted, summary.superseded, summary.rejected) == (6, 2, 0)
    assert summary.embedded == 0
    assert without_audit(after) == without_audit(before)
    assert after.facts[ids["paints"]]["reviewed_at"] == before.facts[ids["paints"]]["reviewed_at"]


def test_importing_an_export_into_another_scope_copies_it_under_translated_ids(
    bulk: Memory, scope: str, other_scope: str, tmp_path: Path
) -> None:
    seed(bulk, scope)
    before = snapshot(bulk.db, scope)
    export_to(bulk.db, tmp_path / "scope.jsonl", scopes=[scope])

    run_import(
        bulk,
        ImportOptions(path=tmp_path / "scope.jsonl", scope=other_scope, fast=True, progress=False),
    )
    after = snapshot(bulk.db, other_scope)

    expected = before.remapped(lambda fact_id: translate_id(other_scope, fact_id), other_scope)
    assert without_audit(after) == without_audit(expected)
    assert snapshot(bulk.db, scope) == before


def test_an_export_without_vectors_imports_with_the_same_vectors_recomputed(
    bulk: Memory, scope: str, other_scope: str
) -> None:
    seed(bulk, scope)
    before = snapshot(bulk.db, scope)
    buffer = io.StringIO()
    export(bulk.db, buffer, scopes=[scope], embeddings=False)
    header, *lines = [json.loads(line) for line in buffer.getvalue().splitlines()]
    assert header["embeddings"] is False
    assert all("embedding" not in line and "embedder" not in line for line in lines)

    path = Path(bulk.settings.home) / "no-vectors.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(buffer.getvalue(), encoding="utf-8")
    summary = run_import(
        bulk, ImportOptions(path=path, scope=other_scope, fast=True, progress=False)
    )
    after = snapshot(bulk.db, other_scope)

    assert summary.embedded == 6
    for old_id, fact in before.facts.items():
        new = after.facts[translate_id(other_scope, old_id)]
        similarity = sum(a * b for a, b in zip(new["embedding"], fact["embedding"], strict=True))
        assert similarity > 0.995  # int8 e5: batches of other texts shift a vector ~0.002
        assert new["embedder"] == fact["embedder"]


def test_export_lines_are_json_a_person_can_read(bulk: Memory, scope: str) -> None:
    ids = seed(bulk, scope)
    buffer = io.StringIO()
    export(bulk.db, buffer, scopes=[scope])
    header, *lines = [json.loads(line) for line in buffer.getvalue().splitlines()]
    assert (header["format"], header["version"], header["embeddings"]) == (FORMAT, VERSION, True)
    facts = {line["id"]: line for line in lines if "entity" not in line}
    entities = [line["entity"] for line in lines if "entity" in line]

    paints = facts[ids["paints"]]
    assert paints["metadata"] == {"confidence": 0.9, "refs": [1, 2], "note": "ünïcode"}
    assert paints["properties"] == {
        "reviewed_at": {"$datetime": "2025-02-04T00:00:00+00:00"},
        "reviewed_by": "ops",
    }
    assert paints["last_accessed_at"] == "2025-02-03T04:05:06.789000+00:00"
    assert "content_hash" not in paints and "live_hash" not in paints
    assert facts[ids["denver"]]["supersedes"] == [
        {"id": ids["boston"], "reason": "moved again", "at": "2025-01-01T00:00:00+00:00"}
    ]
    assert [e["role"] for e in facts[ids["boston"]]["entities"]] == ["subject", "object"]
    assert lines.index(facts[ids["sweden"]]) < lines.index(facts[ids["boston"]])
    assert {e["canonical"] for e in entities} >= {"melanie", "caroline", "sweden"}
    assert all(line_index > 5 for line_index, line in enumerate(lines) if "entity" in line)
