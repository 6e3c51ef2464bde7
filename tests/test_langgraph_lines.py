"""The LangGraph store on both lines of langgraph-checkpoint the client supports (3.x and 4.x).

The suite's venv holds one line (the current one: the Makefile installs LangGraph 1.2), and
tests/test_langgraph_store.py runs on it. One process can import one version of a package, so
the store's tests marked `every_langgraph_line` run again in a subprocess, in a small venv of
the other line that uv builds from its cache (the client, httpx, langgraph-checkpoint, pytest:
no service, no model), against this run's server.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from graph.storage.db import Database
from tests import test_langgraph_store

ROOT = Path(__file__).resolve().parent.parent
LINES = {"3": "langgraph-checkpoint>=3,<4", "4": "langgraph-checkpoint>=4,<5"}
INSTALLED = version("langgraph-checkpoint").split(".")[0]
MARK = "every_langgraph_line"


def marked_tests() -> list[str]:
    return [
        name
        for name, test in vars(test_langgraph_store).items()
        if name.startswith("test_")
        and any(mark.name == MARK for mark in getattr(test, "pytestmark", []))
    ]


def uv() -> str:
    found = Path(sys.executable).with_name("uv")  # make setup installs it into the venv
    return str(found) if found.exists() else shutil.which("uv") or "uv"


def line_venv(line: str, where: Path) -> Path:
    """A venv at `where` with the client and the given line; its python."""
    subprocess.run([uv(), "venv", "--quiet", "--python", sys.executable, str(where)], check=True)
    python = where / "bin" / "python"
    subprocess.run(
        [
            *(uv(), "pip", "install", "--quiet", "--python", str(python)),
            *("-e", str(ROOT / "client"), LINES[line]),
            *("pytest>=8,<10", "pytest-timeout>=2.3,<3"),
        ],
        check=True,
    )
    installed = subprocess.run(
        [
            str(python),
            "-c",
            "from importlib.metadata import version as v; print(v('langgraph-checkpoint'))",
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    assert installed.stdout.startswith(f"{line}.")
    return python


def test_the_suite_runs_on_a_supported_line() -> None:
    assert INSTALLED in LINES
    assert len(marked_tests()) >= 8


@pytest.mark.parametrize("line", sorted(set(LINES) - {INSTALLED}))
def test_the_store_tests_pass_on_the_other_line(
    line: str, server_url: str, db: Database, tmp_path: Path
) -> None:
    python = line_venv(line, tmp_path / f"langgraph-checkpoint-{line}")
    scopes = tmp_path / "scopes"
    scopes.touch()
    env = {**os.environ, "FACTGRAPH_TEST_SERVER_URL": server_url}
    env["FACTGRAPH_TEST_SCOPES"] = str(scopes)
    try:
        run = subprocess.run(
            [
                *(str(python), "-m", "pytest", "-q", "-m", MARK),
                # tests/conftest.py loads the service, which this venv does not have; the
                # suite's warning filters name the Neo4j driver's warnings, likewise absent.
                *("--noconftest", "-p", "tests.langgraph_line_fixtures"),
                *("-p", "no:cacheprovider", "-o", "filterwarnings=error"),
                "tests/test_langgraph_store.py",
            ],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
    finally:
        for name in scopes.read_text().split():
            db.write("scope_delete", {"scope": name})
    out = run.stdout + run.stderr
    assert run.returncode == 0, out
    assert f"{len(marked_tests())} passed" in out, out
