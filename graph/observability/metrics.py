"""Prometheus metrics: requests, latencies, Neo4j query time, pipeline decisions, stages.

Metric objects are process-wide (prometheus_client's default registry), so every app and every
`Memory` in the process reports into the same /metrics page. Labels are bounded on purpose:
routes, query file names, decision kinds and stage names; never a scope, an id or user text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from prometheus_client import CONTENT_TYPE_LATEST, Counter, Gauge, Histogram, generate_latest

from graph.observability import tracing

if TYPE_CHECKING:  # the driver loads with the database, not with the metrics' names
    from graph.storage.db import Database

_LATENCY_BUCKETS = (
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
    30.0,
)

HTTP_REQUESTS = Counter(
    "factgraph_http_requests_total",
    "HTTP requests answered, by route, method and status code.",
    ["route", "method", "status"],
)
HTTP_LATENCY = Histogram(
    "factgraph_http_request_duration_seconds",
    "Time from request start to the last byte of the response.",
    ["route", "method"],
    buckets=_LATENCY_BUCKETS,
)
NEO4J_QUERY = Histogram(
    "factgraph_neo4j_query_duration_seconds",
    "Time spent in Neo4j per named query (cypher/<name>.cypher) or transaction label.",
    ["query"],
    buckets=_LATENCY_BUCKETS,
)
PIPELINE_DECISIONS = Counter(
    "factgraph_pipeline_decisions_total",
    "Decisions of the write pipeline (insert, dedup, merge, supersede, quarantine).",
    ["kind"],
)
STAGE_LATENCY = Histogram(
    "factgraph_stage_duration_seconds",
    "Duration of traced stages (graph.observability.tracing spans), e.g. graphql.remember or "
    "search.vector.",
    ["stage", "outcome"],
    buckets=_LATENCY_BUCKETS,
)
AUTH_FAILURES = Counter(
    "factgraph_auth_failures_total",
    "Requests refused by access control, by code (UNAUTHENTICATED, FORBIDDEN).",
    ["code"],
)
HTTP_ADMITTED = Gauge(
    "factgraph_http_admitted_requests",
    "API requests admitted and not yet answered (running or waiting for a worker thread).",
)
HTTP_REFUSED = Counter(
    "factgraph_http_refused_total",
    "API requests refused at once with 503 OVERLOADED because FACTGRAPH_MAX_QUEUE were admitted, "
    "or their tenant held FACTGRAPH_MAX_QUEUE_PER_TENANT of them.",
    ["route"],
)
STREAMS_OPEN = Gauge(
    "factgraph_streams_open",
    "Long-lived connections open (MCP event streams, GraphQL WebSockets); not counted in "
    "factgraph_http_admitted_requests.",
)
STREAMS_REFUSED = Counter(
    "factgraph_streams_refused_total",
    "Streams refused with TOO_MANY_STREAMS, by bound (client: FACTGRAPH_MAX_STREAMS_PER_CLIENT, "
    "total: FACTGRAPH_MAX_STREAMS).",
    ["bound"],
)
STREAMS_IDLE_CLOSED = Counter(
    "factgraph_streams_idle_closed_total",
    "Streams closed after FACTGRAPH_STREAM_IDLE_TIMEOUT seconds with nothing but keep-alives.",
)

CONTENT_TYPE = CONTENT_TYPE_LATEST


def _observe_query(name: str, seconds: float) -> None:
    NEO4J_QUERY.labels(name).observe(seconds)


def _observe_stage(name: str, seconds: float, failed: bool) -> None:
    STAGE_LATENCY.labels(name, "error" if failed else "ok").observe(seconds)


def instrument(db: Database) -> None:
    """Time every query of `db` and every traced stage; idempotent."""
    if _observe_query not in db.query_hooks:
        db.query_hooks.append(_observe_query)
    tracing.add_listener(_observe_stage)


def record_decision(kind: str) -> None:
    PIPELINE_DECISIONS.labels(kind).inc()


def render() -> bytes:
    """The text exposition format served at /metrics."""
    return generate_latest()


# The background consolidator (graph/consolidation/).
CONSOLIDATION_DEPTH = Gauge(
    "factgraph_consolidation_queue_depth",
    "Facts waiting for the consolidator, over all scopes (as of its last look at the queue).",
)
CONSOLIDATION_LAG = Gauge(
    "factgraph_consolidation_lag_seconds",
    "How long the oldest queued fact has waited (as of the consolidator's last look).",
)
CONSOLIDATION_FACTS = Counter(
    "factgraph_consolidation_facts_total",
    "Facts the consolidator took off the queue (enriched, or nothing to add).",
)
CONSOLIDATION_RATE = Gauge(
    "factgraph_consolidation_facts_per_second",
    "Facts per second of the consolidator's last batch (its work time, pauses excluded).",
)
CONSOLIDATION_EXPIRED = Counter(
    "factgraph_consolidation_expired_total",
    "Facts past their expires_at retired by the consolidator (forgotten or purged).",
)
CONSOLIDATION_ERRORS = Counter(
    "factgraph_consolidation_errors_total",
    "Batches the background consolidator failed (the facts stay queued; see the log).",
)
