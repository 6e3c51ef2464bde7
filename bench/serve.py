"""`factgraph serve` started by a bench on a free loopback port, as a user starts it, for the
benches that load a real server over HTTP (bench/load.py, bench/contract_fuzz.py), and the
clean-up after them (bench/generated_clients.py too)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from graph.adapters.mem0 import store
from graph.adapters.mem0.entities import namespace_prefix
from graph.config import Settings
from graph.storage.db import Database


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(
    port: int, log_path: Path | str | None, *extra: str, wait_s: float = 180.0
) -> subprocess.Popen[bytes]:
    """The server, once /healthz answers 200; its JSON log lines go to `log_path` (appended),
    and it runs in a session of its own, so stopping it stops its children too."""
    env = {**os.environ, "FACTGRAPH_LOG_FORMAT": "json"}
    log = open(log_path, "ab") if log_path else subprocess.DEVNULL  # noqa: SIM115
    proc = subprocess.Popen(
        [str(Path(sys.executable).with_name("factgraph")), "serve", "--port", str(port), *extra],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log,
        start_new_session=True,
    )
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"factgraph serve exited with {proc.returncode}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    proc.kill()
    raise SystemExit(f"factgraph serve did not become healthy within {wait_s:.0f} s")


def drop_scope(scope: str) -> None:
    """Delete what a bench's calls wrote: the scope and its mem0 project's scopes (on the Neo4j
    this environment names, the server's)."""
    db = Database(Settings.from_env())
    try:
        for name in [scope, *store.project_scopes(db, namespace_prefix(scope))]:
            db.write("scope_delete", {"scope": name})
    finally:
        db.close()
