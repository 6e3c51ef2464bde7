"""Under overload: past FACTGRAPH_MAX_QUEUE admitted requests the service refuses at once with
503 OVERLOADED and Retry-After, answers every request, writes nothing it refused, and keeps
/healthz and /metrics answerable. A real uvicorn on loopback, real Neo4j, real model."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

from factgraph.cli import server_options
from graph.config import DEFAULT_KEEP_ALIVE, Settings
from graph.memory import Memory
from graph.storage.db import Database
from resolvers.app import create_app
from tests.live_server import serve

REMEMBER = "remember(scope: $s, fact: {{text: {text}}}) {{ kind }}"
PEOPLE = ["Ana", "Bo", "Caro", "Dev", "Elif", "Farid", "Greta", "Hiro", "Ines", "Jon", "Kai"]
TOPICS = [
    "volcanoes",
    "tax-law",
    "sourdough",
    "chess",
    "beekeeping",
    "sailing",
    "watercolours",
    "jazz-piano",
    "marathons",
    "origami",
    "astronomy",
    "knitting",
    "opera",
    "surfing",
    "pottery",
    "birdwatching",
    "calligraphy",
    "rock-climbing",
    "beer-brewing",
    "fencing",
    "tango",
    "archery",
    "cheese-making",
    "kayaking",
    "glassblowing",
    "quantum-physics",
    "medieval-history",
    "fly-fishing",
    "woodworking",
    "snowboarding",
    "salsa",
    "robotics",
    "cryptography",
    "mushroom-foraging",
    "falconry",
    "ballet",
    "chemistry",
    "ice-hockey",
    "poetry",
    "skateboarding",
    "bonsai",
    "genealogy",
    "sculpture",
    "gardening",
    "scuba-diving",
    "harp",
    "typography",
    "rowing",
    "meteorology",
    "tarot",
    "parkour",
    "perfume-making",
    "mountaineering",
    "sumo",
    "welding",
    "ventriloquism",
    "sudoku",
    "curling",
    "puppetry",
    "bell-ringing",
    "magic-tricks",
    "beatboxing",
]


def distinct_texts(n: int, start: int = 0) -> list[str]:
    """Texts on different topics, so the near-duplicate check stores each as its own fact."""
    return [
        f"{PEOPLE[i % 11]} spent the whole weekend on {TOPICS[i].replace('-', ' ')}"
        for i in range(start, start + n)
    ]


def remember_many(texts: list[str]) -> str:
    """One mutation remembering every text in turn: mutations run serially, so this holds its
    admission slot for as long as all of those writes take."""
    fields = "\n".join(
        f"  w{i}: " + REMEMBER.format(text=f'"{text}"') for i, text in enumerate(texts)
    )
    return f"mutation($s: String!) {{\n{fields}\n}}"


def texts_in(db: Database, scope: str) -> set[str]:
    records, _, _ = db.driver.execute_query(
        "MATCH (f:Fact {scope: $scope}) RETURN f.text AS text", scope=scope, database_=db.name
    )
    return {str(r["text"]) for r in records}


def admitted(client: httpx.Client) -> float:
    for line in client.get("/metrics").text.splitlines():
        if line.startswith("factgraph_http_admitted_requests "):
            return float(line.split()[1])
    raise AssertionError("factgraph_http_admitted_requests is missing from /metrics")


@contextmanager
def service(
    memory: Memory, max_queue: int, retry_after: int = 1, per_tenant: int = 0
) -> Iterator[httpx.Client]:
    """The service with this queue depth; one tenant may fill all of it unless `per_tenant`."""
    settings = memory.settings.with_overrides(
        max_queue=max_queue, retry_after=retry_after, max_queue_per_tenant=per_tenant
    )
    with (
        serve(create_app(memory=memory, settings=settings)) as url,
        httpx.Client(base_url=url, timeout=60) as client,
    ):
        yield client


def in_background(work: Callable[[], httpx.Response]) -> tuple[threading.Thread, list[Any]]:
    """Run `work` in a thread; the list receives its response or the exception it raised."""
    out: list[Any] = []

    def run() -> None:
        try:
            out.append(work())
        except Exception as exc:  # reported by the test's assertions
            out.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    return thread, out


def assert_overloaded(response: httpx.Response, retry_after: int) -> None:
    assert response.status_code == 503, response.text
    assert response.headers["retry-after"] == str(retry_after)
    assert response.headers["content-type"] == "application/json"
    assert response.headers.get("x-request-id")


def test_past_the_queue_depth_requests_are_refused_at_once_and_nothing_else_starves(
    memory: Memory, db: Database, scope: str
) -> None:
    held_texts = distinct_texts(30)
    with service(memory, max_queue=1, retry_after=3) as client:
        holder, held = in_background(
            lambda: client.post(
                "/graphql", json={"query": remember_many(held_texts), "variables": {"s": scope}}
            )
        )
        deadline = time.monotonic() + 30
        while admitted(client) < 1:
            assert time.monotonic() < deadline and holder.is_alive(), "the slow write never ran"
            time.sleep(0.005)

        (refused_text,) = distinct_texts(1, start=40)
        write = client.post(
            "/graphql", json={"query": remember_many([refused_text]), "variables": {"s": scope}}
        )
        refused_while_holding = holder.is_alive()
        rest = client.post(
            "/api/v1/search", headers={"X-Scope": scope}, json={"query": "chess weekend"}
        )
        health = client.get("/healthz")
        metrics_page = client.get("/metrics")
        still_holding = holder.is_alive()
        holder.join(timeout=120)

    assert still_holding, "the slow mutation ended before the excess requests were sent"
    assert_overloaded(write, retry_after=3)
    error = write.json()["errors"][0]
    assert error["extensions"]["code"] == "OVERLOADED"
    assert "FACTGRAPH_MAX_QUEUE" in error["message"] and "nothing was done" in error["message"]
    assert refused_while_holding, "a refusal must not wait for the queue to drain"
    assert_overloaded(rest, retry_after=3)
    assert rest.json()["error"]["code"] == "OVERLOADED"
    assert health.status_code == 200 and health.json()["ok"] is True
    assert metrics_page.status_code == 200
    assert 'factgraph_http_refused_total{route="/graphql"}' in metrics_page.text
    assert 'factgraph_http_refused_total{route="/api/v1/search"}' in metrics_page.text

    (answer,) = held
    assert isinstance(answer, httpx.Response) and answer.status_code == 200, answer
    kinds = {field["kind"] for field in answer.json()["data"].values()}
    assert kinds == {"INSERT"}
    assert texts_in(db, scope) == set(held_texts), "only the admitted write may be stored"


def test_concurrent_writes_past_the_depth_get_200_or_503_and_only_the_answered_are_stored(
    memory: Memory, db: Database, scope: str
) -> None:
    batches = [distinct_texts(6, start=6 * w) for w in range(10)]
    barrier = threading.Barrier(len(batches))

    def post(client: httpx.Client, texts: list[str]) -> Callable[[], httpx.Response]:
        def send() -> httpx.Response:
            barrier.wait()
            return client.post(
                "/graphql", json={"query": remember_many(texts), "variables": {"s": scope}}
            )

        return send

    with service(memory, max_queue=2) as client:
        # One connection per writer, as separate agents would have.
        clients = [httpx.Client(base_url=str(client.base_url), timeout=60) for _ in batches]
        try:
            pairs = zip(clients, batches, strict=True)
            runs = [in_background(post(c, texts)) for c, texts in pairs]
            for thread, _ in runs:
                thread.join(timeout=120)
        finally:
            for c in clients:
                c.close()

    answers = [out[0] for _, out in runs]
    unanswered = [a for a in answers if not isinstance(a, httpx.Response)]
    assert unanswered == [], "every request must get an HTTP answer"
    statuses = sorted(a.status_code for a in answers)
    assert set(statuses) == {200, 503}, statuses
    assert statuses.count(200) >= 2, "the first two requests fit the queue depth"
    stored = texts_in(db, scope)
    for answer, texts in zip(answers, batches, strict=True):
        if answer.status_code == 200:
            kinds = {field["kind"] for field in answer.json()["data"].values()}
            assert kinds == {"INSERT"}
            assert set(texts) <= stored
        else:
            assert_overloaded(answer, retry_after=1)
            assert answer.json()["errors"][0]["extensions"]["code"] == "OVERLOADED"
            assert not set(texts) & stored, "a refused write must leave nothing written"


def test_queue_depth_keep_alive_and_retry_after_come_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in (
        "FACTGRAPH_MAX_QUEUE",
        "FACTGRAPH_RETRY_AFTER",
        "FACTGRAPH_KEEP_ALIVE",
        "FACTGRAPH_MAX_QUEUE_PER_TENANT",
        "FACTGRAPH_ADMISSION_WAIT",
    ):
        monkeypatch.delenv(name, raising=False)
    defaults = Settings.from_env()
    assert defaults.admission_wait == 2.0, "a lighter tenant waits as long as a silent Neo4j"
    monkeypatch.setenv("FACTGRAPH_ADMISSION_WAIT", "0")
    assert Settings.from_env().admission_wait == 0, "0: refused at once"
    monkeypatch.setenv("FACTGRAPH_ADMISSION_WAIT", "-1")
    with pytest.raises(ValueError, match="FACTGRAPH_ADMISSION_WAIT must be a number of seconds"):
        Settings.from_env()
    monkeypatch.delenv("FACTGRAPH_ADMISSION_WAIT")
    assert defaults.max_queue >= 4 and defaults.retry_after == 1
    assert defaults.tenant_queue == max(1, defaults.max_queue // 4), "a quarter for one tenant"
    assert defaults.keep_alive == DEFAULT_KEEP_ALIVE >= 60, "longer than clients keep idle"
    monkeypatch.setenv("FACTGRAPH_MAX_QUEUE", "0")
    monkeypatch.setenv("FACTGRAPH_RETRY_AFTER", "7")
    monkeypatch.setenv("FACTGRAPH_KEEP_ALIVE", "300")
    tuned = Settings.from_env()
    assert (tuned.max_queue, tuned.retry_after, tuned.keep_alive) == (0, 7, 300)
    monkeypatch.setenv("FACTGRAPH_MAX_QUEUE_PER_TENANT", "3")
    assert Settings.from_env().tenant_queue == 3
    monkeypatch.setenv("FACTGRAPH_MAX_QUEUE", "-1")
    with pytest.raises(ValueError, match="FACTGRAPH_MAX_QUEUE must be 0 or more"):
        Settings.from_env()
    monkeypatch.setenv("FACTGRAPH_MAX_QUEUE", "lots")
    with pytest.raises(ValueError, match="FACTGRAPH_MAX_QUEUE must be an integer"):
        Settings.from_env()


def test_serve_keeps_idle_connections_as_long_as_configured(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("FACTGRAPH_KEEP_ALIVE", raising=False)
    assert server_options(Settings.from_env(), "info")["timeout_keep_alive"] == 120
    monkeypatch.setenv("FACTGRAPH_KEEP_ALIVE", "30")
    assert server_options(Settings.from_env(), "info")["timeout_keep_alive"] == 30


def test_a_queue_depth_of_zero_admits_everything(memory: Memory, scope: str) -> None:
    texts = distinct_texts(4)
    with service(memory, max_queue=0) as client:
        runs = [
            in_background(
                lambda t=t: client.post(  # type: ignore[misc]
                    "/graphql", json={"query": remember_many([t]), "variables": {"s": scope}}
                )
            )
            for t in texts
        ]
        for thread, _ in runs:
            thread.join(timeout=60)
    assert [out[0].status_code for _, out in runs] == [200] * len(texts)


def test_a_tenant_that_floods_gets_the_refusals_and_another_is_served(
    memory: Memory, db: Database, scope: str, other_scope: str
) -> None:
    held_texts = distinct_texts(30)
    with service(memory, max_queue=4, per_tenant=1, retry_after=2) as client:
        holder, held = in_background(
            lambda: client.post(
                "/graphql", json={"query": remember_many(held_texts), "variables": {"s": scope}}
            )
        )
        deadline = time.monotonic() + 30
        while admitted(client) < 1:
            assert time.monotonic() < deadline and holder.is_alive(), "the slow write never ran"
            time.sleep(0.005)
        # Alone, a tenant may go past its share: nobody else is waiting for the room.
        alone = client.post(
            "/api/v1/search", headers={"X-Scope": scope}, json={"query": "chess weekend"}
        )
        # Another tenant arrives: served, and active from now on.
        (other_text,) = distinct_texts(1, start=41)
        other = client.post(
            "/graphql",
            json={"query": remember_many([other_text]), "variables": {"s": other_scope}},
        )
        # So the busiest tenant is held to its share: its next requests are refused.
        (flood_text,) = distinct_texts(1, start=40)
        flood = client.post(
            "/graphql", json={"query": remember_many([flood_text]), "variables": {"s": scope}}
        )
        flood_rest = client.post(
            "/api/v1/search", headers={"X-Scope": scope}, json={"query": "chess weekend"}
        )
        other_rest = client.post(
            "/api/v1/search", headers={"X-Scope": other_scope}, json={"query": "weekend"}
        )
        still_holding = holder.is_alive()
        holder.join(timeout=120)

    assert still_holding, "the slow mutation ended before the other requests were sent"
    assert held[0].status_code == 200, "the tenant's admitted request is served"
    assert alone.status_code == 200, alone.text
    assert_overloaded(flood, retry_after=2)
    error = flood.json()["errors"][0]
    assert error["extensions"]["code"] == "OVERLOADED"
    assert "FACTGRAPH_MAX_QUEUE_PER_TENANT" in error["message"]
    assert_overloaded(flood_rest, retry_after=2)
    assert other.status_code == 200 and other.json()["data"]["w0"]["kind"] == "INSERT"
    assert other_rest.status_code == 200, other_rest.text
    assert texts_in(db, other_scope) == {other_text}
    assert flood_text not in texts_in(db, scope), "a refused write leaves nothing written"
