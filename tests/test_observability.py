"""What operators see: request ids, JSON logs, Prometheus metrics, timed stages, clean 500s."""

from __future__ import annotations

import asyncio
import gc
import io
import json
import logging
import sys

import httpx
import pytest
from starlette.types import Receive, Scope, Send

from graph.memory import Memory
from graph.observability import tracing
from graph.observability.logs import JsonFormatter, setup_logging
from resolvers.app import create_app
from resolvers.http.observe import RequestObserver
from tests.conftest import GraphQLClient
from tests.live_server import serve

REMEMBER = """mutation($scope: String!, $text: String!) {
  remember(scope: $scope, fact: {text: $text}) { kind }
}"""


def test_request_id_is_echoed_or_made(http: httpx.Client) -> None:
    mine = http.get("/healthz", headers={"X-Request-ID": "agent-7.call-42"})
    assert mine.headers["x-request-id"] == "agent-7.call-42"
    made = http.get("/healthz")
    insane = http.get("/healthz", headers={"X-Request-ID": "no spaces or !bangs"})
    assert len(made.headers["x-request-id"]) == 32
    assert insane.headers["x-request-id"] not in (
        "no spaces or !bangs",
        made.headers["x-request-id"],
    )


def test_metrics_cover_requests_neo4j_decisions_and_stages(
    http: httpx.Client, gql: GraphQLClient, scope: str
) -> None:
    assert gql.data(REMEMBER, scope=scope, text="Mo plays the oud")["remember"]["kind"] == "INSERT"
    page = http.get("/metrics")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/plain")
    text = page.text
    assert 'factgraph_http_requests_total{method="POST",route="/graphql",status="200"}' in text
    assert 'factgraph_http_request_duration_seconds_bucket{le="0.5",method="POST"' in text
    assert 'factgraph_neo4j_query_duration_seconds_count{query="remember"}' in text
    assert 'factgraph_pipeline_decisions_total{kind="insert"}' in text
    assert 'factgraph_stage_duration_seconds_count{outcome="ok",stage="graphql.remember"}' in text
    assert scope not in text, "labels must never carry a scope"


def test_json_logs_carry_the_request_id() -> None:
    stream = io.StringIO()
    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    try:
        setup_logging("info", "json", stream)
        token = tracing.request_id.set("req-123")
        try:
            logging.getLogger("factgraph.test").info("hello %s", "world", extra={"n": 3})
        finally:
            tracing.request_id.reset(token)
    finally:
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])
    entry = json.loads(stream.getvalue().strip().splitlines()[-1])
    assert entry["message"] == "hello world" and entry["request_id"] == "req-123"
    assert entry["level"] == "info" and entry["logger"] == "factgraph.test" and entry["n"] == 3


def test_exceptions_are_logged_with_traceback_in_json() -> None:
    formatter = JsonFormatter()
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        record = logging.getLogger("x").makeRecord(
            "x", logging.ERROR, __file__, 1, "failed", (), sys.exc_info()
        )
    entry = json.loads(formatter.format(record))
    assert "RuntimeError: boom" in entry["exception"]


def test_stages_reach_listeners_with_their_duration_and_outcome() -> None:
    seen: list[tuple[str, float, bool]] = []

    def listener(name: str, seconds: float, failed: bool) -> None:
        seen.append((name, seconds, failed))

    tracing.add_listener(listener)
    try:
        with tracing.span("remember", scope_kind="test"), tracing.span("remember.embed"):
            pass
        with pytest.raises(ValueError), tracing.span("search.vector"):
            raise ValueError("bad")
    finally:
        tracing.remove_listener(listener)
    assert [(name, failed) for name, _, failed in seen] == [
        ("remember.embed", False),
        ("remember", False),
        ("search.vector", True),
    ]
    assert all(seconds >= 0 for _, seconds, _ in seen)


async def _broken(scope: Scope, receive: Receive, send: Send) -> None:
    raise RuntimeError("secret internals at /srv/app.py line 12")


def test_an_unhandled_error_is_a_bare_500_with_the_request_id(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def call() -> httpx.Response:
        transport = httpx.ASGITransport(app=RequestObserver(_broken))
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            return await client.get("/api/v1/x", headers={"X-Request-ID": "r-500"})

    with caplog.at_level(logging.ERROR, logger="factgraph.http"):
        response = asyncio.run(call())
    assert response.status_code == 500
    assert response.json() == {
        "error": {
            "code": "INTERNAL_SERVER_ERROR",
            "message": "Internal server error",
            "request_id": "r-500",
        }
    }
    assert "secret internals" not in response.text
    assert any("secret internals" in str(r.exc_info) for r in caplog.records)


def test_remember_and_search_stages_are_timed_for_prometheus(memory: Memory, scope: str) -> None:
    seen: list[str] = []

    def listener(name: str, seconds: float, failed: bool) -> None:
        seen.append(name)

    tracing.add_listener(listener)
    try:
        memory.remember(scope, {"text": "Timed stages tell where the time goes"})
        memory.search(scope, "where does the time go")
    finally:
        tracing.remove_listener(listener)
    assert {"remember.embed", "remember.transaction"} <= set(seen)
    assert any(name.startswith("search.") for name in seen)
    assert not any(name.startswith(("neo4j.", "embeddings")) for name in seen), (
        "Neo4j calls and model runs are spans, not stages: they have metrics of their own"
    )


def test_the_service_freezes_what_is_alive_at_startup(memory: Memory) -> None:
    # Full collections must not walk the schema, model and driver: a ~40 ms pause otherwise.
    gc.unfreeze()
    assert gc.get_freeze_count() == 0
    with serve(create_app(memory=memory)) as url:
        assert httpx.get(f"{url}/healthz", timeout=30).status_code == 200
        assert gc.get_freeze_count() > 10_000
