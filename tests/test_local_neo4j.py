"""The project's own Neo4j: start, status, stop, and data that survives a restart.

Runs a second local instance (own home and ports, shared jars) so the suite's server is never
disturbed.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import neo4j
import pytest

from graph.config import Settings
from graph.platform.neo4j_local import LocalNeo4j, Neo4jSetupError
from tests.private_neo4j import private_settings


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def second(settings: Settings, neo4j_server: Settings, tmp_path: Path) -> LocalNeo4j:
    return LocalNeo4j(private_settings(settings, tmp_path / "neo4j"))


def _count(instance: LocalNeo4j) -> int:
    s = instance.settings
    with neo4j.GraphDatabase.driver(s.bolt_uri, auth=(s.neo4j_user, s.neo4j_password)) as d:
        records, _, _ = d.execute_query("MATCH (n:RestartProbe) RETURN count(n) AS n")
        return int(records[0]["n"])


def test_start_status_stop_and_data_survives_a_restart(second: LocalNeo4j) -> None:
    try:
        status = second.start()
        assert status.running and status.version is not None
        # The version asked for (FACTGRAPH_NEO4J_VERSION: 5.26 by default, or 2026.x) is the
        # one that answers.
        assert status.version == second.settings.local.version
        s = second.settings
        with neo4j.GraphDatabase.driver(s.bolt_uri, auth=(s.neo4j_user, s.neo4j_password)) as d:
            d.execute_query("CREATE (:RestartProbe {at: datetime()})")
        assert (second.logs_dir / "neo4j.log").exists()
        assert second.stop() is True
        assert second.status().running is False
        second.start()
        assert _count(second) == 1
    finally:
        second.stop()


def test_the_browser_is_served_by_the_local_server(settings: Settings) -> None:
    import httpx

    if not settings.uses_local_neo4j:
        pytest.skip("NEO4J_URI points at an external server")
    response = httpx.get(f"http://127.0.0.1:{settings.local.http_port}/browser/", timeout=10)
    assert response.status_code == 200
    assert "<html" in response.text.lower()


def test_missing_java_is_explained(second: LocalNeo4j, tmp_path: Path) -> None:
    env = {**os.environ, "PATH": str(tmp_path)}  # an empty PATH: no java, no mvn
    code = (
        "from graph.platform.neo4j_local import LocalNeo4j; from graph.config import Settings;"
        "LocalNeo4j(Settings.from_env()).require_java()"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode != 0
    assert "Java was not found" in out.stderr and "NEO4J_URI" in out.stderr


def test_missing_maven_is_explained_when_provisioning_is_needed(tmp_path: Path) -> None:
    old = os.environ["PATH"]
    os.environ["PATH"] = str(tmp_path)
    try:
        with pytest.raises(Neo4jSetupError, match="Maven"):
            LocalNeo4j.require_maven()
    finally:
        os.environ["PATH"] = old


def test_the_browser_applies_factgraphs_style_and_guide_on_connect(tmp_path: Path) -> None:
    base = Settings()
    settings = replace(
        base, home=tmp_path, port=8123, local=replace(base.local, home=tmp_path / "neo4j")
    )
    server = LocalNeo4j(settings)
    server.write_config()
    conf = (server.conf_dir / "neo4j.conf").read_text().splitlines()
    assert "browser.remote_content_hostname_whitelist=localhost,127.0.0.1" in conf
    assert (
        "browser.post_connect_cmd=style http://localhost:8123/neo4j-browser/style.grass; "
        "play http://localhost:8123/neo4j-browser/guide.html"
    ) in conf
