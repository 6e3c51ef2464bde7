"""The TypeScript client (client-ts/, npm package `factgraph`) as its users get it.

Its own tests run under node's test runner (client-ts/test/) against the suite's real server:
every operation, typed errors, the AbortSignal, the bounded 503 retry (against a stand-in node
server), the API key on a server that asks for one, and `factgraph/ai` with the AI SDK's own
mock model (`MockLanguageModelV4` from `ai/test`): scripted tool calls that write to and read
from the server, and a middleware that fills the next call's prompt from the first. Here: those
tests, the generated types checked against schema.graphql, and `npm pack` installed by path.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.applications import Starlette

from graph.storage.db import Database
from tests.typescript_client import PACKAGE, built, npm, run

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs node and npm")

# The scopes the node tests use, one per concern (client-ts/test/helpers.js reads them).
TESTS = ("test/client.test.js", "test/ai.test.js")
SCOPE_NAMES = ("client", "timeline", "review", "search", "keyed", "tools", "middleware", "steps")


@pytest.fixture(scope="module")
def package() -> Path:
    return built()


@pytest.fixture
def node_scopes(db: Database) -> Iterator[dict[str, str]]:
    """A fresh scope per name; everything in them is deleted afterwards."""
    scopes = {name: f"test-ts-{name}-{uuid.uuid4().hex[:8]}" for name in SCOPE_NAMES}
    yield scopes
    for scope in scopes.values():
        db.write("scope_delete", {"scope": scope})


def test_the_clients_own_tests_pass_against_the_real_server(
    package: Path,
    server_url: str,
    secured: tuple[Starlette, str],
    node_scopes: dict[str, str],
) -> None:
    app, secured_url = secured
    keys = app.state.gate.keys
    key, token = keys.create([node_scopes["keyed"]], "writer")
    environment = {
        **os.environ,
        "FACTGRAPH_URL": server_url,
        "FACTGRAPH_SCOPES": json.dumps(node_scopes),
        "FACTGRAPH_SECURED_URL": secured_url,
        "FACTGRAPH_KEY": token,
    }
    try:
        done = subprocess.run(
            ["node", "--test", "--test-reporter=tap", *sorted(TESTS)],
            cwd=package,
            env=environment,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
    finally:
        keys.delete(key.id)
    report = done.stdout + done.stderr
    assert done.returncode == 0, report
    counts = dict(re.findall(r"^# (pass|fail|skipped) (\d+)$", report, re.MULTILINE))
    assert counts == {"pass": counts["pass"], "fail": "0", "skipped": "0"}, report
    assert int(counts["pass"]) >= 23, report  # every test ran


def test_the_generated_types_are_those_of_schema_graphql(package: Path, tmp_path: Path) -> None:
    """src/generated/graphql.ts is what GraphQL Code Generator makes of schema.graphql and the
    client's operations today (`make ts-client` regenerates it), and a schema change shows."""
    run(["node", "scripts/codegen.mjs", "--check"], cwd=package)
    changed = tmp_path / "schema.graphql"
    schema = (package.parent / "schema.graphql").read_text()
    changed.write_text(schema.replace("  turn: Int\n", "  turn: String\n", 1))
    stale = subprocess.run(
        ["node", "scripts/codegen.mjs", "--check", "--schema", str(changed)],
        cwd=package,
        capture_output=True,
        text=True,
        check=False,
    )
    assert stale.returncode == 1
    assert "stale: run `make ts-client`" in stale.stderr


IMPORT = re.compile(r"""^(?:import|export)\b[^'"]*?from\s+['"]([^'"]+)['"]""", re.MULTILINE)


def test_the_built_modules_need_nothing_but_fetch(package: Path) -> None:
    """No Node.js module and no dependency in what a browser or an edge runtime loads: the
    client imports only its own files, and factgraph/ai only `ai` and `zod` besides."""
    imports = {
        path.relative_to(package / "dist").as_posix(): set(IMPORT.findall(path.read_text()))
        for path in (package / "dist").rglob("*.js")
    }
    assert "index.js" in imports and "ai/tools.js" in imports
    outside = {
        name: {spec for spec in specs if not spec.startswith(".")}
        for name, specs in imports.items()
    }
    assert outside.pop("ai/tools.js") == {"ai", "zod"}
    assert all(not specs for specs in outside.values()), outside
    source = "".join(path.read_text() for path in (package / "dist").rglob("*.js"))
    assert "process." not in source and "require(" not in source


def test_the_documented_examples_type_check(package: Path) -> None:
    """docs/typescript.md's calls, client and AI SDK alike, in client-ts/test/examples.ts,
    compile under strict settings against the built declarations and `ai`'s own types."""
    run(["node", "node_modules/typescript/bin/tsc", "-p", "test"], cwd=package)


def readme_start() -> tuple[str, str]:
    """The README's three-line start and the search after it (its first two ```js blocks)."""
    readme = (PACKAGE / "README.md").read_text()
    start, search = re.findall(r"```js\n(.*?)```", readme, re.DOTALL)[:2]
    return start, search


def test_npm_pack_gives_a_package_installed_by_path(
    package: Path, tmp_path: Path, server_url: str, scope: str
) -> None:
    """The tarball holds the compiled ESM with its types and the README, and nothing else; a
    project installs it by path and runs the README's start, in JavaScript and TypeScript."""
    packed = json.loads(
        run([npm(), "pack", "--json", "--ignore-scripts", "--pack-destination", str(tmp_path)])
    )[0]
    files = {entry["path"] for entry in packed["files"]}
    assert {"package.json", "README.md", "dist/index.js", "dist/index.d.ts"} <= files
    assert {"dist/ai/index.js", "dist/ai/index.d.ts", "dist/generated/graphql.js"} <= files
    assert not {f for f in files if f.startswith(("src/", "test/", "scripts/", "node_modules/"))}

    user = tmp_path / "app"
    user.mkdir()
    (user / "package.json").write_text('{"private": true, "type": "module"}\n')
    tarball = tmp_path / packed["filename"]
    flags = ["--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"]
    run([npm(), "install", str(tarball), *flags], cwd=user)

    start, search = readme_start()
    assert len(start.strip().splitlines()) == 3
    local = (start + search).replace("http://127.0.0.1:8000", server_url)
    local = local.replace("'alice'", f"'{scope}'")
    (user / "start.mjs").write_text(local)
    printed = run(["node", "start.mjs"], cwd=user).splitlines()
    assert printed == ["INSERT", "Alice lives in Lisbon"]

    # The same lines type-check against the package's declarations, strictly.
    (user / "start.ts").write_text(local)
    tsc = str(package / "node_modules" / "typescript" / "bin" / "tsc")
    options = ["--strict", "--noEmit", "--module", "nodenext", "--target", "es2022"]
    run(["node", tsc, *options, "--lib", "es2022,dom", "start.ts"], cwd=user)
