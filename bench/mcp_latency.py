"""Latency of an MCP `search` tool call over HTTP beside the same search through GraphQL.

A scope of 10,000 facts is seeded as bench/latency.py seeds it (bench/latency_corpus.py, the
fast importer, vectors from a pool of real embeddings), the service runs as a uvicorn
subprocess exactly as there (`create_app`, loopback, keys off), and three callers search it in
alternating blocks of 20, each query asked once (the query-embedding cache never helps):

  graphql   POST /graphql `search(scope, query, options: {topK: 8})`, selecting the fields the
            MCP tool returns (no `related`: the tool's default related_limit is 0, and GraphQL
            only computes related facts when selected), on a keep-alive http.client connection
  mcp-raw   POST /mcp with one JSON-RPC `tools/call` of `search` {query, top_k: 8} on the same
            kind of connection: the server's side of an MCP call
  mcp-sdk   `ClientSession.call_tool("search", ...)` of the official SDK over streamable HTTP,
            as a Python host sees it (the SDK client's own work included)

Results: bench/results/mcp_latency.md. Not part of `make test`; takes a few minutes.

    .venv/bin/python bench/mcp_latency.py
    .venv/bin/python bench/mcp_latency.py --facts 2000 --queries 60
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from bench.latency import (
    RESULTS,
    Clients,
    fact_count,
    percentile,
    scope_name,
    seed_layout,
    service,
)
from bench.latency_corpus import Queries
from bench.latency_report import machine, stamp
from graph.bulk.autocommit import delete_scope
from graph.config import Settings
from graph.memory import Memory

BLOCK = 20
TOP_K = 8
SEARCH_GQL = """
query Search($scope: String!, $text: String!, $options: SearchOptionsInput) {
  search(scope: $scope, query: $text, options: $options) {
    hits { score fact { id text validFrom sessionId turn tags } }
  }
}
"""
MCP_HEADERS = {
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2025-11-25",
}


def graphql(clients: Clients, scope: str, query: str) -> None:
    body = {
        "query": SEARCH_GQL,
        "variables": {"scope": scope, "text": query, "options": {"topK": TOP_K}},
    }
    status, raw = clients.post("/graphql", body, {})
    data = json.loads(raw)
    if status != 200 or data.get("errors") or not data["data"]["search"]["hits"]:
        raise RuntimeError(f"GraphQL {status}: {str(data)[:200]}")


def mcp_raw(clients: Clients, scope: str, query: str) -> None:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "search", "arguments": {"query": query, "top_k": TOP_K}},
    }
    status, raw = clients.post("/mcp", body, {**MCP_HEADERS, "X-Scope": scope})
    data = json.loads(raw)
    result = data.get("result") or {}
    if status != 200 or result.get("isError") or not result["structuredContent"]["results"]:
        raise RuntimeError(f"MCP {status}: {str(data)[:200]}")


async def measure(
    base: str, scope: str, queries: Queries, count: int, warm: int
) -> dict[str, list[float]]:
    """Latencies (ms) per caller, in alternating blocks so drift on shared cores hits all."""
    clients = Clients(base)
    out: dict[str, list[float]] = {"graphql": [], "mcp-raw": [], "mcp-sdk": []}
    async with (
        httpx2.AsyncClient(headers={"X-Scope": scope}, timeout=60) as http,
        streamable_http_client(f"{base}/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()

        async def sdk(query: str) -> None:
            result = await session.call_tool("search", {"query": query, "top_k": TOP_K})
            if result.is_error or not (result.structured_content or {}).get("results"):
                raise RuntimeError(f"MCP SDK: {result.content}")

        sync_callers: dict[str, Callable[[str], None]] = {
            "graphql": lambda q: graphql(clients, scope, q),
            "mcp-raw": lambda q: mcp_raw(clients, scope, q),
        }

        async def one(name: str, query: str) -> float:
            started = time.perf_counter()
            if name == "mcp-sdk":
                await sdk(query)
            else:
                sync_callers[name](query)
            return (time.perf_counter() - started) * 1000.0

        for i, query in enumerate(queries.take(warm)):  # JIT, caches, connections
            await one(list(out)[i % 3], query)
        while min(len(v) for v in out.values()) < count:
            for name in out:
                for query in queries.take(BLOCK):
                    out[name].append(await one(name, query))
    clients.close()
    return {name: values[:count] for name, values in out.items()}


def report(figures: dict[str, list[float]], facts: int, info: dict[str, Any]) -> str:
    rows = [
        "| caller | n | p50 ms | p95 ms | mean ms |",
        "|---|---|---|---|---|",
    ]
    for name, values in figures.items():
        rows.append(
            f"| {name} | {len(values)} | {percentile(values, 0.5):.1f} | "
            f"{percentile(values, 0.95):.1f} | {statistics.fmean(values):.1f} |"
        )
    head = [
        f"# MCP `search` over HTTP vs GraphQL at {facts:,} facts",
        "",
        f"Run {info['started']} - {info['finished']}; {info['cpu']}; load before: "
        f"{info['uptime']}.",
        "Hybrid search, top_k 8, each query new (embedded live); callers alternate in blocks "
        f"of {BLOCK} after a warm-up. See bench/mcp_latency.py for what each caller does.",
        "",
    ]
    return "\n".join(head + rows) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200, help="measured calls per caller")
    parser.add_argument("--warmup", type=int, default=300)
    parser.add_argument("--pool", type=int, default=2000, help="distinct embedded sentences")
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--keep", action="store_true", help="keep the seeded scope")
    parser.add_argument("--out", type=Path, default=RESULTS / "mcp_latency.md")
    args = parser.parse_args()
    info: dict[str, Any] = {"started": stamp(), **machine()}
    memory = Memory.connect(Settings.from_env())
    scope = scope_name(args.facts, args.seed)
    try:
        if fact_count(memory, scope) < args.facts:
            seed_layout(memory, args.facts, args.seed, 1, args.pool)
        with tempfile.TemporaryDirectory() as tmp, service(Path(tmp) / "service.log") as (base, _):
            figures = anyio.run(measure, base, scope, Queries(args.seed), args.queries, args.warmup)
    finally:
        if not args.keep:
            delete_scope(memory.db, scope)
        memory.close()
    info["finished"] = stamp()
    text = report(figures, args.facts, info)
    args.out.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
