"""What tracing costs a search at 100,000 facts: OpenTelemetry's API with no SDK, against none.

The scope is bench/latency.py's (bench/latency_corpus.py through the fast importer, vectors
from a pool of real embeddings; a scope kept by `bench/latency.py --keep` is reused). The same
queries are searched in each of four settings of the spans (graph/observability/tracing.py),
taking turns query by query (the order rotating), so that every setting meets the same
queries, caches and minutes; the query-embedding cache is cleared before each search, so each
one runs the model as a new query does:

  off     no spans at all: every span call of the code made a bare context manager
  legacy  the hand-made spans this replaced (main before issue 49: a dataclass and a context
          variable per stage span, no Neo4j or model spans), copied here as they were
  noop    as shipped, with no SDK installed: OpenTelemetry's non-recording spans
  sdk     the SDK recording every span (a tracer provider with a batch processor and an
          exporter that drops the batches: the cost in the request path, without the export
          thread's encoding and network)

through the Python API (`Memory.search`: the stage, Neo4j and model spans) and through GraphQL
on a uvicorn server in this process (the request's and the field's spans too; one keep-alive
connection). Reported per setting: p50 and mean, and the mean of the per-query difference from
`off` with a 95% interval; and, measured apart, the spans a search makes and what one span
costs in each setting (nested in a parent, --span-rounds times). Results go to
bench/results/tracing_overhead.md. Not part of `make test`; run it alone on a quiet machine.

    .venv/bin/python bench/tracing_overhead.py                 # 100,000 facts, 400 queries
    .venv/bin/python bench/tracing_overhead.py --facts 2000 --queries 20 --out /tmp/t.md
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

from bench.latency import RESULTS, Clients, fact_count, percentile, scope_name, seed_layout
from bench.latency_corpus import Queries
from bench.latency_report import machine, stamp
from graph.bulk.autocommit import delete_scope
from graph.config import Settings
from graph.memory import Memory
from graph.observability import tracing
from graph.platform.embedding import Embedder
from resolvers.app import create_app
from tests.live_server import serve

MODES = ("off", "legacy", "noop", "sdk")
TOP_K = 10
_ORIGINAL = {
    name: getattr(tracing, name) for name in ("span", "query_span", "model_span", "server_span")
}


# -- the four settings ------------------------------------------------------------------------
@contextmanager
def _bare(*args: Any, **kwargs: Any) -> Iterator[trace.Span]:
    yield trace.INVALID_SPAN


@dataclass
class _LegacySpan:
    """graph/observability/tracing.py's Span before OpenTelemetry, as it was."""

    name: str
    attributes: dict[str, Any] = field(default_factory=dict)
    parent: str | None = None
    request_id: str | None = None
    started: float = 0.0
    duration: float = 0.0
    error: str | None = None

    def set_attribute(self, key: str, value: Any) -> None:  # was `set`
        self.attributes[key] = value


_legacy_current: ContextVar[_LegacySpan | None] = ContextVar("legacy_span", default=None)


@contextmanager
def _legacy(name: str, **attributes: Any) -> Iterator[_LegacySpan]:
    """The old `tracing.span`, feeding the same stage listeners (Prometheus in the service)."""
    parent = _legacy_current.get()
    current = _LegacySpan(
        name=name,
        attributes=dict(attributes),
        parent=parent.name if parent is not None else None,
        request_id=tracing.request_id.get(),
        started=time.perf_counter(),
    )
    token = _legacy_current.set(current)
    try:
        yield current
    except BaseException as exc:
        current.error = type(exc).__name__
        raise
    finally:
        _legacy_current.reset(token)
        current.duration = time.perf_counter() - current.started
        for listener in list(tracing._listeners):
            listener(current.name, current.duration, current.error is not None)


class _Dropped(SpanExporter):
    def export(self, spans: Any) -> SpanExportResult:
        return SpanExportResult.SUCCESS


class _Counted(SpanProcessor):
    def __init__(self) -> None:
        self.ended = 0

    def on_end(self, span: ReadableSpan) -> None:
        self.ended += 1


class Settings4:
    """Switches the process's spans between the four settings."""

    def __init__(self) -> None:
        self.counted = _Counted()
        self.provider = TracerProvider()
        self.provider.add_span_processor(self.counted)
        self.provider.add_span_processor(BatchSpanProcessor(_Dropped()))

    def use(self, mode: str) -> None:
        for name, original in _ORIGINAL.items():
            setattr(tracing, name, original)
        tracing.use_provider(self.provider if mode == "sdk" else None)
        if mode == "off":
            for name in _ORIGINAL:
                setattr(tracing, name, _bare)
        elif mode == "legacy":
            tracing.span = _legacy  # type: ignore[assignment]
            for name in ("query_span", "model_span", "server_span"):
                setattr(tracing, name, _bare)

    def close(self) -> None:
        self.use("noop")
        self.provider.shutdown()


# -- measurements -----------------------------------------------------------------------------
Search = Callable[[str], None]


def paired(
    search: Search, queries: Queries, count: int, warm: int, modes: Settings4
) -> dict[str, list[float]]:
    """Seconds per search in each mode; query i is searched in every mode, order rotating."""
    out: dict[str, list[float]] = {mode: [] for mode in MODES}
    for i, query in enumerate(queries.take(warm + count)):
        for turn in range(len(MODES)):
            mode = MODES[(i + turn) % len(MODES)]
            modes.use(mode)
            Embedder.embed_query.cache_clear()  # every mode runs the model for this query
            started = time.perf_counter()
            search(query)
            if i >= warm:
                out[mode].append(time.perf_counter() - started)
    modes.use("noop")
    return out


