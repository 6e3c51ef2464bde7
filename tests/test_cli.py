"""The operator's `factgraph` command line, run as the real console script."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from factgraph.cli import main
from graph.config import Settings
from graph.memory import Memory
from graph.platform.embedding import Embedder
from graph.storage import vector_shards
from graph.storage.db import Database
from graph.write.facts import FactInput
from tests.cli_helpers import cli_env, factgraph

COMMANDS = [
    *("serve", "neo4j", "schema", "import", "export", "embed", "reembed", "stats"),
    *("drop-scope", "mark-standing", "consolidate", "keys", "mcp"),
]


@pytest.fixture
def env(settings: Settings, tmp_path: Path) -> dict[str, str]:
    return cli_env(settings, tmp_path / "home")


def count(db: Database, scope: str) -> int:
    return int(db.read("export_count", {"scopes": [scope]})[0]["n"])


def seed(memory: Memory, scope: str, texts: list[str]) -> None:
    """Facts written straight through: what is tested here is the CLI, not the pipeline."""
    for text in texts:
        memory.remember(scope, FactInput(text=text), pipeline=False)


def test_every_command_explains_itself_with_help(
    env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    top = factgraph(env, "--help")
    assert all(command in top.stdout for command in COMMANDS)
    # The same parser in this process: a console script per command cost a second each.
    for command in COMMANDS:
        with pytest.raises(SystemExit) as exited:
            main([command, "--help"])
        assert exited.value.code == 0, command
        assert capsys.readouterr().out.startswith(f"usage: factgraph {command}"), command


def test_export_and_import_move_a_scope_through_files(
    env: dict[str, str],
    memory: Memory,
    scope: str,
    other_scope: str,
    tmp_path: Path,
) -> None:
    seed(memory, scope, ["Jon plays the cello", "Jon lives in Oslo"])
    out = tmp_path / "jon.jsonl"

    exported = factgraph(env, "export", "--scope", scope, "--out", out, "--no-progress")
    first = factgraph(env, "import", out, "--scope", other_scope, "--fast", "--json")
    second = factgraph(env, "import", out, "--scope", other_scope, "--fast", "--no-progress")

    assert "exported 2 facts" in exported.stderr
    assert len(out.read_text().splitlines()) == 3  # the format's header, then the facts
    assert json.loads(first.stdout)["inserted"] == 2
    assert "inserted      0" in second.stdout and "unchanged     2" in second.stdout
    assert count(memory.db, other_scope) == 2


def test_import_names_bad_lines_and_exits_1_when_they_pass_max_errors(
    env: dict[str, str], memory: Memory, scope: str, tmp_path: Path
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"text": ""}\n{"text": "ok"}\n{"txt": "typo"}\n{"text": 1}\n')

    done = factgraph(env, "import", path, "--scope", scope, "--max-errors", "1", check=1)

    assert "line 1: text: must not be empty" in done.stdout
    assert "line 3: txt: unknown field" in done.stdout
    assert "ABORTED" in done.stdout and "Traceback" not in done.stderr
    assert count(memory.db, scope) == 1


def test_csv_import_with_a_header_and_an_explicit_format(
    env: dict[str, str], memory: Memory, scope: str, tmp_path: Path
) -> None:
    path = tmp_path / "facts.txt"
    path.write_text('text,subject,tags\nDev cycles to work,Dev,commute;health\n"Dev, again",,\n')

    done = factgraph(env, "import", path, "--scope", scope, "--format", "csv", "--fast", "--json")

    assert json.loads(done.stdout)["inserted"] == 2
    assert count(memory.db, scope) == 2


def test_dry_run_writes_nothing_and_fails_as_the_import_would(
    env: dict[str, str], memory: Memory, scope: str, tmp_path: Path
) -> None:
    path = tmp_path / "facts.jsonl"
    path.write_text('{"text": "Would be written"}\n{"text": "x", "turn": "three"}\n')

    done = factgraph(env, "import", path, "--scope", scope, "--dry-run", check=1)

    assert "valid         1" in done.stdout and "line 2: turn" in done.stdout
    assert "1 rows would be rejected" in done.stdout
    assert count(memory.db, scope) == 0


def test_clear_errors_instead_of_stack_traces(env: dict[str, str], tmp_path: Path) -> None:
    missing = factgraph(env, "import", tmp_path / "nope.jsonl", "--scope", "s", check=2)
    unknown_format = tmp_path / "facts.xml"
    unknown_format.write_text("<facts/>")
    odd = factgraph(env, "import", unknown_format, "--scope", "s", check=2)
    no_flag = factgraph(env, "embed", check=2)
    bad_batch = factgraph(env, "import", unknown_format, "--batch-size", "0", check=2)

    assert "no such file" in missing.stderr and "Traceback" not in missing.stderr
    assert "--format" in odd.stderr and "Traceback" not in odd.stderr
    assert "--missing" in no_flag.stderr
    assert "must be at least 1" in bad_batch.stderr


def test_stats_counts_facts_per_scope_and_status_and_shows_index_states(
    env: dict[str, str], memory: Memory, embedder: Embedder, scope: str
) -> None:
    seed(memory, scope, ["Maria sings", "Maria swims", "Maria skis"])
    memory.db.driver.execute_query(
        "MATCH (f:Fact {scope: $scope, text: 'Maria skis'}) "
        "SET f.status = 'forgotten', f.live_hash = null",
        scope=scope,
        database_=memory.db.name,
    )

    stats = json.loads(factgraph(env, "stats", "--scope", scope, "--json").stdout)
    text = factgraph(env, "stats", "--scope", scope).stdout
    every_index = factgraph(env, "stats", "--scope", scope, "--indexes").stdout

    assert stats["facts"] == {scope: {"active": 2, "forgotten": 1}}
    assert stats["embedders"] == {embedder.id: 3}
    assert stats["vector_dimensions"] == 384
    states = {index["name"]: index["state"] for index in stats["indexes"]}
    vector_index = vector_shards.index_of(scope, memory.db.server_version.in_index_filters)
    assert states[vector_index] == states["fact_fulltext"] == "ONLINE"
    assert f"{scope}" in text and "active 2" in text
    # The counts lead; the indexes are one line unless asked for (sixty lines and more).
    assert text.splitlines()[:2] == [
        "facts per scope and status:",
        f"  {scope:32} {3:>9}  (active 2, forgotten 1)",
    ]
    assert vector_index not in text and "--indexes lists them" in text
    assert len(text.splitlines()) < 15
    assert f"  {vector_index:32} " in every_index and "fact_fulltext" in every_index


def test_drop_scope_erases_a_scope_to_start_it_afresh_and_asks_for_yes_first(
    env: dict[str, str], memory: Memory, scope: str, other_scope: str
) -> None:
    seed(memory, scope, ["Maria sings", "Maria swims"])
    seed(memory, other_scope, ["Jon sings"])

    asked = factgraph(env, "drop-scope", scope, check=1)
    assert "would erase" in asked.stdout and "2 facts" in asked.stdout and "--yes" in asked.stdout
    assert count(memory.db, scope) == 2

    dropped = factgraph(env, "drop-scope", scope, "--yes").stdout
    assert f"erased scope {scope!r}: 2 facts" in dropped
    assert count(memory.db, scope) == 0
    assert memory.db.read("stats_entities", {"scopes": [scope]}) == []  # its entities too
    assert count(memory.db, other_scope) == 1


def test_schema_status_lists_every_index_and_its_state(env: dict[str, str], db: Database) -> None:
    out = factgraph(env, "schema", "status").stdout
    assert all(
        name in out for name in vector_shards.index_names(db.server_version.in_index_filters)
    )
    assert "fact_fulltext" in out and "ONLINE" in out and "fact_embedding " not in out


def test_embed_missing_and_reembed_from_the_command_line(
    env: dict[str, str], memory: Memory, scope: str
) -> None:
    rows = [{"id": f"{scope}-1", "text": "Nate builds model ships", "subject": "Nate"}]
    memory.db.write("import_template_rows", {"scope": scope, "rows": rows})

    embedded = factgraph(env, "embed", "--missing", "--scope", scope, "--no-progress")
    reembedded = factgraph(env, "reembed", "--scope", scope, "--no-progress")

    assert "completed 1 facts" in embedded.stdout
    assert "re-embedded 0 facts" in reembedded.stdout
    stats = json.loads(factgraph(env, "stats", "--scope", scope, "--json").stdout)
    assert stats["without_vector"] == 0
