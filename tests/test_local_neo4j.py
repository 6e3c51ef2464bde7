"""The project's own Neo4j: start, status, stop, and data that survives a restart.

Runs on the suite's spare server (tests/conftest.py: own home and ports, shared jars), so the
server the other tests use is never disturbed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import neo4j
import pytest

from graph.config import Settings
from graph.platform.neo4j_local import LocalNeo4j, Neo4jSetupError


def _count(instance: LocalNeo4j) -> int:
    s = instance.settings
    with neo4j.GraphDatabase.driver(s.bolt_uri, auth=(s.neo4j_user, s.neo4j_password)) as d:
        records, _, _ = d.execute_query("MATCH (n:RestartProbe) RETURN count(n) AS n")
        return int(records[0]["n"])


def test_start_status_stop_and_data_survives_a_restart(spare_to_restart: LocalNeo4j) -> None:
    server = spare_to_restart  # first started by its fixture, on a store of its own
    status = server.start()  # running already: start() waits until it answers, and says so
    assert status.running and status.version is not None
    # The version asked for (FACTGRAPH_NEO4J_VERSION: 5.26 by default, or 2026.x) is the
    # one that answers.
    assert status.version == server.settings.local.version
    s = server.settings
    with neo4j.GraphDatabase.driver(s.bolt_uri, auth=(s.neo4j_user, s.neo4j_password)) as d:
        d.execute_query("CREATE (:RestartProbe {at: datetime()})")
    assert (server.logs_dir / "neo4j.log").exists()
    assert server.stop() is True
    assert server.status().running is False
    assert server.stop() is False  # nothing left to stop
    restarted = server.start()
    assert restarted.running and restarted.pid != status.pid
    assert _count(server) == 1


def test_the_browser_is_served_by_the_local_server(neo4j_server: Settings) -> None:
    import httpx

    settings = neo4j_server
    if not settings.uses_local_neo4j:
        pytest.skip("NEO4J_URI points at an external server")
    response = httpx.get(f"http://127.0.0.1:{settings.local.http_port}/browser/", timeout=10)
    assert response.status_code == 200
    assert "<html" in response.text.lower()


def test_missing_java_is_explained(tmp_path: Path) -> None:
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


def test_a_short_lived_server_skips_the_optimising_jit_the_quiet_periods_and_replanning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FACTGRAPH_NEO4J_SHORT_LIVED", "1")
    assert Settings.from_env().local.short_lived
    base = Settings()
    assert not base.local.short_lived  # `factgraph neo4j start` and `serve`: a lasting server
    for short_lived in (True, False):
        local = replace(base.local, home=tmp_path / f"{short_lived}", short_lived=short_lived)
        server = LocalNeo4j(replace(base, local=local))
        server.write_config()
        conf = (server.conf_dir / "neo4j.conf").read_text().splitlines()
        quiet = "internal.dbms.bolt.netty_server_shutdown_quiet_period=0" in conf
        planned_once = "dbms.cypher.min_replan_interval=1h" in conf
        first_tier = "-XX:TieredStopAtLevel=1" in server.jit_options()
        assert (quiet, planned_once, first_tier) == (short_lived,) * 3
        assert "server.http.enabled=true" in conf  # the Browser stays, short-lived or not


def test_a_stale_pid_file_never_signals_the_process_that_now_has_its_number(
    tmp_path: Path,
) -> None:
    """A server that died without `stop` leaves its pid file, and process ids come round
    again: by the time someone stops the server, its number may be any process's, this one's."""
    base = Settings()
    server = LocalNeo4j(replace(base, local=replace(base.local, home=tmp_path / "neo4j")))
    server.run_dir.mkdir(parents=True)
    server.pid_file.write_text(str(os.getpid()))
    assert server.pid() is None
    assert server.status().running is False
    server.kill()
    assert server.stop() is False  # and this test is still here to check it
