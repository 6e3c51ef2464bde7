"""Past one machine: two service processes on one database, as behind a load balancer.

Two real `factgraph serve` processes reach the local Neo4j through the routing scheme
(`neo4j://`, what a cluster or Aura is reached by). A client that alternates between them
stands in for the balancer. What a user relies on: concurrent writers on both replicas still
store one fact per content and keep supersede chains linear; a write's bookmark, sent back to
the other replica, makes it read at least that write; searches served by both replicas are
counted exactly once each.
"""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from graph.config import Settings
from graph.errors import ValidationError
from graph.memory import Memory
from graph.storage import bookmarks, store
from graph.storage.bookmarks import EXTENSION, HEADER, MAX_BOOKMARKS
from graph.storage.db import Database
from tests.conftest import lives_in
from tests.live_server import free_port

REMEMBER = """
mutation($scope: String!, $fact: FactInput!) {
  remember(scope: $scope, fact: $fact) { kind fact { id status } matched { id } }
}
"""
SUPERSEDE = """
mutation($scope: String!, $id: ID!, $fact: FactInput!) {
  supersede(scope: $scope, id: $id, fact: $fact) { kind fact { id } matched { id } }
}
"""
FACT = "query($scope: String!, $id: ID!) { fact(scope: $scope, id: $id) { id text } }"
SEARCH = """
query($scope: String!, $q: String!) {
  search(scope: $scope, query: $q, options: {topK: 1}) { hits { fact { id } } }
}
"""


class Replica:
    """One `factgraph serve` process; GraphQL and REST calls against it."""

    def __init__(self, name: str, port: int, process: subprocess.Popen[bytes], log: Path):
        self.name = name
        self.url = f"http://127.0.0.1:{port}"
        self.process = process
        self.log = log
        self.client = httpx.Client(base_url=self.url, timeout=60)

    def graphql(self, query: str, bookmark: str | None = None, **variables: Any) -> httpx.Response:
        headers = {HEADER: bookmark} if bookmark else {}
        return self.client.post(
            "/graphql", json={"query": query, "variables": variables}, headers=headers
        )

    def data(self, query: str, bookmark: str | None = None, **variables: Any) -> dict[str, Any]:
        body = self.graphql(query, bookmark, **variables).json()
        assert not body.get("errors"), (self.name, body["errors"])
        data: dict[str, Any] = body["data"]
        return data

    def stop(self) -> None:
        """A graceful stop (SIGTERM), as a rolling restart or a scale-down does."""
        self.client.close()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_replica(name: str, settings: Settings, logs: Path) -> Replica:
    port = free_port()
    env = {
        **os.environ,
        "NEO4J_URI": f"neo4j://localhost:{settings.local.bolt_port}",
        "NEO4J_USER": settings.neo4j_user,
        "NEO4J_PASSWORD": settings.neo4j_password,
        "FACTGRAPH_HOME": str(settings.home),
        "FACTGRAPH_HOST": "127.0.0.1",
        "FACTGRAPH_PORT": str(port),
        "FACTGRAPH_AUTH": "off",
        "FACTGRAPH_LOG_FORMAT": "text",
        # These tests send bursts of one scope's requests (5 at once to a replica) and check
        # what replicas share; one tenant's share of admission is tests/test_overload.py's.
        "FACTGRAPH_MAX_QUEUE_PER_TENANT": "0",
    }
    log = logs / f"{name}.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "factgraph.cli", "serve", "--log-level", "warning"],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    return Replica(name, port, process, log)


def wait_healthy(replica: Replica, deadline: float) -> None:
    while time.monotonic() < deadline:
        if replica.process.poll() is not None:
            raise RuntimeError(f"{replica.name} exited: {replica.log.read_text()[-2000:]}")
        try:
            if replica.client.get("/healthz").status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{replica.name} did not become healthy: {replica.log.read_text()[-2000:]}")


def started(name: str, settings: Settings, logs: Path) -> Replica:
    replica = start_replica(name, settings, logs)
    try:
        wait_healthy(replica, time.monotonic() + 90)
    except BaseException:
        replica.stop()
        raise
    return replica


@pytest.fixture(scope="module")
def replicas(
    neo4j_server: Settings, db: Database, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Replica, Replica]]:
    """Two service processes through neo4j:// (the `db` fixture has applied the schema)."""
    if not neo4j_server.uses_local_neo4j:
        pytest.skip("starts replicas against the project's own Neo4j")
    logs = tmp_path_factory.mktemp("replicas")
    pair = (start_replica("A", neo4j_server, logs), start_replica("B", neo4j_server, logs))
    try:
        deadline = time.monotonic() + 90
        for replica in pair:
            wait_healthy(replica, deadline)
        yield pair
    finally:
        for replica in pair:
            replica.stop()


