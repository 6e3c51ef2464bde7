"""The platform a user relies on: schema in Neo4j, the model, packaging, health, the CLI."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

import graph
from graph.config import Settings
from graph.errors import SchemaMismatch
from graph.memory import Memory
from graph.platform.embedding import Embedder
from graph.storage import cypher, vector_shards
from graph.storage.db import Database
from graph.storage.schema import (
    apply_schema,
    check_vector_dimensions,
    index_states,
    other_models,
    vector_dimensions,
)
from resolvers.graphql.graphiql import DEFAULT_QUERY
from resolvers.graphql.schema import print_schema
from tests.conftest import GraphQLClient

ROOT = Path(__file__).resolve().parent.parent


def _schema_snapshot(db: Database) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    indexes = [(i.name, i.type) for i in index_states(db)]
    constraints = [(str(r["name"]), str(r["type"])) for r in db.read("schema_constraints")]
    return indexes, constraints


def test_applying_the_schema_twice_changes_nothing(db: Database, embedder: Embedder) -> None:
    before = _schema_snapshot(db)
    apply_schema(db, embedder.dimensions, embedder.id)
    assert _schema_snapshot(db) == before


def test_every_index_is_online_with_the_expected_names(db: Database) -> None:
    states = {i.name: i.state for i in index_states(db)}
    vectors = vector_shards.index_names(db.server_version.in_index_filters)
    for name in ("fact_fulltext", *vectors, "fact_lexical", "fact_scope_status"):
        assert states.get(name) == "ONLINE", states
    constraints = {name for name, _ in _schema_snapshot(db)[1]}
    assert {"fact_id", "fact_live_hash", "entity_key"} <= constraints


def test_vector_index_dimension_equals_the_embedders(db: Database, embedder: Embedder) -> None:
    assert embedder.dimensions == 384
    assert vector_dimensions(db) == embedder.dimensions


def test_a_changed_model_dimension_stops_start_up_with_what_to_run(db: Database) -> None:
    with pytest.raises(SchemaMismatch, match="factgraph reembed") as info:
        check_vector_dimensions(db, 768, "bigger-model@768")
    assert "384" in str(info.value) and "768" in str(info.value)


def test_vectors_of_another_model_of_the_same_dimension_are_reported_at_start_up(
    memory: Memory, db: Database, scope: str
) -> None:
    memory.remember(scope, {"text": "Melanie moved from Sweden"})
    # As seen by a service started with another 384-dimension model (as e5 after MiniLM).
    warning = other_models(db, "another-model@384", sample=10_000_000)
    assert warning is not None
    assert memory.embedder.id in warning and "factgraph reembed" in warning


def test_the_real_model_ranks_related_sentences_above_unrelated(embedder: Embedder) -> None:
    a, b, c = embedder.embed(
        ["Melanie moved from Sweden", "Melanie relocated here from Sweden", "The stock fell 3%"]
    )

    def cos(x: list[float], y: list[float]) -> float:
        return sum(p * q for p, q in zip(x, y, strict=True))

    assert cos(a, b) > cos(a, c) + 0.1  # cosines' scale is the model's own; the order is not
    assert embedder.id == f"{embedder.name.split('/')[-1]}@384"
    assert len(embedder.embed_query("where is Melanie from?")) == 384


def test_healthz_reports_neo4j_version_indexes_and_embedder(
    http: httpx.Client, embedder: Embedder, db: Database, settings: Settings
) -> None:
    response = http.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert body["ok"] is True and body["neo4j"] == "up"
    if settings.uses_local_neo4j:
        assert body["neo4j_version"] == settings.local.version
    assert body["embedder"] == embedder.id
    vectors = vector_shards.index_names(db.server_version.in_index_filters)
    assert {i["name"] for i in body["indexes"]} >= {"fact_fulltext", *vectors}


def test_graphiql_is_served_to_a_browser(http: httpx.Client) -> None:
    response = http.get("/graphql", headers={"Accept": "text/html"})
    assert response.status_code == 200
    assert "graphiql" in response.text.lower()


def test_graphiql_loads_its_assets_from_the_service_not_a_cdn(http: httpx.Client) -> None:
    page = http.get("/graphql", headers={"Accept": "text/html"}).text
    assert "unpkg.com" not in page
    assets = re.findall(r'(?:src|href)="(/graphiql-assets/[^"]+)"', page)
    assert len(assets) == 7
    for asset in assets:
        response = http.get(asset)
        assert response.status_code == 200, asset
        assert len(response.content) > 500, asset


def test_graphiql_opens_on_a_factgraph_query_that_runs(
    http: httpx.Client, gql: GraphQLClient
) -> None:
    page = http.get("/graphql", headers={"Accept": "text/html"}).text
    assert f"defaultQuery: {json.dumps(DEFAULT_QUERY)}" in page
    data = gql.data(DEFAULT_QUERY)
    assert data["health"]["ok"] is True and isinstance(data["search"]["hits"], list)


def test_the_neo4j_browser_style_sheet_captions_facts_by_text_and_colours_them_by_status(
    http: httpx.Client,
) -> None:
    response = http.get("/neo4j-browser/style.grass")
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == "*"
    fact_rule = response.text.split("node.Fact {")[1].split("\n}")[0]
    assert 'caption: "{status} - {text}";' in fact_rule
    # The Browser's GRASS parser splits a declaration on ":" and drops it unless that gives
    # exactly two parts, so a colon inside a value (`"{status}: {text}"`) loses the caption.
    for declaration in response.text.splitlines():
        assert declaration.count(":") <= 1, declaration
    colours = {
        label: response.text.split(f"node.{label} {{")[1].split("color: ")[1].split(";")[0]
        for label in ("Active", "Quarantined", "Superseded", "Forgotten")
    }
    assert len(set(colours.values())) == 4, colours  # each status its own colour
    # A label without a rule gets a colour the Browser picks, drawn over the status colour:
    # every vector shard label has one, before the Fact and status rules that override it.
    first_fact_rule = response.text.index("node.Fact {")
    for label in vector_shards.LABELS:
        assert -1 < response.text.find(f"node.{label} {{") < first_fact_rule, label
    assert "relationship.SUPERSEDES {" in response.text


def test_the_neo4j_browser_assets_answer_the_cors_preflight_of_the_browser(
    http: httpx.Client,
) -> None:
    # The Browser's fetches to localhost carry a sentry-trace header, so Chromium asks first;
    # a 405 there made `:style` / `:play` fail with "Failed to fetch" (bench/browser_screenshot.py).
    for path in ("/neo4j-browser/style.grass", "/neo4j-browser/guide.html"):
        response = http.options(
            path,
            headers={
                "Origin": "http://localhost:7474",
                "Access-Control-Request-Method": "GET",
                "Access-Control-Request-Headers": "sentry-trace",
            },
        )
        assert response.status_code == 204, path
        assert response.headers["access-control-allow-origin"] == "*"
        assert "GET" in response.headers["access-control-allow-methods"]
        assert response.headers["access-control-allow-headers"] == "sentry-trace"


def test_the_neo4j_browser_guide_has_parameterised_operator_queries(http: httpx.Client) -> None:
    response = http.get("/neo4j-browser/guide.html")
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == "*"
    page = response.text
    for title in (
        "supersede chain",
        "quarantine queue",
        "An entity's facts",
        "A session's turns",
        "audit of a fact",
    ):
        assert title in page
    queries = re.findall(r'<pre class="pre-scrollable code runnable">(MATCH.*?)</pre>', page, re.S)
    assert len(queries) == 5
    assert all("$scope" in q for q in queries)


def test_committed_schema_graphql_matches_the_code() -> None:
    committed = (ROOT / "schema.graphql").read_text()
    assert committed == print_schema(), "run `make schema` and commit schema.graphql"


def test_public_python_names_are_locked() -> None:
    assert graph.__all__ == [
        "Conflict",
        "DatabaseUnavailable",
        "Decision",
        "DecisionKind",
        "DefaultEntityResolver",
        "EntityResolver",
        "Fact",
        "FactInput",
        "FactStatus",
        "FactgraphError",
        "Memory",
        "NotFound",
        "ResolvedEntity",
        "SchemaMismatch",
        "Settings",
        "ValidationError",
        "normalise",
    ]
    for name in graph.__all__:
        assert hasattr(graph, name)


def test_an_installed_wheel_carries_the_cypher_files(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-d", str(tmp_path)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("factgraph-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for path in sorted((ROOT / "cypher").rglob("*.cypher")):
        assert f"graph/_cypher/{path.relative_to(ROOT / 'cypher')}" in names
    assert cypher.load("fact_get").startswith("//")


def test_cli_has_help_for_every_command() -> None:
    for args in (["--help"], ["serve", "--help"], ["neo4j", "--help"], ["schema", "--help"]):
        out = subprocess.run(
            [sys.executable, "-m", "factgraph.cli", *args],
            capture_output=True,
            text=True,
            check=True,
        )
        assert "usage: factgraph" in out.stdout


def _compose_command() -> list[str] | None:
    """`docker compose` (v2 plugin) if it answers, else a standalone `docker-compose`."""
    if shutil.which("docker"):
        probe = subprocess.run(["docker", "compose", "version"], capture_output=True, check=False)
        if probe.returncode == 0:
            return ["docker", "compose"]
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    return None


@pytest.mark.skipif(_compose_command() is None, reason="no docker compose client on this machine")
@pytest.mark.parametrize("profile", [[], ["--profile", "replicas"]], ids=["default", "replicas"])
def test_docker_compose_file_is_valid(profile: list[str]) -> None:
    command = _compose_command()
    assert command is not None
    out = subprocess.run(
        [*command, "-f", str(ROOT / "docker-compose.yml"), *profile, "config", "-q"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr


def test_docker_compose_file_follows_the_compose_specification() -> None:
    """Without docker: the file against the Compose Specification's JSON schema (as vendored
    by check-jsonschema), which catches misspelt keys and wrongly shaped values."""
    validator = str(Path(sys.executable).parent / "check-jsonschema")
    compose = str(ROOT / "docker-compose.yml")
    out = subprocess.run(
        [validator, "--builtin-schema", "vendor.compose-spec", compose],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stdout + out.stderr


def _compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return loaded


def test_docker_compose_up_alone_still_runs_one_service_and_neo4j() -> None:
    services = _compose()["services"]
    assert {name for name, spec in services.items() if not spec.get("profiles")} == {
        "neo4j",
        "factgraph",
    }


def test_the_replicas_profile_runs_two_replicas_behind_a_balancer() -> None:
    services = _compose()["services"]
    profiled = {name for name, spec in services.items() if "replicas" in spec.get("profiles", [])}
    assert profiled == {"factgraph-a", "factgraph-b", "balancer"}
    for name in ("factgraph-a", "factgraph-b"):
        replica = services[name]
        assert replica["build"] == "."
        assert replica["environment"]["NEO4J_URI"].startswith("neo4j://")
        assert replica["environment"]["FACTGRAPH_HOST"] == "0.0.0.0"
        assert "ports" not in replica  # reached through the balancer only
        assert replica["depends_on"]["neo4j"]["condition"] == "service_healthy"
    balancer = services["balancer"]
    assert set(balancer["depends_on"]) == {"factgraph-a", "factgraph-b"}
    assert balancer["ports"] == ["8080:8080"]
    source, _, target = balancer["volumes"][0].partition(":")
    assert target.startswith("/etc/nginx/nginx.conf")
    config = (ROOT / source).read_text()
    upstream = re.search(r"upstream factgraph \{(.*?)\}", config, re.S)
    assert upstream is not None
    assert re.findall(r"server (\S+?):8000", upstream.group(1)) == ["factgraph-a", "factgraph-b"]
    assert "listen 8080;" in config
    published = [p for spec in services.values() for p in spec.get("ports", [])]
    assert len(published) == len(set(published))


def test_the_pinned_neo4j_versions_come_by_a_lock_naming_each_jar_once_with_its_hash() -> None:
    # A fresh clone fetches these straight from Maven Central (seconds, not Maven's minutes);
    # bumping a version without `scripts/maven_lock.py` would quietly bring the slow path back.
    from graph.config import CALENDAR_NEO4J_VERSION, DEFAULT_NEO4J_VERSION
    from graph.platform import maven_lock
    from graph.platform.cypher_shell import shell_version

    browser = Settings().local.browser_version
    names = [
        f"neo4j-{v}+browser-{browser}" for v in (DEFAULT_NEO4J_VERSION, CALENDAR_NEO4J_VERSION)
    ]
    names.append(f"cypher-shell-{shell_version(DEFAULT_NEO4J_VERSION)}")
    for name in names:
        jars = maven_lock.entries(maven_lock.LOCKS / f"{name}.tsv")
        files = [path.rsplit("/", 1)[-1] for path, _digest in jars]
        assert len(files) == len(set(files)) > 50, name
        assert all(re.fullmatch(r"[0-9a-f]{64}", digest) for _path, digest in jars), name
        assert all(path.endswith(".jar") and path.count("/") >= 3 for path, _d in jars), name
