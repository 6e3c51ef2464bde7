"""Shared fixtures: one real Neo4j and one real model per test run, a fresh scope per test.

Neo4j is the project's own local server unless NEO4J_URI points elsewhere: started if it is not
running, and then stopped at the end of the run (FACTGRAPH_TEST_KEEP_NEO4J=1, `make test
KEEP=1`, leaves it running for the next). Tests isolate by scope: each gets a unique scope name,
and its nodes are deleted afterwards, so tests never see each other's data.
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
from tests.mcp_helpers import TLS
from tests.private_neo4j import private_settings, wipe


def _server_of_this_worker() -> bool:
    """Under `pytest -n` (make test), each worker after the first tests against a local Neo4j
    of its own, set up here before anything reads the settings (service subprocesses inherit
    them too).

    Workers sharing one server saw each other's writes in what is global to a database:
    Lucene's term statistics moved a full-text score between two searches of one test, and
    schema applied by another worker's CLI start-up changed a cached plan. A server per worker
    keeps every test's view of its database as in a run with one worker. Its store is kept
    beside the first one (`neo4j-gw1`), on ports 100 above, with a small heap: test scopes
    are small. True when this worker has one.
    """
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    n = int(worker.removeprefix("gw") or 0)
    if n == 0 or os.environ.get("NEO4J_URI"):
        return False
    local = Settings.from_env().local
    os.environ["FACTGRAPH_NEO4J_HOME"] = str(local.home.with_name(f"{local.home.name}-{worker}"))
    os.environ["FACTGRAPH_NEO4J_BOLT_PORT"] = str(local.bolt_port + 100 * n)
    os.environ["FACTGRAPH_NEO4J_HTTP_PORT"] = str(local.http_port + 100 * n)
    os.environ["FACTGRAPH_NEO4J_HEAP"] = "1g"
    os.environ["FACTGRAPH_NEO4J_PAGECACHE"] = "512m"
    return True


WORKER_SERVER = _server_of_this_worker()

# The servers a test run starts are short-lived (graph/platform/neo4j_local.py: the JIT's first
# tier only, no quiet periods at stop): about half the CPU of a long-running one over a run.
os.environ.setdefault("FACTGRAPH_NEO4J_SHORT_LIVED", "1")

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


# The heaviest files, heaviest first (their tests' minutes in a `make test`): under `pytest -n`
# they go out first, after the spare server's tests, so that no worker is left alone with one of
# them at the end of the run.
SLOW_FILES = (
    "test_neo4j_upgrade.py",
    "test_hostile.py",
    "test_contract.py",
    "test_search.py",
    "test_import_resume.py",
    "test_recall.py",
    "test_search_selective.py",
    "test_batch.py",
    "test_browse_timeline.py",
    "test_console.py",
    "test_replicas.py",
    "test_cypher_shell.py",
    "test_chunks.py",
)
SPARE_GROUP = "spare-neo4j"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Order and group the run for parallel workers (pytest-xdist, `--dist loadgroup`).

    A file's tests run in one worker, so its module fixtures (a seeded corpus, a browser)
    are made once; every test that uses the spare server runs in one worker, which alone
    starts it (a second JVM per worker would cost more than the tests). The spare server's
    tests are handed out first, then the slowest files (`--no-loadscope-reorder` keeps this
    order; pytest-xdist would otherwise hand out the groups with the most tests first).

    It runs before pytest-xdist's own hook (tryfirst), which reads the marks. Run after it,
    as until issue 49, it grouped nothing: every test went out alone, a file's module fixtures
    were made in both workers, and each worker started a spare server of its own.
    """
    for item in items:
        spare = {"spare_neo4j", "empty_store"} & set(getattr(item, "fixturenames", ()))
        item.add_marker(pytest.mark.xdist_group(SPARE_GROUP if spare else item.path.name))

    def order(item: pytest.Item) -> int:
        group = item.get_closest_marker("xdist_group")
        if group is not None and group.args[0] == SPARE_GROUP:
            return 0
        name = item.path.name
        return 1 + SLOW_FILES.index(name) if name in SLOW_FILES else 1 + len(SLOW_FILES)

    items.sort(key=order)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    """Refuse a parallel run whose groups did not take: it would pass, but slowly.

    The groups travel in the node ids (`...::test@group`). pytest 9.2 moved node ids to a form
    whose old field pytest-xdist still writes to (pytest-xdist#1386), and a hook of ours that
    ran after pytest-xdist's added its marks too late: either way every test went out alone,
    without a word, and the run took minutes longer.
    """
    if node.config.getoption("dist") == "loadgroup" and ids and not any("@" in i for i in ids):
        raise pytest.UsageError(
            "pytest-xdist did not group the tests (pytest-xdist#1386): install the pytest "
            "that pyproject.toml asks for (`make setup`)"
        )


@pytest.fixture(scope="session")
def settings() -> Settings:
    return Settings.from_env()


def keep_neo4j() -> bool:
    """`make test KEEP=1`: the local servers a run starts stay up for the next run."""
    return os.environ.get("FACTGRAPH_TEST_KEEP_NEO4J", "") not in ("", "0")


@pytest.fixture(scope="session")
def neo4j_server(settings: Settings) -> Iterator[Settings]:
    """The local server this worker tests against, stopped at the end of the run unless
    FACTGRAPH_TEST_KEEP_NEO4J=1 (`make test KEEP=1`) keeps it for the next.

    A worker's own server (`neo4j-gw1`) left running after `make test` kept a fifth of a core
    busy (issue 49). Such a server is the suite's alone, so it is stopped whoever started it;
    `.factgraph/neo4j` may be the one `make run` serves from, so only if this run started it
    (under `make test`, tests/run_suite.sh starts and stops it).
    """
    if not settings.uses_local_neo4j:
        yield settings
        return
    local = LocalNeo4j(settings)
    ours = WORKER_SERVER or local.pid() is None
    local.start()
    yield settings
    if ours and not keep_neo4j():
        local.stop()


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
    nobody else writes to (they drop indexes, watch Lucene's segments, replace the database
    offline, or kill and restart the server: `spare_to_restart`). A test that needs another
    Neo4j version still starts its own."""
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


@pytest.fixture
def spare_to_restart(spare_neo4j: LocalNeo4j, empty_store: Database) -> Iterator[LocalNeo4j]:
    """The spare server, emptied, for a test that stops, kills or restarts it: running again
    afterwards, however the test ended.

    Each such test used to start a private server first; on two cores a start is a JVM's
    worth of CPU, which the spare has already spent.
    """
    try:
        yield spare_neo4j
    finally:
        spare_neo4j.start()


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
    with httpx.Client(base_url=server_url, timeout=120, verify=TLS) as client:
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
