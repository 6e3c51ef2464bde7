"""The documented batch-job commands work as written: `factgraph cypher-shell` runs the templates.

The test takes the two bash blocks of docs/batch-import.md that call `factgraph cypher-shell`
(the rows template, then the CSV template, each followed by `factgraph embed --missing`), runs
them with bash from a directory laid out like the repository (`.venv`, `cypher/`,
`.factgraph/neo4j/import` linked to the real ones), only renaming their scope `acme` to the
test's own, and then finds the facts by search, vectors and all.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from graph.bulk.exporter import export
from graph.config import Settings
from graph.memory import Memory
from graph.platform.cypher_shell import CypherShell
from graph.storage.db import Database
from tests.cli_helpers import FACTGRAPH

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"```bash\n(.*?)```", re.S)


def batch_blocks() -> list[str]:
    page = (ROOT / "docs" / "batch-import.md").read_text()
    return [
        block
        for block in BLOCK.findall(page)
        if "factgraph cypher-shell" in block and "-f cypher/import_template_" in block
    ]


@pytest.fixture
def workdir(tmp_path: Path, settings: Settings) -> Path:
    """A checkout-shaped directory whose `.venv`, `cypher/` and import folder are the real ones."""
    (tmp_path / ".factgraph" / "neo4j").mkdir(parents=True)
    (tmp_path / ".factgraph" / "neo4j" / "import").symlink_to(settings.local.home / "import")
    (tmp_path / ".venv").symlink_to(Path(sys.executable).parent.parent)
    (tmp_path / "cypher").symlink_to(ROOT / "cypher")
    return tmp_path


def run_block(block: str, cwd: Path, settings: Settings) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "FACTGRAPH_HOME": str(settings.home),
        "FACTGRAPH_NEO4J_HOME": str(settings.local.home),
    }
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", block],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_the_batch_import_page_has_both_batch_commands() -> None:
    blocks = batch_blocks()
    assert len(blocks) == 2
    assert "-f cypher/import_template_rows.cypher" in blocks[0]
    assert "-f cypher/import_template_csv.cypher" in blocks[1]
    assert all(".venv/bin/factgraph embed --missing --scope acme" in b for b in blocks)


def test_the_documented_batch_jobs_load_facts_that_search_then_finds(
    settings: Settings, memory: Memory, scope: str, workdir: Path
) -> None:
    if not settings.uses_local_neo4j:
        pytest.skip("the CSV job needs the local server's import folder")
    csv_copy = settings.local.home / "import" / "facts.csv"
    try:
        for block in batch_blocks():
            done = run_block(block.replace("acme", scope), workdir, settings)
            assert done.returncode == 0, done.stdout + done.stderr
    finally:
        csv_copy.unlink(missing_ok=True)

    rows = memory.search(scope, "Where did Melanie move from?")
    assert rows.hits[0].fact.id == f"{scope}-1"
    csv = memory.search(scope, "Caroline's new puppy")
    assert csv.hits[0].fact.id == f"{scope}-2"
    for hit in (rows.hits[0], csv.hits[0]):
        assert hit.fact.embedder is not None, "embed --missing did not complete the fact"
        assert {s.list for s in hit.sources} >= {"vector"}
    assert csv.hits[0].fact.tags == ("pets", "bio")
    assert csv.hits[0].fact.subject == "Caroline"


def test_arguments_pass_through_and_connect_to_our_server(settings: Settings) -> None:
    env = {
        **os.environ,
        "FACTGRAPH_HOME": str(settings.home),
        "FACTGRAPH_NEO4J_HOME": str(settings.local.home),
    }
    version = subprocess.run(
        [str(FACTGRAPH), "cypher-shell", "--version"], env=env, capture_output=True, text=True
    )
    assert version.returncode == 0 and version.stdout.startswith("Cypher-Shell ")
    query = subprocess.run(
        [str(FACTGRAPH), "cypher-shell", "--format", "plain", "RETURN 40 + 2 AS answer"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert query.returncode == 0, query.stderr
    assert query.stdout.split() == ["answer", "42"]
    refused = subprocess.run(
        [str(FACTGRAPH), "cypher-shell", "-p", "wrong-password", "RETURN 1"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert refused.returncode != 0  # an explicit -p wins over factgraph's password
    assert CypherShell(settings).is_provisioned()


def test_metadata_turns_of_cypher_loaded_facts_reach_the_export(
    settings: Settings, db: Database, memory: Memory, scope: str
) -> None:
    env = {**os.environ, "FACTGRAPH_HOME": str(settings.home)}
    meta = json.dumps({"session_id": "s9", "turn": 4})
    row = f"{{id: '{scope}-t', text: 'Turn four', metadata: '{meta}'}}"
    loaded = subprocess.run(
        [
            str(FACTGRAPH),
            "cypher-shell",
            "--param",
            f"scope => '{scope}'",
            "--param",
            f"rows => [{row}]",
            "-f",
            str(ROOT / "cypher" / "import_template_rows.cypher"),
        ],
        env=env,
        capture_output=True,
        text=True,
    )
    assert loaded.returncode == 0, loaded.stderr
    raw = memory.get(scope, f"{scope}-t")
    assert raw is not None and (raw.session_id, raw.turn) == (None, None)
    buffer = io.StringIO()
    export(db, buffer, scopes=[scope], embeddings=False)
    (line,) = (json.loads(x) for x in buffer.getvalue().splitlines() if '"text"' in x)
    assert (line["session_id"], line["turn"]) == ("s9", 4)
