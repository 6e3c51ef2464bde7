"""A killed `factgraph import`, run again, ends exactly where one clean import ends.

The import runs as a real process (`.venv/bin/factgraph import ...`) and is killed with SIGKILL
in the middle of its work: no clean-up code runs, whatever was committed stays committed.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from graph.bulk.spec import translate_id
from graph.config import Settings
from graph.storage.db import Database
from tests.cli_helpers import FACTGRAPH, cli_env
from tests.graph_snapshot import Snapshot, snapshot

NAMES = ["Melanie", "Caroline", "Joanna", "Nate", "Audrey", "Dev", "Maria", "Jon"]
THINGS = ["painting", "chess", "running", "jazz", "sailing", "baking", "cycling", "poetry"]

pytestmark = pytest.mark.slow


def unit_vector(rng: random.Random, dimensions: int) -> list[float]:
    raw = [rng.gauss(0.0, 1.0) for _ in range(dimensions)]
    norm = sum(x * x for x in raw) ** 0.5
    return [round(x / norm, 6) for x in raw]


def generate(path: Path, rows: int, *, state: bool, dimensions: int = 384) -> list[str]:
    """Rows with ids from an 'origin' scope, vectors supplied, duplicates and chains mixed in."""
    rng = random.Random(7)
    ids: list[str] = []
    with path.open("w", encoding="utf-8") as out:
        for i in range(rows):
            name, thing = NAMES[i % len(NAMES)], THINGS[(i // len(NAMES)) % len(THINGS)]
            text = f"{name} took up {thing} in week {i}"
            if i % 97 == 5:
                text = f"{NAMES[(i - 1) % len(NAMES)]} took up {THINGS[0]} in week {i - 1}"
            row: dict[str, Any] = {
                "id": f"origin-{i}",
                "scope": "origin",
                "text": text,
                "subject": name,
                "predicate": "took_up",
                "object": thing,
                "tags": [thing, f"week-{i % 5}"],
                "session_id": f"s{i // 40}",
                "turn": i % 40,
                "valid_from": f"2024-01-{1 + i % 28:02d}T10:00:00+00:00",
                "recorded_at": f"2024-02-{1 + i % 28:02d}T10:00:00+00:00",
                "embedding": unit_vector(rng, dimensions),
            }
            if state and i % 10 == 9:
                row["supersedes"] = [
                    {"id": f"origin-{i - 1}", "reason": "newer", "at": "2024-03-01T00:00:00Z"}
                ]
            if state and i % 10 == 8:
                row["status"] = "superseded"
            out.write(json.dumps(row) + "\n")
            ids.append(row["id"])
    return ids


def count(db: Database, scope: str) -> int:
    return int(db.read("export_count", {"scopes": [scope]})[0]["n"])


def normalised(snap: Snapshot, scope: str, ids: list[str]) -> Snapshot:
    """Back to origin ids, and without the import's own clock readings."""
    back = {translate_id(scope, i): i for i in ids}
    out = snap.remapped(lambda fact_id: back.get(fact_id, fact_id), "any")
    out = out.without("updated_at", "last_accessed_at", "consolidation_queued_at")
    out.entities = {
        k: {p: v for p, v in e.items() if p != "created_at"} for k, e in out.entities.items()
    }
    return out


def kill_midway(
    command: list[str], env: dict[str, str], db: Database, scope: str, after: int
) -> int:
    """Start the import, SIGKILL it once more than `after` facts are committed; their count."""
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    deadline = time.monotonic() + 120
    try:
        while count(db, scope) <= after:
            if process.poll() is not None:
                raise AssertionError(f"import ended before it could be killed: {process.stderr}")
            if time.monotonic() > deadline:
                raise AssertionError("import wrote nothing within 120 s")
            time.sleep(0.02)
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.wait(timeout=30)
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()
        process.stderr.close()
    assert process.returncode == -signal.SIGKILL
    return count(db, scope)


def run_cli(command: list[str], env: dict[str, str]) -> dict[str, Any]:
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    summary: dict[str, Any] = json.loads(done.stdout)
    return summary


# Enough rows that the kill lands well inside the run (once more than a batch is committed: 25
# of 400 facts, 10 of 60): more only made the suite slower (2,000 and 150 took 4 minutes of it).
@pytest.mark.parametrize(
    ("mode", "rows", "batch"), [("--fast", 400, "25"), ("--pipeline", 60, "10")]
)
def test_a_killed_import_run_again_equals_one_clean_import(
    mode: str,
    rows: int,
    batch: str,
    db: Database,
    settings: Settings,
    scope: str,
    other_scope: str,
    tmp_path: Path,
) -> None:
    path = tmp_path / "facts.jsonl"
    ids = generate(path, rows, state=mode == "--fast")
    env = cli_env(settings, tmp_path / "home")

    def command(target: str) -> list[str]:
        return [str(FACTGRAPH), "import", str(path), "--scope", target, mode]

    options = ["--batch-size", batch, "--no-progress", "--json"]
    at_kill = kill_midway(command(scope) + options, env, db, scope, after=int(batch))
    assert list((tmp_path / "home" / "checkpoints").glob("import-*.json"))
    resumed = run_cli(command(scope) + options, env)
    clean = run_cli(command(other_scope) + options, env)

    assert 0 < at_kill < clean["inserted"]
    assert resumed["resumed_from"] > 0
    assert resumed["rejected"] == clean["rejected"] == 0
    assert (
        resumed["inserted"] + resumed["unchanged"] + resumed["deduplicated"]
        == clean["inserted"] + clean["deduplicated"]
    )
    assert count(db, scope) == count(db, other_scope) == clean["inserted"]
    assert normalised(snapshot(db, scope), scope, ids) == normalised(
        snapshot(db, other_scope), other_scope, ids
    )
    assert not list((tmp_path / "home" / "checkpoints").glob("import-*.json"))