def alternating(
    replicas: tuple[Replica, Replica], calls: int, call: Callable[[Replica, int], Any]
) -> list[Any]:
    """`calls` concurrent calls, every other one on the other replica (a round-robin balancer)."""
    targets = list(itertools.islice(itertools.cycle(replicas), calls))
    with ThreadPoolExecutor(max_workers=calls) as pool:
        return list(pool.map(call, targets, range(calls)))


def count(db: Database, query: str, **params: Any) -> int:
    return int(db.driver.execute_query(query, params).records[0]["n"])


@pytest.mark.parametrize(
    "uri", ["neo4j://core1:7687", "neo4j+s://abcd1234.databases.neo4j.io", "bolt+ssc://db:7687"]
)
def test_cluster_and_aura_connection_strings_are_accepted(
    uri: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NEO4J_URI", uri)
    assert Settings.from_env().bolt_uri == uri


def test_a_connection_string_the_driver_cannot_use_stops_start_up_with_the_schemes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("NEO4J_URI", "https://abcd1234.databases.neo4j.io")
    with pytest.raises(ValueError, match=r"neo4j\+s://.*got 'https://"):
        Settings.from_env()


def test_both_replicas_serve_through_the_routing_scheme(replicas: tuple[Replica, Replica]) -> None:
    for replica in replicas:
        health = replica.client.get("/healthz").json()
        assert health["ok"] is True, health


def test_the_same_fact_sent_to_both_replicas_at_once_is_stored_once(
    replicas: tuple[Replica, Replica], db: Database, scope: str
) -> None:
    fact = {"text": "Caroline adopted a puppy named Oscar"}
    results = alternating(
        replicas, 8, lambda r, _: r.data(REMEMBER, scope=scope, fact=fact)["remember"]
    )
    assert len({result["fact"]["id"] for result in results}) == 1
    assert sorted(result["kind"] for result in results) == ["DEDUP"] * 7 + ["INSERT"]
    assert count(db, "MATCH (f:Fact {scope: $scope}) RETURN count(f) AS n", scope=scope) == 1


def _chain_is_linear(db: Database, scope: str, facts: int) -> None:
    """Every fact supersedes at most one and is superseded by at most one, one active head,
    and a single path runs through all `facts` facts."""
    assert count(db, "MATCH (f:Fact {scope: $scope}) RETURN count(f) AS n", scope=scope) == facts
    forks = count(
        db,
        "MATCH (f:Fact {scope: $scope}) WHERE COUNT { (f)<-[:SUPERSEDES]-() } > 1 "
        "OR COUNT { (f)-[:SUPERSEDES]->() } > 1 RETURN count(f) AS n",
        scope=scope,
    )
    assert forks == 0
    active = count(
        db, "MATCH (f:Fact {scope: $scope, status: 'active'}) RETURN count(f) AS n", scope=scope
    )
    assert active == 1
    longest = count(
        db,
        "MATCH p = (head:Fact {scope: $scope, status: 'active'})-[:SUPERSEDES*0..]->(:Fact) "
        "RETURN max(length(p)) AS n",
        scope=scope,
    )
    assert longest == facts - 1


def test_contradicting_writes_on_both_replicas_keep_one_linear_chain(
    replicas: tuple[Replica, Replica], db: Database, scope: str
) -> None:
    cities = ["Oslo", "Rome", "Lima", "Kyiv", "Doha", "Nuuk"]

    def move(replica: Replica, i: int) -> str:
        fact = lives_in(cities[i])
        kind: str = replica.data(REMEMBER, scope=scope, fact=fact)["remember"]["kind"]
        return kind

    kinds = alternating(replicas, len(cities), move)
    assert sorted(kinds) == ["INSERT"] + ["SUPERSEDE"] * (len(cities) - 1)
    _chain_is_linear(db, scope, len(cities))


def test_supersedes_of_one_fact_on_both_replicas_let_exactly_one_through(
    replicas: tuple[Replica, Replica], db: Database, scope: str
) -> None:
    a, _ = replicas
    old = a.data(REMEMBER, scope=scope, fact={"text": "The launch is on Monday"})["remember"]

    def supersede(replica: Replica, i: int) -> dict[str, Any]:
        fact = {"text": f"The launch moved to day {i + 2} of the month"}
        body: dict[str, Any] = replica.graphql(
            SUPERSEDE, scope=scope, id=old["fact"]["id"], fact=fact
        ).json()
        return body

    answers = alternating(replicas, 6, supersede)
    won = [answer for answer in answers if not answer.get("errors")]
    refused = [
        answer["errors"][0]["extensions"]["code"] for answer in answers if answer.get("errors")
    ]
    assert len(won) == 1
    assert refused == ["CONFLICT"] * 5
    _chain_is_linear(db, scope, 2)


def test_explicit_supersedes_racing_contradictions_on_both_replicas_keep_one_chain(
    replicas: tuple[Replica, Replica], db: Database, scope: str
) -> None:
    """A supersede locks only its fact; a contradiction that read the slot before it committed
    finds the fact retired and decides again, on the fact that replaced it."""
    a, _ = replicas

    first = a.data(REMEMBER, scope=scope, fact=lives_in("Oslo"))["remember"]["fact"]["id"]

    def write(replica: Replica, i: int) -> str:
        if i % 2:
            body = replica.graphql(SUPERSEDE, scope=scope, id=first, fact=lives_in(f"Rome{i}"))
        else:
            body = replica.graphql(REMEMBER, scope=scope, fact=lives_in(f"Lima{i}"))
        answer = body.json()
        if answer.get("errors"):
            code: str = answer["errors"][0]["extensions"]["code"]
            return code
        kind: str = next(iter(answer["data"].values()))["kind"]
        return kind

    outcomes = alternating(replicas, 8, write)
    assert set(outcomes) <= {"SUPERSEDE", "CONFLICT"}
    _chain_is_linear(db, scope, 1 + outcomes.count("SUPERSEDE"))


def test_a_contradiction_whose_fact_was_superseded_under_it_decides_again(
    memory: Memory, scope: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The interleaving the test above can only hope for, forced: a remember has read the slot
    (Oslo active) when an explicit supersede replaces Oslo with Rome and commits. Retiring
    Oslo then finds it retired; the remember decides again and supersedes Rome instead of
    leaving two active facts."""

    oslo = memory.remember(scope, lives_in("Oslo"))
    slot_read, superseded = threading.Event(), threading.Event()
    read_context = store.write_context

    def pausing(tx: Any, **kwargs: Any) -> store.WriteContext:
        context = read_context(tx, **kwargs)
        if not slot_read.is_set():
            slot_read.set()
            superseded.wait(10)
        return context

    monkeypatch.setattr(store, "write_context", pausing)
    with ThreadPoolExecutor(1) as pool:
        lima = pool.submit(memory.remember_with_decision, scope, lives_in("Lima"))
        assert slot_read.wait(10)
        rome = memory.supersede(scope, oslo.id, lives_in("Rome"))
        superseded.set()
        decision = lima.result(timeout=30)
    assert decision.kind.value == "supersede"
    assert decision.matched is not None and decision.matched.id == rome.fact.id
    chain = memory.history(scope, oslo.id)
    assert [fact.object for fact in chain] == ["Oslo", "Rome", "Lima"]
    assert [fact.status.value for fact in chain] == ["superseded", "superseded", "active"]


def test_a_write_on_one_replica_is_read_on_the_other_with_its_bookmark(
    replicas: tuple[Replica, Replica], scope: str
) -> None:
    a, b = replicas
    response = a.graphql(REMEMBER, scope=scope, fact={"text": "Melanie paints sunsets"})
    bookmark = response.headers.get(HEADER)
    assert bookmark
    body = response.json()
    assert body["extensions"][EXTENSION] == bookmark
    fact_id = body["data"]["remember"]["fact"]["id"]

    read = b.graphql(FACT, bookmark, scope=scope, id=fact_id)
    assert read.status_code == 200
    assert read.json()["data"]["fact"] == {"id": fact_id, "text": "Melanie paints sunsets"}
    assert HEADER not in read.headers  # a read hands back no bookmark: it wrote nothing

    # REST writes carry it too, and the next write moves it on.
    rest = b.client.post(
        "/api/v1/memories",
        json={"content": "Melanie visits Nuuk"},
        headers={"X-Scope": scope, HEADER: bookmark},
    )
    assert rest.status_code == 201, rest.text
    assert rest.headers.get(HEADER) not in (None, bookmark)


# A bookmark of a transaction that will never happen: Neo4j would wait 30 s for it, per try.
FUTURE = "FB:kcwQV8628tc+SGuQY6OaMfRq2MoA////kA=="


def test_only_bookmarks_the_service_signed_are_taken_back(
    replicas: tuple[Replica, Replica], db: Database, scope: str
) -> None:
    """Forged bookmarks are refused at once with a clear 400, before Neo4j sees them."""
    a, b = replicas
    written = a.graphql(REMEMBER, scope=scope, fact={"text": "Ana keeps bees"})
    signed = written.headers[HEADER]
    raw, _, mac = signed.partition(".")
    for forged in ("not a bookmark!", raw, FUTURE, f"{FUTURE}.{mac}", f"{raw}.{'0' * 32}"):
        refused = b.graphql(FACT, forged, scope=scope, id="x")
        assert refused.status_code == 400, forged
        assert refused.json()["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
        assert HEADER in refused.json()["errors"][0]["message"]
    too_many = db.signer().sign(f"FB:{i}" for i in range(MAX_BOOKMARKS + 1))
    assert b.graphql(FACT, too_many, scope=scope, id="x").status_code == 400


def test_a_signed_bookmark_reaches_neo4j_on_the_other_replica(
    replicas: tuple[Replica, Replica], db: Database, scope: str
) -> None:
    """Signed by the key every replica reads from Neo4j, but nothing Neo4j can parse: only
    Neo4j can refuse it, so the bookmark went all the way."""
    _, b = replicas
    unparseable = db.signer().sign(["FB:garbage"])
    answer = b.client.get(
        f"/api/v1/memories/{'x' * 8}/history", headers={"X-Scope": scope, HEADER: unparseable}
    )
    assert answer.status_code == 422, answer.text  # REST's status for refused input
    assert HEADER in answer.json()["error"]["message"]


def test_every_transaction_of_a_request_waits_for_its_bookmarks(memory: Memory, scope: str) -> None:
    """Searches (both overlapped halves), reads and writes all carry the request's bookmarks:
    one Neo4j cannot parse fails each of them instead of being skipped by some."""
    stored = memory.remember(scope, {"text": "Oscar sleeps under the stairs"})
    with bookmarks.request_scope(["FB:garbage"]):
        with pytest.raises(ValidationError):
            memory.search(scope, "where does Oscar sleep")
        with pytest.raises(ValidationError):
            memory.get(scope, stored.id)
        with pytest.raises(ValidationError):
            memory.remember(scope, {"text": "Oscar snores"})
    assert [hit.fact.id for hit in memory.search(scope, "Oscar").hits] == [stored.id]


def test_a_write_in_a_request_hands_back_the_bookmark_the_process_now_waits_for(
    memory: Memory, scope: str
) -> None:
    with bookmarks.request_scope() as request:
        assert request.to_return() == frozenset()
        memory.remember(scope, {"text": "Melanie bought a kayak"})
        handed_back = request.to_return()
    assert handed_back
    assert handed_back <= set(memory.db.bookmarks.get_bookmarks())


def test_searches_served_by_both_replicas_are_counted_once_each(
    replicas: tuple[Replica, Replica], db: Database, scope: str
) -> None:
    a, _ = replicas
    fact_id = a.data(REMEMBER, scope=scope, fact={"text": "Oscar the puppy chews shoes"})[
        "remember"
    ]["fact"]["id"]
    searches = 10
    hits = alternating(
        replicas,
        searches,
        lambda r, _: r.data(SEARCH, scope=scope, q="puppy shoes")["search"]["hits"],
    )
    assert all(found == [{"fact": {"id": fact_id}}] for found in hits)
    query = "MATCH (f:Fact {id: $id}) RETURN f.access_count AS n"
    deadline = time.monotonic() + 10
    while count(db, query, id=fact_id) < searches and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(1.0)  # past both recorders' coalescing window: nothing more may arrive
    assert count(db, query, id=fact_id) == searches


def test_a_replica_stopped_right_after_serving_searches_has_counted_them_all(
    neo4j_server: Settings, db: Database, scope: str, tmp_path: Path
) -> None:
    """A scale-down or rolling restart stops a replica with access bookkeeping still queued:
    the graceful stop writes it."""
    replica = started("C", neo4j_server, tmp_path)
    try:
        fact_id = replica.data(REMEMBER, scope=scope, fact={"text": "Jon repairs old radios"})[
            "remember"
        ]["fact"]["id"]
        for _ in range(5):
            found = replica.data(SEARCH, scope=scope, q="radios")["search"]["hits"]
            assert found == [{"fact": {"id": fact_id}}]
    finally:
        replica.stop()
    # uvicorn shuts down gracefully, then re-raises the signal it caught.
    assert replica.process.returncode in (0, -signal.SIGTERM), replica.log.read_text()[-2000:]
    assert count(db, "MATCH (f:Fact {id: $id}) RETURN f.access_count AS n", id=fact_id) == 5
