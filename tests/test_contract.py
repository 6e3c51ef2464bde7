"""The contract: what /openapi.json and the GraphQL schema say, the server does.

schemathesis (the CLI, as a user would run it) generates requests from each description,
valid and invalid, and checks every answer: no 5xx, answers that match their documented schema,
status, content type and headers, 405 with the right `Allow`, requests the description allows
accepted and those it forbids refused (tests/schemathesis.toml names the few rules OpenAPI
cannot state, each with its reason). It runs against the suite's real server,
deterministically (the same requests every run, so a failure reproduces; the output gives the
curl line), bounded to a few examples per operation: about a minute for both. The
longer, stateful run is bench/contract_fuzz.py. Everything it writes lands in one scope (and
its mem0 project's scopes), deleted afterwards (tests/contract_hooks.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from graph.adapters.mem0 import store
from graph.adapters.mem0.entities import namespace_prefix
from graph.storage.db import Database
from tests.mcp_contract import fuzz as fuzz_mcp

SCHEMATHESIS = Path(sys.executable).with_name("schemathesis")
HOOKS = "tests.contract_hooks"
# Every check on every operation, but for the exceptions this file names, each with its reason.
CONFIG = Path(__file__).resolve().parent / "schemathesis.toml"
# Examples per operation (REST: examples and fuzzing phases; GraphQL: all but stateful).
EXAMPLES = "8"
# Calls per MCP tool: each a JSON-RPC request of its own.
MCP_EXAMPLES = 6


def fuzz(target: str, scope: str, where: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """One schemathesis run against `target`; its output says what failed and how to repeat it.

    It runs in `where`, a fresh directory: schemathesis keeps the cases that failed in
    `.schemathesis/` under its working directory and replays them first the next time, which
    would make one run depend on the last.
    """
    root = Path(__file__).resolve().parent.parent
    return subprocess.run(
        [
            str(SCHEMATHESIS),
            f"--config-file={CONFIG}",
            "run",
            target,
            "--generation-deterministic",
            f"--max-examples={EXAMPLES}",
            "--workers=1",
            "--no-color",
            # Hypothesis' too_slow health check times the generation of data, which on a loaded
            # machine fails a run that found nothing: the one check that depends on the clock.
            "--suppress-health-check=too_slow",
            "--request-timeout=60",
            f"--header=X-Scope: {scope}",
            *extra,
        ],
        env={
            **os.environ,
            "SCHEMATHESIS_HOOKS": HOOKS,
            "CONTRACT_SCOPE": scope,
            "PYTHONPATH": str(root),
        },
        cwd=where,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.fixture
def fuzz_scope(db: Database) -> Iterator[str]:
    """The scope the fuzz writes to, and its mem0 project's scopes: deleted afterwards."""
    name = f"contract-{uuid.uuid4().hex[:12]}"
    yield name
    for scope in [name, *store.project_scopes(db, namespace_prefix(name))]:
        db.write("scope_delete", {"scope": scope})


def test_the_rest_api_does_what_openapi_json_says(
    server_url: str, fuzz_scope: str, tmp_path: Path
) -> None:
    # Examples and fuzzing: the coverage phase (boundary values of every field) takes ~90 s
    # more and runs in bench/contract_fuzz.py with the stateful one.
    run = fuzz(f"{server_url}/openapi.json", fuzz_scope, tmp_path, "--phases=examples,fuzzing")
    assert run.returncode == 0, run.stdout[-20_000:] + run.stderr[-5_000:]


def test_the_graphql_api_does_what_its_schema_says(
    server_url: str, fuzz_scope: str, tmp_path: Path
) -> None:
    # GraphQL's schema cannot say that a string must not be empty or a number lies in a range
    # (`first: 0` is refused with BAD_USER_INPUT): valid-looking requests may be refused, so
    # that one check is off here; every other one, 5xx and shapes included, holds.
    run = fuzz(
        f"{server_url}/graphql", fuzz_scope, tmp_path, "--exclude-checks=positive_data_acceptance"
    )
    assert run.returncode == 0, run.stdout[-20_000:] + run.stderr[-5_000:]


@pytest.mark.parametrize("path", ["/mcp", "/mcp/memory", "/mcp/neo4j-memory"])
def test_the_mcp_tools_do_what_their_schemas_say(
    server_url: str, fuzz_scope: str, path: str
) -> None:
    """Each tool set's tools, called with arguments drawn from their `inputSchema` (valid ones
    and ones each way invalid: tests/mcp_contract.py), deterministically, a few per tool."""
    answers = fuzz_mcp(f"{server_url}{path}", fuzz_scope, examples_per_tool=MCP_EXAMPLES)
    assert answers["ok"] and sum(answers.values()) > MCP_EXAMPLES, answers
