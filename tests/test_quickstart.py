"""The README's quickstart runs as written, so it cannot rot.

Its two bash blocks (GraphQL with curl, then REST) run with bash against a real server (uvicorn
on a free port); only the port and the scope change: GraphQL's `quickstart` scope becomes the
test's scope, and the server's FACTGRAPH_DEFAULT_SCOPE (what REST uses when no scope is sent)
another fresh one. Each block prints three answers (remember, search, history) and passes the
superseding write's answer through stderr; all are checked. Run twice, the GraphQL block
answers what its comment says of a rerun, and the README's `drop-scope` line starts it afresh.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from graph.config import Settings
from graph.memory import Memory
from resolvers.app import create_app
from tests.cli_helpers import cli_env
from tests.live_server import serve

README = Path(__file__).resolve().parent.parent / "README.md"
DOCUMENTED_URL = "http://127.0.0.1:8000"


def quickstart_blocks() -> list[str]:
    text = README.read_text()
    section = text[text.index("## Quickstart\n") :]
    section = section[: section.index("\n## ", 1)]
    return re.findall(r"```bash\n(.*?)```", section, re.S)


def documents(output: str) -> list[Any]:
    """The JSON documents curl printed, one after another."""
    decoder, found, at = json.JSONDecoder(), [], 0
    while at < len(output):
        if output[at].isspace():
            at += 1
            continue
        value, at = decoder.raw_decode(output, at)
        found.append(value)
    return found


@pytest.fixture
def service(memory: Memory, other_scope: str) -> Iterator[str]:
    settings = memory.settings.with_overrides(default_scope=other_scope)
    with serve(create_app(memory=memory, settings=settings)) as url:
        yield url


def run(block: str, url: str, scope: str) -> tuple[list[Any], list[Any]]:
    script = block.replace(DOCUMENTED_URL, url).replace('\\"quickstart\\"', f'\\"{scope}\\"')
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return documents(done.stdout), documents(done.stderr)


def test_the_quickstart_has_a_graphql_and_a_rest_block() -> None:
    graphql, rest = quickstart_blocks()
    assert "/graphql" in graphql and "/api/v1/" not in graphql
    assert "/api/v1/memories" in rest and "/api/v1/search" in rest


def test_graphql_quickstart(service: str, scope: str) -> None:
    (stdout, stderr) = run(quickstart_blocks()[0], service, scope)
    remembered, searched, history = (doc["data"] for doc in stdout)
    (superseding,) = (doc["data"] for doc in stderr)
    assert remembered["remember"]["kind"] == "INSERT"
    acme = remembered["remember"]["fact"]
    assert acme["text"] == "Alice works at Acme"
    assert searched["search"]["hits"][0]["fact"] == acme
    assert superseding["remember"]["kind"] == "SUPERSEDE"
    assert superseding["remember"]["matched"] == {"text": "Alice works at Acme"}
    chain = history["history"]
    assert [(f["text"], f["status"]) for f in chain] == [
        ("Alice works at Acme", "SUPERSEDED"),
        ("Alice works at Globex", "ACTIVE"),
    ]
    assert chain[0]["validTo"] is not None and chain[1]["validTo"] is None


def test_a_rerun_supersedes_as_the_comment_says_and_drop_scope_starts_afresh(
    service: str, scope: str, settings: Settings, tmp_path: Path
) -> None:
    graphql = quickstart_blocks()[0]
    run(graphql, service, scope)
    (again, _, history), _ = run(graphql, service, scope)
    assert 'on a rerun "SUPERSEDE"' in graphql
    assert again["data"]["remember"]["kind"] == "SUPERSEDE"
    assert len(history["data"]["history"]) > 2

    afresh = re.search(r"`(\.venv/bin/factgraph drop-scope quickstart --yes)`", README.read_text())
    assert afresh is not None
    done = subprocess.run(
        ["bash", "-c", afresh[1].replace("quickstart", scope)],
        cwd=README.parent,
        env=cli_env(settings, tmp_path / "home"),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    (first, _, _), _ = run(graphql, service, scope)
    assert first["data"]["remember"]["kind"] == "INSERT"


def test_rest_quickstart(service: str, memory: Memory, other_scope: str) -> None:
    (remembered, searched, history), (superseding,) = run(quickstart_blocks()[1], service, "unused")
    assert remembered["decision"] == "insert" and remembered["matched_id"] is None
    assert (remembered["content"], remembered["tags"]) == ("Bob lives in Paris", ["home"])
    assert searched["results"][0]["memory"]["id"] == remembered["id"]
    assert superseding["decision"] == "supersede"
    assert superseding["matched_id"] == remembered["id"]
    chain = history["history"]
    assert [(m["content"], m["status"]) for m in chain] == [
        ("Bob lives in Paris", "superseded"),
        ("Bob lives in Berlin", "active"),
    ]
    assert chain[0]["valid_to"] is not None and chain[1]["valid_to"] is None
    # No scope was sent: everything landed in the server's default scope.
    stored = memory.get(other_scope, superseding["id"])
    assert stored is not None and stored.text == "Bob lives in Berlin"
