"""Traces through OpenTelemetry: what an operator's OTLP back end receives from the service.

Spans are read from the SDK's in-memory exporter while the real service answers real requests
(graph/observability/tracing.py traces into it through `use_provider`), and from a real
`factgraph serve` exporting over OTLP/HTTP to a receiver in this test, configured by nothing
but the standard OTEL_* variables.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from graph.config import Settings
from graph.memory import Memory
from graph.observability import otel, tracing
from graph.observability.logs import JsonFormatter
from tests.cli_helpers import cli_env
from tests.live_server import free_port

REMEMBER = """mutation($scope: String!, $text: String!) {
  remember(scope: $scope, fact: {text: $text}) { kind fact { id } }
}"""
SEARCH = """query($scope: String!, $q: String!) {
  search(scope: $scope, query: $q) { hits { fact { id text } } }
}"""
CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
TRACEPARENT = f"00-{CALLER_TRACE}-00f067aa0ba902b7-01"


class Spans:
    """The finished spans of the service, as an OTLP back end would receive them."""

    def __init__(self, exporter: InMemorySpanExporter) -> None:
        self.exporter = exporter

    def all(self) -> Sequence[ReadableSpan]:
        return self.exporter.get_finished_spans()

    def request(self, request_id: str) -> ReadableSpan:
        """The server span of one request, once it has ended (just after the answer left)."""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            for span in self.all():
                if (span.attributes or {}).get("factgraph.request_id") == request_id:
                    return span
            time.sleep(0.01)
        raise AssertionError(f"no span for request {request_id}")

    def under(self, root: ReadableSpan) -> list[ReadableSpan]:
        """Every span below `root`, in the order they started."""
        spans = [s for s in self.all() if s.context.trace_id == root.context.trace_id]
        by_id = {s.context.span_id: s for s in spans}

        def descends(span: ReadableSpan) -> bool:
            while span.parent is not None and span.parent.span_id in by_id:
                span = by_id[span.parent.span_id]
                if span is root:
                    return True
            return False

        return sorted((s for s in spans if descends(s)), key=lambda s: s.start_time or 0)


@pytest.fixture
def spans() -> Iterator[Spans]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.use_provider(provider)
    try:
        yield Spans(exporter)
    finally:
        tracing.use_provider(None)
        provider.shutdown()


def parent_of(span: ReadableSpan, among: Sequence[ReadableSpan]) -> ReadableSpan:
    assert span.parent is not None, span.name
    (found,) = [s for s in among if s.context.span_id == span.parent.span_id]
    return found


def values(span: ReadableSpan) -> list[str]:
    return [str(v) for v in (span.attributes or {}).values()]


def test_a_remember_and_a_search_are_traced_from_request_to_neo4j_and_model(
    spans: Spans, http: httpx.Client, scope: str
) -> None:
    text = f"Otto keeps bees on a roof in Ghent ({uuid.uuid4().hex[:6]})"
    written = http.post(
        "/graphql",
        json={"query": REMEMBER, "variables": {"scope": scope, "text": text}},
        headers={"X-Request-ID": "trace-remember", "traceparent": TRACEPARENT},
    )
    assert written.json()["data"]["remember"]["kind"] == "INSERT"
    query = f"who keeps bees in Ghent {uuid.uuid4().hex[:6]}"  # new: the model runs
    found = http.post(
        "/graphql",
        json={"query": SEARCH, "variables": {"scope": scope, "q": query}},
        headers={"X-Request-ID": "trace-search"},
    )
    assert found.json()["data"]["search"]["hits"]

    # remember: the request, joined to the caller's trace; its field; the stages; the model
    # run; the transaction and each statement in it.
    request = spans.request("trace-remember")
    assert request.kind is SpanKind.SERVER and request.name == "POST /graphql"
    assert format(request.context.trace_id, "032x") == CALLER_TRACE
    assert request.parent is not None and request.parent.is_remote
    attributes = request.attributes or {}
    assert attributes["http.response.status_code"] == 200 and attributes["http.route"] == "/graphql"
    below = spans.under(request)
    named = {s.name: s for s in below}
    assert parent_of(named["graphql.remember"], [request]) is request
    for stage in ("remember.embed", "remember.transaction"):
        assert parent_of(named[stage], below).name == "graphql.remember"
    assert (named["remember.transaction"].attributes or {})["factgraph.decision"] == "insert"
    (embedding,) = [s for s in below if s.name.startswith("embeddings ")]
    assert parent_of(embedding, below).name == "remember.embed"
    assert (embedding.attributes or {})["gen_ai.operation.name"] == "embeddings"
    transaction = named["neo4j.remember"]
    assert parent_of(transaction, below).name == "remember.transaction"
    statements = [s for s in below if s.parent and s.parent.span_id == transaction.context.span_id]
    assert "fact_insert" in [(s.attributes or {})["factgraph.query"] for s in statements]

    # search: the stages under the field, Neo4j calls and the query's embedding under them.
    request = spans.request("trace-search")
    assert format(request.context.trace_id, "032x") != CALLER_TRACE  # a trace of its own
    below = spans.under(request)
    field = next(s for s in below if s.name == "graphql.search")
    stages = [s for s in below if s.name.startswith("search.")]
    assert stages and all(
        parent_of(s, below).name.startswith(("graphql.", "search.")) for s in stages
    )
    assert parent_of(field, [request]) is request
    queries = [s for s in below if s.name.startswith("neo4j.")]
    assert "search_candidates" in [(s.attributes or {})["factgraph.query"] for s in queries]
    assert all(parent_of(s, below).name.startswith("search.") for s in queries)
    (embedding,) = [s for s in below if s.name.startswith("embeddings ")]
    assert parent_of(embedding, below).name == "search.embed"

    # Neo4j spans name the query file, never a parameter: no scope, no text, no query.
    for span in spans.all():
        if span.name.startswith("neo4j."):
            assert span.kind is SpanKind.CLIENT
            assert (span.attributes or {})["db.system.name"] == "neo4j"
            assert not any(
                secret in value for value in values(span) for secret in (scope, text, query)
            ), span.attributes


def test_a_refused_request_is_traced_without_being_a_server_error(
    spans: Spans, http: httpx.Client, scope: str
) -> None:
    http.post(
        "/graphql",
        json={"query": REMEMBER, "variables": {"scope": scope, "text": "  "}},
        headers={"X-Request-ID": "trace-refused"},
    )
    request = spans.request("trace-refused")
    assert (request.attributes or {})["factgraph.error.code"] == "BAD_USER_INPUT"
    assert request.status.status_code is StatusCode.UNSET  # the client's mistake, not ours


def test_json_log_lines_carry_the_trace_they_belong_to(
    spans: Spans, http: httpx.Client, caplog: pytest.LogCaptureFixture
) -> None:
    """An operator goes from a log line to its trace and back."""
    lines: list[dict[str, Any]] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.name == "factgraph.access":
                lines.append(json.loads(JsonFormatter().format(record)))

    caplog.set_level(logging.INFO)
    handler = Collect()
    logging.getLogger().addHandler(handler)
    try:
        http.get("/healthz", headers={"X-Request-ID": "trace-log", "traceparent": TRACEPARENT})
        request = spans.request("trace-log")
    finally:
        logging.getLogger().removeHandler(handler)
    (line,) = [line for line in lines if line.get("request_id") == "trace-log"]
    assert line["trace_id"] == CALLER_TRACE
    assert line["span_id"] == format(request.context.span_id, "016x")


# -- the OTEL_* variables -------------------------------------------------------------------


def test_the_standard_variables_choose_the_exporter() -> None:
    endpoint = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}
    assert otel.exporter_names({}) == []  # nothing asked: nothing set up
    assert otel.exporter_names(endpoint) == ["otlp_proto_http"]
    assert otel.exporter_names({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c/v1/traces"}) == [
        "otlp_proto_http"
    ]
    assert otel.exporter_names({**endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}) == [
        "otlp_proto_grpc"
    ]
    assert otel.exporter_names({**endpoint, "OTEL_SDK_DISABLED": "true"}) == []
    assert otel.exporter_names({**endpoint, "OTEL_TRACES_EXPORTER": "none"}) == []
    assert otel.exporter_names({"OTEL_TRACES_EXPORTER": "console,otlp"}) == [
        "console",
        "otlp_proto_http",
    ]
    with pytest.raises(otel.OtelConfigError, match="http/json"):
        otel.exporter_names({**endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"})


def test_a_provider_is_built_only_when_an_exporter_is_asked_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert otel.provider_from_env({}) is None
    monkeypatch.setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=test")
    provider = otel.provider_from_env({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"})
    assert provider is not None
    try:
        resource = provider.resource.attributes
        assert resource["service.name"] == "factgraph"  # unless OTEL_SERVICE_NAME says else
        assert resource["deployment.environment"] == "test"
    finally:
        provider.shutdown()
    with pytest.raises(otel.OtelConfigError, match="opentelemetry-exporter-otlp-proto-grpc"):
        otel.provider_from_env(
            {"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}
        )


class Collector:
    """An OTLP/HTTP receiver: what a collector at OTEL_EXPORTER_OTLP_ENDPOINT is sent."""

    def __init__(self) -> None:
        self.received: list[ExportTraceServiceRequest] = []
        collector = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                if self.path == "/v1/traces":
                    collector.received.append(ExportTraceServiceRequest.FromString(body))
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def spans(self) -> list[tuple[str, str, str]]:
        """(service.name, span name, trace id) of every span received."""
        out = []
        for request in list(self.received):
            for resource_spans in request.resource_spans:
                service = next(
                    a.value.string_value
                    for a in resource_spans.resource.attributes
                    if a.key == "service.name"
                )
                for scope_spans in resource_spans.scope_spans:
                    out += [(service, s.name, s.trace_id.hex()) for s in scope_spans.spans]
        return out


@pytest.fixture
def collector() -> Iterator[Collector]:
    running = Collector()
    running.thread.start()
    try:
        yield running
    finally:
        running.server.shutdown()
        running.server.server_close()


def test_factgraph_serve_exports_over_otlp_when_the_endpoint_is_set(
    neo4j_server: Settings, memory: Memory, collector: Collector, scope: str, tmp_path: Path
) -> None:
    port = free_port()
    env = {
        **cli_env(neo4j_server, neo4j_server.home),
        "FACTGRAPH_HOST": "127.0.0.1",
        "FACTGRAPH_PORT": str(port),
        "FACTGRAPH_AUTH": "off",
        "FACTGRAPH_CONSOLIDATE": "off",
        "FACTGRAPH_WARMUP": "off",
        "OTEL_EXPORTER_OTLP_ENDPOINT": collector.url,
        "OTEL_SERVICE_NAME": "memory-under-test",
        "OTEL_BSP_SCHEDULE_DELAY": "50",
    }
    env.pop("OTEL_SDK_DISABLED", None)
    env.pop("OTEL_TRACES_EXPORTER", None)
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "factgraph.cli", "serve"], env=env, stdout=out, stderr=out
        )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120
        while True:
            assert server.poll() is None, log.read_text()[-3000:]
            assert time.monotonic() < deadline, log.read_text()[-3000:]
            try:
                if httpx.get(f"{base}/healthz", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.2)
        answer = httpx.post(
            f"{base}/graphql",
            json={"query": SEARCH, "variables": {"scope": scope, "q": "who keeps bees"}},
            headers={"traceparent": TRACEPARENT},
            timeout=60,
        )
        assert answer.status_code == 200, answer.text
        deadline = time.monotonic() + 60
        wanted = {"POST /graphql", "graphql.search"}
        while not wanted <= {name for _, name, _ in collector.spans()}:
            assert time.monotonic() < deadline, f"no span exported; log: {log.read_text()[-3000:]}"
            time.sleep(0.05)
    finally:
        server.terminate()
        server.wait(timeout=30)
    joined = {name for service, name, trace in collector.spans() if trace == CALLER_TRACE}
    assert {"POST /graphql", "graphql.search"} <= joined
    assert any(name.startswith("neo4j.") for name in joined)
    assert {service for service, _, _ in collector.spans()} == {"memory-under-test"}
    logged = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    assert any(line.get("trace_id") == CALLER_TRACE for line in logged)
    assert not [line for line in logged if line["level"] == "error"]
