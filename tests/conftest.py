"""Shared fixtures: one real Neo4j and one real model per test run, a fresh scope per test.

Neo4j is the project's own local server (started once, left running for the next run) unless
NEO4J_URI points elsewhere. Tests isolate by scope: each gets a unique scope name, and its
nodes are deleted afterwards, so tests never see each other's data.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from graph.config import Settings
from graph.memory import Memory
from graph.platform.embedding import Embedder
from graph.platform.neo4j_local import LocalNeo4j
from graph.search import access, candidates
from graph.storage.db import Database
from graph.storage.schema import apply_schema
from resolvers.app import create_app
from tests.live_server import serve
from tests.private_neo4j import private_settings, wipe


def _server_of_this_worker() -> None:
    """Under `pytest -n` (make test), each worker after the first tests against a local Neo4j
    of its own, set up here before anything reads the settings (service subprocesses inherit
    them too).

    Workers sharing one server saw each other's writes in what is global to a database:
    Lucene's term statistics moved a full-text score between two searches of one test, and
    schema applied by another worker's CLI start-up changed a cached plan. A server per worker
    keeps every test's view of its database as in a run with one worker. Its store is kept
    beside the first one (`neo4j-gw1`), on ports 100 above, with a small heap: test scopes
    are small.
    """
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    n = int(worker.removeprefix("gw") or 0)
    if n == 0 or os.environ.get("NEO4J_URI"):
        return
    local = Settings.from_env().local
    os.environ["FACTGRAPH_NEO4J_HOME"] = str(local.home.with_name(f"{local.home.name}-{worker}"))
    os.environ["FACTGRAPH_NEO4J_BOLT_PORT"] = str(local.bolt_port + 100 * n)
    os.environ["FACTGRAPH_NEO4J_HTTP_PORT"] = str(local.http_port + 100 * n)
    os.environ["FACTGRAPH_NEO4J_HEAP"] = "1g"
    os.environ["FACTGRAPH_NEO4J_PAGECACHE"] = "512m"


_server_of_this_worker()

# Every Database of the run (and every service subprocess, which inherits the environment)
# raises the server's notifications as warnings; pyproject's filterwarnings makes a deprecation
# an error, so a deprecated procedure or syntax on any path a test takes fails that test.
os.environ["FACTGRAPH_NEO4J_NOTIFICATION_WARNINGS"] = "1"

# mem0's clients (tests/test_mem0_*.py) report usage to PostHog unless told not to, and keep a
# config file in ~/.mem0: neither may leave the machine or the tree. Set before any test module
# imports them (they read it at import), and inherited by the 1.x and JavaScript clients'
# processes. Lower case: the JavaScript client compares with "false" exactly.
os.environ["MEM0_TELEMETRY"] = "false"
os.environ.setdefault(
    "MEM0_DIR", str(Path(__file__).resolve().parent.parent / ".factgraph" / "mem0")
)


# Tests that start a server of their own or load one hard: under `pytest -n` (make test) they
# go out first, so that no worker is left alone with one of them at the end of the run.
SLOW_FILES = frozenset(
    {
        "test_import_initial.py",
        "test_faults.py",
        "test_local_neo4j.py",
        "test_embed_jobs.py",
        "test_import_resume.py",
        "test_hostile.py",
        "test_cypher_shell.py",
        "test_neo4j_upgrade.py",
    }
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Order and group the run for parallel workers (pytest-xdist, `--dist loadgroup`).

    A file's tests run in one worker, so its module fixtures (a seeded corpus, a browser)
    are made once; every test that uses the spare server runs in one worker, which alone
    starts it (a second JVM per worker would cost more than the tests). The slowest files are
    handed out first.
    """
    for item in items:
        spare = {"spare_neo4j", "empty_store"} & set(getattr(item, "fixturenames", ()))
        item.add_marker(pytest.mark.xdist_group("spare-neo4j" if spare else item.path.name))
    items.sort(key=lambda item: item.path.name not in SLOW_FILES)


@pytest.fixture(scope="session")
def settings() -> Settings:
    return Settings.from_env()


@pytest.fixture(scope="session")
def neo4j_server(settings: Settings) -> Settings:
    if settings.uses_local_neo4j:
        LocalNeo4j(settings).start()
    return settings


@pytest.fixture(scope="session")
def embedder(settings: Settings) -> Embedder:
    return Embedder(settings)


