"""mem0's clients for the tests: a project of the test's own with a key for it, and the clients
that cannot live in the test's virtualenv (the 1.x Python client, the JavaScript client)
provisioned once into the git-ignored `.factgraph/mem0-clients/`.

The 1.x client needs a virtualenv of its own (mem0ai 2.x is in the dev extra): uv makes it
from its cache in seconds. The JavaScript client comes from npm (`npm install`, its peer
dependencies left out: the client needs only axios). Both are made under a file lock (two test
workers may ask at once) and reused while their spec is unchanged.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from starlette.applications import Starlette

from graph.adapters.mem0 import store
from graph.adapters.mem0.entities import namespace_prefix
from graph.memory import Memory

ROOT = Path(__file__).resolve().parent.parent
HOME = ROOT / ".factgraph" / "mem0-clients"
SCRIPTS = Path(__file__).resolve().parent / "mem0_clients"
PYTHON_V1 = "mem0ai>=1.0,<2"
JAVASCRIPT = "mem0ai@^3.3"


@contextmanager
def project(app: Starlette, memory: Memory, role: str = "writer") -> Iterator[tuple[str, str]]:
    """A project no other test uses and a key bound to all of it (`<project>/*`); its scopes
    and the key are deleted afterwards."""
    name = f"test-{uuid.uuid4().hex[:12]}"
    keys = app.state.gate.keys
    key, token = keys.create([f"{namespace_prefix(name)}*"], role, label="mem0-test@example.org")
    try:
        yield name, token
    finally:
        keys.delete(key.id)
        drop(memory, name)


def drop(memory: Memory, name: str) -> None:
    for scope in store.project_scopes(memory.db, namespace_prefix(name)):
        memory.db.write("scope_delete", {"scope": scope})


def client_env() -> dict[str, str]:
    """The environment of a client's process: no telemetry, mem0's files in the tree."""
    return {**os.environ, "MEM0_TELEMETRY": "false", "MEM0_DIR": str(HOME / "mem0-dir")}


@contextmanager
def _locked() -> Iterator[None]:
    HOME.mkdir(parents=True, exist_ok=True)
    with (HOME / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def python_v1() -> Path:
    """The interpreter of a virtualenv holding mem0's 1.x client."""
    venv = HOME / "python-v1"
    python = venv / "bin" / "python"
    marker = venv / ".spec"
    with _locked():
        if not (marker.is_file() and marker.read_text() == PYTHON_V1):
            uv = Path(sys.executable).with_name("uv")
            uv_bin = str(uv) if uv.is_file() else shutil.which("uv") or "uv"
            shutil.rmtree(venv, ignore_errors=True)
            run([uv_bin, "venv", "--quiet", "--python", sys.executable, str(venv)])
            run([uv_bin, "pip", "install", "--quiet", "--python", str(python), PYTHON_V1])
            marker.write_text(PYTHON_V1)
    return python


def javascript() -> Path:
    """A folder whose node_modules hold mem0's JavaScript client."""
    folder = HOME / "js"
    marker = folder / ".spec"
    with _locked():
        if not (marker.is_file() and marker.read_text() == JAVASCRIPT):
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            (folder / "package.json").write_text('{"private": true}\n')
            npm = shutil.which("npm") or "npm"
            run(
                [
                    npm,
                    "install",
                    "--prefix",
                    str(folder),
                    JAVASCRIPT,
                    "--no-audit",
                    "--no-fund",
                    "--legacy-peer-deps",
                    "--omit=optional",
                    "--no-package-lock",
                    "--loglevel=error",
                ]
            )
            marker.write_text(JAVASCRIPT)
    return folder


def run(command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}")


def scenario(command: list[str], *, cwd: Path | None = None) -> dict[str, Any]:
    """Run a client script (tests/mem0_clients/) and read the JSON it prints last."""
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
        env=client_env(),
        cwd=cwd,
    )
    if done.returncode != 0:
        raise AssertionError(f"{command[0]} failed:\n{done.stdout}\n{done.stderr}")
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    result: dict[str, Any] = json.loads(lines[-1])
    return result