def per_span_cost(modes: Settings4, rounds: int) -> dict[str, float]:
    """Microseconds one stage span costs, nested in a parent, in each mode (best of 3)."""
    costs: dict[str, float] = {}
    for mode in MODES:
        modes.use(mode)
        best = float("inf")
        for _ in range(3):
            with tracing.span("bench.parent"):
                started = time.perf_counter()
                for _ in range(rounds // 10):
                    for _ in range(10):
                        with tracing.span("bench.stage"):
                            pass
                best = min(best, time.perf_counter() - started)
        costs[mode] = best / rounds * 1e6
    modes.use("noop")
    modes.provider.force_flush()
    return costs


def spans_per_search(search: Search, queries: Queries, count: int, modes: Settings4) -> float:
    modes.use("sdk")
    modes.provider.force_flush()
    before = modes.counted.ended
    for query in queries.take(count):
        Embedder.embed_query.cache_clear()
        search(query)
    time.sleep(0.5)  # the last request's span ends just after its answer left
    modes.provider.force_flush()
    modes.use("noop")
    return (modes.counted.ended - before) / count


def interval(differences: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% interval (normal approximation), in microseconds."""
    mean = statistics.fmean(differences) * 1e6
    spread = statistics.stdev(differences) * 1e6 / len(differences) ** 0.5 * 1.96
    return mean, spread


def report(
    facts: int,
    series: dict[str, dict[str, list[float]]],
    spans: dict[str, float],
    costs: dict[str, float],
    info: dict[str, Any],
) -> str:
    lines = [
        f"# Tracing overhead per search at {facts:,} facts",
        "",
        f"Run {info['started']} - {info['finished']}; {info['cpu']}; load before: "
        f"{info['uptime']}.",
        f"Hybrid search, top_k {TOP_K}, each query searched once in each setting (turns "
        "rotating), the embedding cache cleared before each search. Settings and method: "
        "bench/tracing_overhead.py.",
        "",
        "| interface | setting | n | p50 ms | mean ms | mean minus `off` (µs, 95%) |",
        "|---|---|---|---|---|---|",
    ]
    for interface, figures in series.items():
        for mode in MODES:
            values = figures[mode]
            diff = [a - b for a, b in zip(values, figures["off"], strict=True)]
            mean, spread = interval(diff) if mode != "off" else (0.0, 0.0)
            lines.append(
                f"| {interface} | {mode} | {len(values)} | {percentile(values, 0.5) * 1e3:.2f} "
                f"| {statistics.fmean(values) * 1e3:.2f} | "
                + ("-" if mode == "off" else f"{mean:+.0f} ± {spread:.0f}")
                + " |"
            )
    lines += [
        "",
        "Spans per search (counted with the SDK): "
        + ", ".join(f"{name} {count:.1f}" for name, count in spans.items())
        + ".",
        "",
        "| setting | µs per stage span (nested) |",
        "|---|---|",
        *(f"| {mode} | {cost:.2f} |" for mode, cost in costs.items()),
        "",
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=400, help="queries per interface")
    parser.add_argument("--warmup", type=int, default=50, help="queries before measuring")
    parser.add_argument("--interfaces", nargs="+", default=["python", "graphql"])
    parser.add_argument("--pool", type=int, default=8000, help="distinct embedded sentences")
    parser.add_argument("--seed", type=int, default=42, help="bench/latency.py's by default")
    parser.add_argument("--keep", action="store_true", help="keep a scope seeded here")
    parser.add_argument("--span-rounds", type=int, default=300_000, help="spans timed per setting")
    parser.add_argument("--out", type=Path, default=RESULTS / "tracing_overhead.md")
    args = parser.parse_args()
    info: dict[str, Any] = {"started": stamp(), **machine()}
    memory = Memory.connect(Settings.from_env())
    scope = scope_name(args.facts, args.seed)
    seeded_here = fact_count(memory, scope) < args.facts
    modes = Settings4()
    queries = Queries(args.seed * 7 + 1)
    series: dict[str, dict[str, list[float]]] = {}
    spans: dict[str, float] = {}
    try:
        if seeded_here:
            seed_layout(memory, args.facts, args.seed, 1, args.pool)
        memory.embedder.warm_queries()

        def python(query: str) -> None:
            memory.search(scope, query, top_k=TOP_K)

        with serve_here(memory) as clients:

            def graphql(query: str) -> None:
                clients.graphql(scope, query, {"topK": TOP_K})

            searches: dict[str, Search] = {"python": python, "graphql": graphql}
            for name in args.interfaces:
                print(f"{name}: {args.queries} queries x {len(MODES)} settings", file=sys.stderr)
                search = searches[name]
                series[name] = paired(search, queries, args.queries, args.warmup, modes)
                spans[name] = spans_per_search(search, queries, 20, modes)
        costs = per_span_cost(modes, args.span_rounds)
    finally:
        modes.close()
        if seeded_here and not args.keep:
            delete_scope(memory.db, scope)
        memory.close()
    info["finished"] = stamp()
    text = report(args.facts, series, spans, costs, info)
    args.out.write_text(text)
    print(text)
    return 0


@contextmanager
def serve_here(memory: Memory) -> Iterator[Clients]:
    """The service on uvicorn in this process (so the settings switch it too), and a client."""
    with serve(create_app(memory=memory)) as base:
        clients = Clients(base)
        try:
            yield clients
        finally:
            clients.close()


if __name__ == "__main__":
    sys.exit(main())