@pytest.fixture(scope="session")
def db(neo4j_server: Settings, embedder: Embedder) -> Iterator[Database]:
    database = Database(neo4j_server)
    apply_schema(database, embedder.dimensions, embedder.id)
    yield database
    database.close()


@pytest.fixture(scope="session")
def memory(db: Database, embedder: Embedder) -> Memory:
    return Memory(db, embedder)


@pytest.fixture(scope="session")
def spare_neo4j(
    settings: Settings, neo4j_server: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LocalNeo4j]:
    """A second local server of the suite's own, started once, for tests that need a store
    nobody else writes to (they drop indexes, or watch Lucene's segments). Tests that kill or
    restart a server, or need one never started, still start their own."""
    server = LocalNeo4j(private_settings(settings, tmp_path_factory.mktemp("spare") / "neo4j"))
    server.start()
    yield server
    server.kill()  # nothing to keep: a graceful stop would only cost time


@pytest.fixture
def empty_store(spare_neo4j: LocalNeo4j) -> Iterator[Database]:
    """The spare server's database, emptied of whatever the test before left (wipe)."""
    database = Database(spare_neo4j.settings)
    try:
        wipe(database)
        yield database
    finally:
        database.close()


@pytest.fixture(autouse=True)
def _background_work_ends_with_its_test(request: pytest.FixtureRequest) -> Iterator[None]:
    """What a test set going in the background ends before the next test starts.

    Searches leave work behind on purpose: scope shares read again past their TTL
    (graph/search/candidates.py) and access counts written after the response
    (graph/search/access.py). Left running, their queries land in the next test's database
    hooks or counts (issue 40: a test counted a third `search_scope_share` read that the test
    before it had queued).
    """
    yield
    candidates.refreshes_done(timeout=60)
    db = getattr(request.node, "funcargs", {}).get("db")  # set up for this test, if at all
    if isinstance(db, Database) and not access.flush_pending(db, timeout=60):
        raise RuntimeError("the access recorder did not write what this test queued")


def _drop_scope(db: Database, scope: str) -> None:
    db.write("scope_delete", {"scope": scope})


@pytest.fixture
def scope(db: Database) -> Iterator[str]:
    """A scope no other test uses; everything in it is deleted afterwards."""
    name = f"test-{uuid.uuid4().hex[:12]}"
    yield name
    _drop_scope(db, name)


@pytest.fixture
def other_scope(db: Database) -> Iterator[str]:
    name = f"test-{uuid.uuid4().hex[:12]}"
    yield name
    _drop_scope(db, name)


@pytest.fixture(scope="session")
def server_url(memory: Memory) -> Iterator[str]:
    """A real uvicorn server on loopback, serving the shared memory."""
    with serve(create_app(memory=memory)) as url:
        yield url


@pytest.fixture(scope="module")
def secured(memory: Memory) -> Iterator[tuple[Starlette, str]]:
    """A server that asks every caller for an API key, and its URL; one per test module."""
    app = create_app(memory=memory, require_auth=True)
    with serve(app) as url:
        yield app, url


@pytest.fixture
def http(server_url: str) -> Iterator[httpx.Client]:
    # Hang detection only (pytest-timeout has the last word): 30 s was exceeded by a first
    # search on a machine loaded many times over its cores, which failed a fuzz test.
    with httpx.Client(base_url=server_url, timeout=120) as client:
        yield client


class GraphQLClient:
    """Posts GraphQL to the live server and returns the decoded JSON body."""

    def __init__(self, client: httpx.Client) -> None:
        self.client = client

    def __call__(self, query: str, **variables: object) -> dict[str, Any]:
        response = self.client.post("/graphql", json={"query": query, "variables": variables})
        assert response.status_code in (200, 400, 401, 403, 503), response.text
        body: dict[str, Any] = response.json()
        return body

    def data(self, query: str, **variables: object) -> dict[str, Any]:
        """The `data` of a response that must have no errors."""
        body = self(query, **variables)
        assert not body.get("errors"), body.get("errors")
        data = body["data"]
        assert isinstance(data, dict)
        return data


@pytest.fixture
def gql(http: httpx.Client) -> GraphQLClient:
    return GraphQLClient(http)


def lives_in(city: str, who: str = "Melanie", **extra: Any) -> dict[str, Any]:
    """Where someone lives: a single-valued slot, so each new city contradicts the last."""
    return {
        "text": f"{who} lives in {city}",
        "subject": who,
        "predicate": "lives_in",
        "object": city,
        **extra,
    }
