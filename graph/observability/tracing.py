"""Spans, through OpenTelemetry's API: requests, the stages of search and remember, each Neo4j
query and each model run; and the request id of the request being served.

The API alone records nothing. Until a tracer provider is installed (`factgraph serve` installs
the SDK's when the `otel` extra is there and an OTLP endpoint is configured:
graph/observability/otel.py), every span is the API's non-recording one, and a span costs about
what the hand-made spans it replaced did (two clock reads and a context lookup), so the hooks
stay in hot paths; bench/tracing_overhead.py measures what they cost a search. Spans are opened
with `start_span` and at most one context attach, rather than the API's
`start_as_current_span`, whose nested context managers only add to that cost.

`span()` times a stage: its duration also feeds the stage listeners (the Prometheus histogram
`factgraph_stage_duration_seconds`, graph/observability/metrics.py), whether or not anything
records the span. `query_span()` and `model_span()` are for Neo4j and the embedding model: they
carry the query file's name or the model's, never parameters or text.

`request_id` is a context variable set by the web layer for each request; it crosses into
Starlette's thread pool with the context, so logs written deep in graph/ carry it too.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar, Token

from opentelemetry import context, propagate, trace
from opentelemetry.trace import SpanKind, Status, StatusCode
from opentelemetry.util.types import AttributeValue

TRACER_NAME = "factgraph"
log = logging.getLogger("factgraph.tracing")

request_id: ContextVar[str | None] = ContextVar("factgraph_request_id", default=None)

# Follows the global provider: a proxy until `trace.set_tracer_provider` is called, then the
# provider's tracer. `use_provider` points it elsewhere (tests, bench/tracing_overhead.py).
_tracer: trace.Tracer = trace.get_tracer(TRACER_NAME)

StageListener = Callable[[str, float, bool], None]
"""Receives each finished stage: its name, its duration in seconds, and whether it failed."""
_listeners: list[StageListener] = []


def use_provider(provider: trace.TracerProvider | None) -> None:
    """Trace into `provider` rather than the global one (None: back to the global one).

    OpenTelemetry lets a process set its global provider once; a test that wants the spans
    of one request in its own in-memory exporter, or a bench that compares settings, uses this.
    """
    global _tracer
    _tracer = trace.get_tracer(TRACER_NAME, tracer_provider=provider)


def add_listener(listener: StageListener) -> None:
    """Receive every finished stage; adding the same listener twice has no effect."""
    if listener not in _listeners:
        _listeners.append(listener)


def remove_listener(listener: StageListener) -> None:
    if listener in _listeners:
        _listeners.remove(listener)


def _failed(opened: trace.Span, exc: Exception, describe: bool) -> None:
    """Mark a span failed by `exc`. `describe=False` leaves the exception's message (and
    stack) out, keeping its type: a Neo4j error may quote the values of its query."""
    if not opened.is_recording():
        return
    opened.set_attribute("error.type", type(exc).__qualname__)
    if describe:
        opened.record_exception(exc)
        opened.set_status(Status(StatusCode.ERROR, f"{type(exc).__name__}: {exc}"))
    else:
        opened.set_status(Status(StatusCode.ERROR))


def _attach(opened: trace.Span, parent: context.Context | None) -> Token[context.Context] | None:
    """Make `opened` the current span; None when it already is: with no SDK the API "starts" a
    span by handing back the current one, and making it current again would only cost."""
    if parent is None and opened is trace.get_current_span():
        return None
    return context.attach(trace.set_span_in_context(opened))


@contextmanager
def _current(
    name: str,
    attributes: Mapping[str, AttributeValue] | None,
    kind: SpanKind = SpanKind.INTERNAL,
    parent: context.Context | None = None,
    describe: bool = True,
) -> Iterator[trace.Span]:
    """A span that is the current one while the block runs; an exception ends it in error."""
    opened = _tracer.start_span(name, parent, kind, attributes)
    token = _attach(opened, parent)
    try:
        yield opened
    except Exception as exc:
        _failed(opened, exc, describe)
        raise
    finally:
        if token is not None:
            context.detach(token)
        opened.end()


@contextmanager
def span(name: str, **attributes: AttributeValue) -> Iterator[trace.Span]:
    """Time the enclosed block as stage `name` (e.g. "search.vector"); attributes are prefixed
    `factgraph.`. An exception is recorded on the span, counted as a failed stage, re-raised.

    `_current` written out again rather than nested: one generator per span, not two."""
    named = {f"factgraph.{key}": value for key, value in attributes.items()} if attributes else None
    started = time.perf_counter()
    opened = _tracer.start_span(name, None, SpanKind.INTERNAL, named)
    token = _attach(opened, None)
    failed = True
    try:
        yield opened
        failed = False
    except Exception as exc:
        _failed(opened, exc, True)
        raise
    finally:
        if token is not None:
            context.detach(token)
        opened.end()
        if _listeners:
            _emit(name, time.perf_counter() - started, failed)


def _emit(name: str, seconds: float, failed: bool) -> None:
    for listener in list(_listeners):
        try:
            listener(name, seconds, failed)
        except Exception:  # a broken listener must never break a request
            log.exception("stage listener %r failed", listener)


def query_span(query: str, database: str | None = None) -> AbstractContextManager[trace.Span]:
    """One Neo4j call, named for its query file (cypher/<query>.cypher) or transaction label.

    The query's parameters are never attached, nor the message of a failure."""
    attributes: dict[str, AttributeValue] = {"db.system.name": "neo4j", "factgraph.query": query}
    if database is not None:
        attributes["db.namespace"] = database
    return _current(f"neo4j.{query}", attributes, SpanKind.CLIENT, describe=False)


def model_span(operation: str, model: str, inputs: int) -> AbstractContextManager[trace.Span]:
    """One run of a model (OpenTelemetry's GenAI conventions: `embeddings <model>`); counts
    its inputs, never their text."""
    attributes: dict[str, AttributeValue] = {
        "gen_ai.operation.name": operation,
        "gen_ai.request.model": model,
        "factgraph.inputs": inputs,
    }
    return _current(f"{operation} {model}", attributes, describe=False)


def server_span(
    name: str, headers: Mapping[str, str], attributes: Mapping[str, AttributeValue]
) -> AbstractContextManager[trace.Span]:
    """The span of one request this service answers; a child of the caller's span when its
    `headers` carry one (W3C `traceparent`, or what OTEL_PROPAGATORS names), so an agent's
    trace shows the memory calls it made."""
    return _current(name, attributes, SpanKind.SERVER, propagate.extract(headers))


def ids() -> tuple[str, str] | None:
    """The current trace and span id in hex (for log lines), or None outside any trace."""
    found = trace.get_current_span().get_span_context()
    if not found.is_valid:
        return None
    return format(found.trace_id, "032x"), format(found.span_id, "016x")
