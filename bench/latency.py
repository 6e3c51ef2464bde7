"""Search and write latency of factgraph beside Neo4j's own floor, from 10,000 to 1,000,000 facts.

For each size, a scope is seeded reproducibly from --seed (bench/latency_corpus.py: people,
places, projects; entities from subject and object; tags; sessions of turns; supersede chains)
with the fast importer and vectors from a pool of real embeddings, then measured in one run:

  search    full-text only, vector only, hybrid, hybrid + expandHops, hybrid + turn window,
            hybrid with a selective tag filter; through the Python API, GraphQL and REST over
            HTTP (a real uvicorn service in a subprocess on loopback); 1 and 8 clients
  floor     the raw `db.index.fulltext.queryNodes` / `db.index.vector.queryNodes` calls over
            the same driver with the engine's limit (both full-text indexes, the turns' and
            the passages', as the default search asks both; on 2026.x the filtered vector
            SEARCH), plus the query embedding alone; once
            alone per size, and again beside the single-client series (paired, in
            alternating blocks of 20), which is the floor their ratios are taken against;
            the interfaces' single-client series of one search take turns in the same blocks,
            so GraphQL over Python compares the same minutes
  warm-up   --warmup searches of every kind (2,000) and a remember every 40 before each
            size's measurements, as a service that has been up a while has seen: Neo4j's JIT
            has compiled its index searches, and Lucene has merged the seeding's segments
  writes    remember with the pipeline on and off; browse: lexical search and timeline
  memory    the service process's resident set across --rss-searches GraphQL searches; the
            database's size on disk, its page-cached part, and Neo4j's heap, page cache and RSS
  layouts   each size alone in the database in one scope; or spread over --scopes equal
            scopes (searching the first), as many tenants share one database; or, with
            --beside N, one scope of that size searched while a kept N-fact scope fills the
            rest of the database (every index is database-wide and the scope is a filter, so
            for search how the other facts are split among scopes does not matter)

Every measured search uses a query never asked before, so the query-embedding cache never
helps. Results go to bench/results/latency.{md,png,json} and latency-size.png (latency against
size, log axes). Not part of `make test`.

    .venv/bin/python bench/latency.py                          # 10,000 and 100,000 facts
    .venv/bin/python bench/latency.py --facts 2000 --queries 30 --rss-searches 500
    .venv/bin/python bench/latency.py --skip-100k --keep       # keep the seeded scope
    # a million facts in one scope, kept, merged beside the smaller sizes' rows; then a
    # 10,000-fact scope searched beside it (the cheap stand-in for 100 scopes of 10,000):
    .venv/bin/python bench/latency.py --facts 1000000 --pool 80000 --keep --reuse --merge
    .venv/bin/python bench/latency.py --facts 10000 --beside 1000000 --pool 80000 --merge
    # the faithful layout, 15-60 min more of seeding: 1,000,000 facts over 100 scopes
    .venv/bin/python bench/latency.py --facts 1000000 --scopes 100 --pool 80000 --merge
"""

from __future__ import annotations

import argparse
import dataclasses
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from bench.latency_corpus import (
    LEXICAL_NEEDLES,
    RARE_TAG,
    Queries,
    core_pool,
    fact_rows,
    pool_vectors,
)
from bench.latency_report import (
    Figure,
    layout_title,
    machine,
    markdown,
    plot,
    plot_scaling,
    scaling_markdown,
    stamp,
    store_markdown,
)
from graph.bulk.autocommit import delete_scope
from graph.bulk.importer import ImportOptions, run_import
from graph.config import Settings
from graph.memory import Memory
from graph.platform import warmup
from graph.platform.embedding import Embedder
from graph.platform.neo4j_local import LocalNeo4j
from graph.platform.neo4j_memory import MIB, page_cached_bytes
from graph.platform.warmup import warm_page_cache
from graph.search import SearchOptions, access, to_lucene
from graph.search.candidates import fetch_size, shares, text_query
from graph.storage import vector_shards

RESULTS = Path(__file__).resolve().parent / "results"
# Floor samples and searches alternate in blocks of this many (Bench.paired).
PAIR_BLOCK = 20
# The warm-up remembers one fact every this many steps (Bench.warm_up).
WARM_WRITE_EVERY = 40
# The model itself, past the query cache (distinct queries would miss it anyway).
EMBED_RAW: Callable[[Embedder, str], tuple[float, ...]] = Embedder.embed_query.__wrapped__
SEARCH_GQL = """
query Search($scope: String!, $text: String!, $options: SearchOptionsInput) {
  search(scope: $scope, query: $text, options: $options) {
    hits { score relevance fact { id text subject tags importance sessionId turn validFrom } }
    related { reason hitId fact { id text } }
  }
}
"""

# name -> (Python options, GraphQL options, REST body fields or None when REST cannot say it)
CONFIGS: dict[str, tuple[dict[str, Any], dict[str, Any], dict[str, Any] | None]] = {
    "fulltext": ({"mode": "fulltext"}, {"mode": "FULLTEXT"}, None),
    "vector": ({"mode": "vector"}, {"mode": "VECTOR"}, None),
    "hybrid": ({}, {}, {}),
    "hybrid+expand": ({"expand_hops": 1}, {"expandHops": 1}, None),
    "hybrid+window": (
        {"prev_turns": 2, "next_turns": 2},
        {"prevTurns": 2, "nextTurns": 2},
        {"prev_turns": 2, "next_turns": 2},
    ),
    "hybrid+filter": ({"tags": [RARE_TAG]}, {"tags": [RARE_TAG]}, {"tags": [RARE_TAG]}),
    # The search before passages and the subject boost (issue 21), to price what they add.
    "hybrid-passages": (
        {"passages": False, "subject_boost": 0.0},
        {"passages": False, "subjectBoost": 0.0},
        None,
    ),
}
FLOOR_OF = {
    "fulltext": "fulltext",
    "vector": "vector",
    "hybrid": "hybrid",
    "hybrid+expand": "hybrid",
    "hybrid+window": "hybrid",
    "hybrid+filter": "hybrid",
    "hybrid-passages": "hybrid-passages",
}


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    pos = (len(ordered) - 1) * q
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def run_timed(
    work: Callable[[str], None], inputs: Sequence[str], clients: int
) -> tuple[list[float], float, int]:
    """Latencies (ms) of `work` over `inputs` spread on `clients` threads; wall time; errors."""
    latencies: list[float] = []
    errors = 0
    lock = threading.Lock()
    items = iter(inputs)

    def worker() -> None:
        nonlocal errors
        while True:
            with lock:
                item = next(items, None)
            if item is None:
                return
            started = time.perf_counter()
            try:
                work(item)
            except Exception as exc:
                with lock:
                    errors += 1
                    if errors <= 3:
                        print(f"  error: {exc!r}"[:300], file=sys.stderr)
                continue
            elapsed = (time.perf_counter() - started) * 1000.0
            with lock:
                latencies.append(elapsed)

    started = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        for future in [pool.submit(worker) for _ in range(clients)]:
            future.result()
    return latencies, time.perf_counter() - started, errors


def figure(
    facts: int,
    group: str,
    name: str,
    interface: str,
    clients: int,
    latencies: list[float],
    wall: float,
    errors: int,
) -> Figure:
    f = Figure(
        facts=facts,
        group=group,
        name=name,
        interface=interface,
        clients=clients,
        count=len(latencies),
        p50=percentile(latencies, 0.50),
        p95=percentile(latencies, 0.95),
        p99=percentile(latencies, 0.99),
        mean=statistics.fmean(latencies) if latencies else 0.0,
        qps=len(latencies) / wall if wall > 0 else 0.0,
        errors=errors,
    )
    print(
        f"  {facts:>7} {group:6} {name:14} {interface:8} x{clients}  p50 {f.p50:7.1f}  "
        f"p95 {f.p95:7.1f}  p99 {f.p99:7.1f} ms  {f.qps:6.1f}/s"
        + (f"  {errors} err" if errors else ""),
        file=sys.stderr,
        flush=True,
    )
    return f


# -- seeding -----------------------------------------------------------------------------------
def scope_name(facts: int, seed: int, scopes: int = 1, index: int = 0) -> str:
    if scopes == 1:
        return f"bench-latency-{facts}-s{seed}"
    return f"bench-latency-{facts}-s{seed}-of{scopes}-{index:03d}"


def layout_scopes(facts: int, seed: int, scopes: int) -> list[str]:
    """Every scope of a layout; searches ask the first."""
    return [scope_name(facts, seed, scopes, i) for i in range(scopes)]


def fact_count(memory: Memory, scope: str) -> int:
    statuses = ["active", "superseded", "quarantined"]
    params = {"scope": scope, "statuses": statuses, "cap": 1 << 62}  # every fact: no cap
    return int(memory.db.read("fact_scope_count", params)[0][0])


@dataclass(frozen=True)
class Layout:
    """What the database holds while one size is measured."""

    size: int  # facts seeded for this layout
    scopes: int  # equal scopes they are spread over; searches ask the first
    beside: int  # facts of a kept one-scope layout left in the database meanwhile

    @property
    def total(self) -> int:
        return self.size + self.beside

    @property
    def searched(self) -> int:
        return self.size // self.scopes

    @property
    def title(self) -> str:
        return layout_title((self.total, self.searched))


def seeded(memory: Memory, facts: int, seed: int, scopes: int) -> bool:
    per_scope = facts // scopes
    return all(fact_count(memory, s) >= per_scope for s in layout_scopes(facts, seed, scopes))


def seed_layout(memory: Memory, facts: int, seed: int, scopes: int, pool_size: int) -> float:
    """`facts` facts in `scopes` equal scopes; each scope has its own sessions and ids.

    The first scope's rows come from `seed` itself, so the sessions the browse series pages
    through exist in the scope searched; the others from seeds derived from it.
    """
    pool = core_pool(seed, pool_size)
    started = time.perf_counter()
    vectors = pool_vectors(memory.embedder, pool, memory.settings.home / "bench-cache")
    print(
        f"pool of {len(pool)} sentences embedded in {time.perf_counter() - started:.0f}s",
        file=sys.stderr,
    )
    started = time.perf_counter()
    for index, scope in enumerate(layout_scopes(facts, seed, scopes)):
        if fact_count(memory, scope) >= facts // scopes:
            continue  # seeded by an earlier run that stopped later (an hour for 100 scopes)
        row_seed = seed if index == 0 else seed * 1000 + index
        seed_scope(memory, scope, fact_rows(row_seed, facts // scopes, pool, vectors))
    return time.perf_counter() - started


def seed_scope(memory: Memory, scope: str, rows: Iterator[dict[str, Any]]) -> None:
    delete_scope(memory.db, scope)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "facts.jsonl"
        with path.open("w", encoding="utf-8") as out:
            for row in rows:
                out.write(json.dumps(row) + "\n")
        started = time.perf_counter()
        summary = run_import(
            memory,
            ImportOptions(path=path, scope=scope, fast=True, batch_size=1000, progress=False),
        )
    seconds = time.perf_counter() - started
    print(
        f"seeded {scope}: {summary.inserted} facts in {seconds:.0f}s "
        f"({summary.inserted / max(seconds, 1e-9):.0f}/s), {len(summary.errors)} errors",
        file=sys.stderr,
    )
    if summary.errors:
        print("\n".join(str(e) for e in summary.errors[:5]), file=sys.stderr)


def store_figures(settings: Settings, service_pid: int) -> dict[str, Any]:
    """The database's size on disk, its page-cached part, and both processes' memory."""
    if not settings.uses_local_neo4j:
        return {}
    local = LocalNeo4j(settings)
    database = local.data_dir / "databases" / settings.neo4j_database
    total = sum(p.stat().st_size for p in database.rglob("*") if p.is_file())
    cached = page_cached_bytes(database)
    status = local.status()
    return {
        "database_mib": total / MIB,
        "page_cached_mib": cached / MIB,
        "lucene_mib": (total - cached) / MIB,
        **local.configured_memory(),
        "neo4j_rss_mib": rss_mib(status.pid) if status.pid else 0.0,
        "service_rss_mib": rss_mib(service_pid),
    }


# -- the service under test ------------------------------------------------------------------
def serve(port: int) -> None:
    """The service process: `Memory.connect` + `create_app` on uvicorn, as `factgraph serve`."""
    import uvicorn

    from graph.observability.logs import setup_logging
    from resolvers.app import create_app

    settings = Settings.from_env().with_overrides(host="127.0.0.1", port=port)
    memory = Memory.connect(settings)
    setup_logging("info", settings.log_format)
    app = create_app(memory=memory, settings=settings)
    uvicorn.run(app, host="127.0.0.1", port=port, log_config=None, access_log=False)


@contextmanager
def service(log_path: Path, tree: Path | None = None) -> Iterator[tuple[str, int]]:
    """The service in a subprocess (`--serve`) on a free port: its base URL and pid. `tree`:
    another checkout whose code it runs instead of this one's (bench/ab_latency.py)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    env = {**os.environ, "FACTGRAPH_AUTH": "auto"}
    script = Path(__file__).resolve()
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
        script = tree / "bench" / "latency.py"
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            [sys.executable, str(script), "--serve", str(port)],
            cwd=tree,
            stdout=log,
            stderr=log,
            env=env,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"service exited ({proc.returncode}); see {log_path}")
            try:
                if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"service did not start; see {log_path}")
            time.sleep(0.3)
        yield base, proc.pid
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024.0
    return 0.0


class Clients:
    """One keep-alive HTTP connection per thread, like an agent that holds its connection.

    The standard library's http.client rather than httpx: httpx spends ~1.2 ms more per request
    on this machine (p50 2.8 vs 1.6 ms for a trivial GraphQL query, measured alternately), which
    is the client's cost, not the service's.
    """

    def __init__(self, base: str) -> None:
        parts = urlsplit(base)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self._local = threading.local()
        self._all: list[http.client.HTTPConnection] = []
        self._lock = threading.Lock()

    def _connection(self) -> http.client.HTTPConnection:
        conn: http.client.HTTPConnection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
            self._local.conn = conn
            with self._lock:
                self._all.append(conn)
        return conn

    def post(self, path: str, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, bytes]:
        """POST JSON; a connection the server closed while idle is reopened once."""
        data = json.dumps(body).encode()
        headers = {"Content-Type": "application/json", **headers}
        for attempt in (1, 2):
            conn = self._connection()
            try:
                conn.request("POST", path, body=data, headers=headers)
                response = conn.getresponse()
                return response.status, response.read()
            except (http.client.RemoteDisconnected, ConnectionError):
                conn.close()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        for conn in self._all:
            conn.close()

    def graphql(self, scope: str, query: str, options: dict[str, Any]) -> None:
        body = {
            "query": SEARCH_GQL,
            "variables": {"scope": scope, "text": query, "options": options},
        }
        status, raw = self.post("/graphql", body, {})
        data = json.loads(raw)
        if status != 200 or data.get("errors"):
            raise RuntimeError(f"GraphQL {status}: {str(data)[:200]}")

    def rest(self, scope: str, query: str, fields: dict[str, Any]) -> None:
        status, raw = self.post("/api/v1/search", {"query": query, **fields}, {"X-Scope": scope})
        json.loads(raw)
        if status != 200:
            raise RuntimeError(f"REST {status}: {raw[:200]!r}")


# -- the measurements ------------------------------------------------------------------------
class Bench:
    def __init__(self, memory: Memory, args: argparse.Namespace, queries: Queries) -> None:
        self.memory = memory
        self.args = args
        self.queries = queries
        self.figures: list[Figure] = []
        self.floors: dict[tuple[int, str], tuple[float, float]] = {}

    def fresh(self, count: int) -> list[str]:
        return self.queries.take(count)

    def vector_k(self, scope: str) -> int:
        """The k the engine asks the vector index for in this scope (graph/search/candidates.py)."""
        size = shares.share(self.memory.db, scope)
        return fetch_size(SearchOptions().candidate_top_k, size.share, size.live)

    def lucene(self, scope: str, query: str, field: str = "index_text") -> str:
        """Exactly the engine's full-text query (graph/search/candidates.py text_query) of the
        turns' own text, or of their passages (`field="passage_text"`)."""
        size = shares.share(self.memory.db, scope)
        return text_query(scope, to_lucene(query), SearchOptions(), size, field)

    def text_params(self, scope: str, query: str, kind: str) -> dict[str, str]:
        """The floor's Lucene queries: the passage list too, as the default search asks it,
        except for the floor of the search without passages."""
        passages = kind != "hybrid-passages"
        return {
            "lucene": self.lucene(scope, query),
            "passage_lucene": self.lucene(scope, query, "passage_text") if passages else "",
        }

    def floor_once(self, scope: str, kind: str, query: str, k: int) -> float:
        """One floor sample (ms) of `kind` (fulltext, vector, hybrid) for `query`."""
        db = self.memory.db
        started = time.perf_counter()
        text = self.text_params(scope, query, kind)
        if kind == "fulltext":
            db.read("bench_floor_fulltext", {**text, "k": k})
        else:
            vec = list(EMBED_RAW(self.memory.embedder, query))
            if kind == "vector":
                db.read(
                    "bench_floor_vector",
                    {"vector": vec, "k": k, "index": vector_shards.index(scope), "scope": scope},
                )
            else:
                db.read(
                    "bench_floor_hybrid",
                    {
                        **text,
                        "vector": vec,
                        "k": k,
                        "index": vector_shards.index(scope),
                        "scope": scope,
                    },
                )
        return (time.perf_counter() - started) * 1000.0

    def paired(
        self, works: Sequence[tuple[str, Callable[[str], None]]], kind: str, scope: str, n: int
    ) -> tuple[dict[str, tuple[list[float], float, int]], list[float]]:
        """Single-client series of every interface with their floor sampled beside them, in
        alternating blocks.

        The machine's speed drifts over a run (this VM's floor varied 1.5x between minutes), so
        a floor measured once, minutes before, makes a poor denominator, and so does a series
        of another interface measured minutes apart: GraphQL over Python read 1.34 for vector
        search at a million in one run, while the service's own search took what the bench
        process's did (13.4 against 13.8 ms), and 1.14 in the next, paired, run. Here all see
        the same minutes: blocks of PAIR_BLOCK floor samples and PAIR_BLOCK searches of each
        interface take turns, and which goes first rotates. Blocks, not single queries: the
        floor runs the model in this process, and a floor sample between every two searches
        doubled the service's own query embedding (3.6 -> 7.1 ms: two processes' models and
        their spinning onnxruntime threads on 2 cores), a cost no real client imposes on it.
        Returns each interface's latencies, own wall time and errors, and the floor's latencies.
        """
        k = self.vector_k(scope)
        lanes: list[tuple[str, Callable[[str], None] | None]] = [("floor", None), *works]
        queries = {name: self.fresh(n) for name, _ in lanes}
        series: dict[str, tuple[list[float], float, int]] = {
            name: ([], 0.0, 0) for name, _ in works
        }
        floors: list[float] = []
        for block, start in enumerate(range(0, n, PAIR_BLOCK)):
            stop = min(n, start + PAIR_BLOCK)
            turn = block % len(lanes)
            for name, work in lanes[turn:] + lanes[:turn]:
                if work is None:
                    floors.extend(
                        self.floor_once(scope, kind, q, k) for q in queries[name][start:stop]
                    )
                    continue
                latencies, wall, errors = series[name]
                for q in queries[name][start:stop]:
                    started = time.perf_counter()
                    try:
                        work(q)
                    except Exception as exc:
                        errors += 1
                        if errors <= 3:
                            print(f"  error: {exc!r}"[:300], file=sys.stderr)
                    else:
                        latencies.append((time.perf_counter() - started) * 1000.0)
                    wall += time.perf_counter() - started
                series[name] = (latencies, wall, errors)
        return series, floors

    def warm_up(self, scope: str, clients: Clients) -> None:
        """Bring Neo4j's JIT, the page cache and both processes to a steady state first.

        A service answers for days; its first minutes are not what users live with. Searches
        of every configuration, through the Python API and GraphQL, the floor's queries, and a
        remember every WARM_WRITE_EVERY steps, as a live service sees writes. The writes
        matter: the seeding import leaves the vector index in ~50 small Lucene segments while
        its last merges run, and Lucene picks the next merges only at a later write; until one
        comes, every vector query searches all of them (k = 96 at 100,000 facts: p50 11.2 ms
        with 54 segments, 5.0 ms once a write let them merge to 16).
        """
        total = self.args.warmup
        if total <= 0:
            return
        if warmup.enabled(self.memory.settings):
            # What `factgraph serve` does in the background when it starts
            # (graph/platform/warmup.py);
            # the service under test is handed its Memory, so it does not do it itself.
            print(warm_page_cache(self.memory.db).describe(), file=sys.stderr)
        started = time.perf_counter()
        configs = list(CONFIGS.values())
        k = self.vector_k(scope)
        for i, query in enumerate(self.fresh(total)):
            py_opts, gql_opts, _ = configs[i % len(configs)]
            if i % WARM_WRITE_EVERY == 0:
                self.memory.remember(
                    scope, {"text": f"{query} (warm-up note {i})", "tags": ["bench-warm"]}
                )
            elif i % 4 == 3:
                clients.graphql(scope, query, gql_opts)
            elif i % 4 == 2:
                self.floor_once(scope, "hybrid", query, k)
            else:
                self.memory.search(scope, query, options=SearchOptions.build(**py_opts))
        access.recorder(self.memory.db).flush(60)
        print(
            f"warm-up: {total} searches, floor queries and remembers in "
            f"{time.perf_counter() - started:.0f}s",
            file=sys.stderr,
        )

    def floor(self, facts: int, scope: str) -> None:
        """Neo4j's and the model's own time for the same queries: raw index calls + embedding."""
        embedder = self.memory.embedder
        db = self.memory.db
        k = self.vector_k(scope)
        index = vector_shards.index(scope)
        print(f"floor: index calls with k={k} on {index}", file=sys.stderr)
        warm = self.fresh(10)
        for q in warm:
            vec = list(EMBED_RAW(embedder, q))
            db.read(
                "bench_floor_hybrid",
                {
                    **self.text_params(scope, q, "hybrid"),
                    "vector": vec,
                    "k": k,
                    "index": vector_shards.index(scope),
                    "scope": scope,
                },
            )
        n = self.args.queries
        series: dict[str, list[float]] = {"embed": [], "fulltext": [], "vector": [], "both": []}
        sums: dict[str, list[float]] = {"fulltext": [], "vector": [], "hybrid": []}
        for q in self.fresh(n):
            t0 = time.perf_counter()
            vec = list(EMBED_RAW(embedder, q))
            t1 = time.perf_counter()
            text = self.text_params(scope, q, "hybrid")
            db.read("bench_floor_fulltext", {**text, "k": k})
            t2 = time.perf_counter()
            db.read(
                "bench_floor_vector",
                {"vector": vec, "k": k, "index": vector_shards.index(scope), "scope": scope},
            )
            t3 = time.perf_counter()
            db.read(
                "bench_floor_hybrid",
                {
                    **text,
                    "vector": vec,
                    "k": k,
                    "index": vector_shards.index(scope),
                    "scope": scope,
                },
            )
            t4 = time.perf_counter()
            embed, ft, vc, both = (t1 - t0, t2 - t1, t3 - t2, t4 - t3)
            for name, value in (("embed", embed), ("fulltext", ft), ("vector", vc), ("both", both)):
                series[name].append(value * 1000.0)
            sums["fulltext"].append(ft * 1000.0)
            sums["vector"].append((embed + vc) * 1000.0)
            sums["hybrid"].append((embed + both) * 1000.0)
        for name, values in series.items():
            label = {
                "embed": "query embedding",
                "fulltext": "full-text index calls (turns and passages)",
                "vector": "vector index call",
                "both": "every index call, one query",
            }[name]
            self.figures.append(
                figure(
                    facts,
                    "floor",
                    label,
                    "cypher" if name != "embed" else "model",
                    1,
                    values,
                    sum(values) / 1000.0,
                    0,
                )
            )
        for name, values in sums.items():
            self.floors[(facts, name)] = (percentile(values, 0.5), percentile(values, 0.95))
            label = {
                "fulltext": "floor fulltext",
                "vector": "floor vector = embed + index",
                "hybrid": "floor hybrid = embed + every index call",
            }[name]
            self.figures.append(
                figure(facts, "floor", label, "cypher+model", 1, values, sum(values) / 1000.0, 0)
            )

    def searches(self, facts: int, scope: str, clients: Clients) -> None:
        n = self.args.queries
        for name, (py_opts, gql_opts, rest_fields) in CONFIGS.items():
            if self.args.configs and name not in self.args.configs:
                continue
            options = SearchOptions.build(**py_opts)
            parts: dict[str, list[float]] = {}

            def python(
                q: str, options: SearchOptions = options, parts: dict[str, list[float]] = parts
            ) -> None:
                result = self.memory.search(scope, q, options=options)
                for key, value in result.timings_ms.items():
                    parts.setdefault(key, []).append(value)

            interfaces: list[tuple[str, Callable[[str], None]]] = [("python", python)]
            interfaces.append(
                ("graphql", lambda q, o=gql_opts: clients.graphql(scope, q, o))  # type: ignore[misc]
            )
            if rest_fields is not None:
                interfaces.append(
                    ("rest", lambda q, o=rest_fields: clients.rest(scope, q, o))  # type: ignore[misc]
                )
            chosen = [(i, w) for i, w in interfaces if i in self.args.interfaces]
            for count in self.args.clients:
                for _, work in chosen:
                    run_timed(work, self.fresh(max(8, count * 2)), count)  # warm-up
                parts.clear()
                if count == 1:
                    series, floors = self.paired(chosen, FLOOR_OF[name], scope, n)
                    floor: tuple[float, float] | None = (
                        percentile(floors, 0.5),
                        percentile(floors, 0.95),
                    )
                else:
                    series = {i: run_timed(w, self.fresh(n), count) for i, w in chosen}
                    floor = self.floors.get((facts, FLOOR_OF[name]))
                for interface, (lat, wall, errors) in series.items():
                    f = figure(facts, "search", name, interface, count, lat, wall, errors)
                    if floor is not None:
                        f.floor = FLOOR_OF[name] + (", paired" if count == 1 else "")
                        f.floor_p50, f.floor_p95 = floor
                    if interface == "python" and count == 1:
                        f.parts_ms = {k: statistics.median(v) for k, v in parts.items()}
                    self.figures.append(f)
        access.recorder(self.memory.db).flush(60)

    def writes(self, facts: int, scope: str) -> None:
        m = self.args.writes
        if m <= 0:
            return
        for pipeline in (True, False):
            texts = [
                f"{q.capitalize()}? Someone answered at length (write {i})"
                for i, q in enumerate(self.fresh(m + 5))
            ]

            def remember(text: str, pipeline: bool = pipeline) -> None:
                self.memory.remember_with_decision(
                    scope,
                    {"text": text, "tags": ["bench-write"], "session_id": "bench-w"},
                    pipeline=pipeline,
                )

            run_timed(remember, texts[:5], 1)
            lat, wall, errors = run_timed(remember, texts[5:], 1)
            label = "remember, pipeline " + ("on" if pipeline else "off")
            self.figures.append(figure(facts, "write", label, "python", 1, lat, wall, errors))

    def lexical(self, scope: str, needle: str) -> None:
        self.memory.lexical_search(scope, needle, limit=10)

    def browse(self, facts: int, scope: str) -> None:
        n = self.args.queries
        needles = [LEXICAL_NEEDLES[i % len(LEXICAL_NEEDLES)] for i in range(n)]
        lat, wall, errors = run_timed(
            lambda q: self.lexical(scope, q),
            needles[:5],
            1,
        )
        lat, wall, errors = run_timed(lambda q: self.lexical(scope, q), needles, 1)
        self.figures.append(
            figure(facts, "browse", "lexical search", "python", 1, lat, wall, errors)
        )
        sessions = [f"s{self.args.seed}-{1 + i * 7:06d}" for i in range(n)]

        def page(session: str) -> None:
            self.memory.timeline(scope, first=20, session_id=session or None)

        run_timed(page, [""] * 5, 1)
        lat, wall, errors = run_timed(page, [""] * n, 1)
        self.figures.append(
            figure(facts, "browse", "timeline, first page", "python", 1, lat, wall, errors)
        )
        lat, wall, errors = run_timed(page, sessions, 1)
        self.figures.append(
            figure(facts, "browse", "timeline, one session", "python", 1, lat, wall, errors)
        )

    def rss(self, scope: str, clients: Clients, pid: int) -> list[tuple[int, float]]:
        total = self.args.rss_searches
        batch = max(50, total // 40)
        run_timed(lambda q: clients.graphql(scope, q, {}), self.fresh(50), 8)
        samples = [(0, rss_mib(pid))]
        done = 0
        while done < total:
            size = min(batch, total - done)
            run_timed(lambda q: clients.graphql(scope, q, {}), self.fresh(size), 8)
            done += size
            samples.append((done, rss_mib(pid)))
        print(
            f"  RSS {samples[0][1]:.0f} -> {samples[-1][1]:.0f} MiB over {done} searches",
            file=sys.stderr,
        )
        return samples


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--skip-100k", action="store_true", help="leave out 100,000 facts")
    parser.add_argument("--queries", type=int, default=200, help="measured searches per series")
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 8])
    parser.add_argument("--writes", type=int, default=50, help="remembers per pipeline setting")
    parser.add_argument("--rss-searches", type=int, default=10_000)
    parser.add_argument(
        "--warmup",
        type=int,
        default=2000,
        help="warm-up steps before each size (searches, floor queries, a remember every 40)",
    )
    parser.add_argument("--pool", type=int, default=8000, help="distinct embedded sentences")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--keep", action="store_true", help="keep the seeded scopes")
    parser.add_argument("--reuse", action="store_true", help="reuse a kept scope of that size")
    parser.add_argument("--configs", nargs="+", choices=list(CONFIGS), help="searches to run")
    parser.add_argument("--interfaces", nargs="+", default=["python", "graphql", "rest"])
    parser.add_argument("--seed-only", action="store_true", help="seed (and keep) the scopes")
    parser.add_argument(
        "--scopes",
        type=int,
        nargs="+",
        default=[1],
        help="spread each size over this many equal scopes and search the first (e.g. 1 100)",
    )
    parser.add_argument(
        "--beside",
        type=int,
        default=0,
        help="search each size's scope while a kept one-scope layout of this size fills the rest",
    )
    parser.add_argument(
        "--merge",
        action="store_true",
        help="keep the other layouts' rows of the existing latency.json beside this run's",
    )
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve)
        return 0
    sizes = [n for n in args.facts if not (args.skip_100k and n >= 100_000)]
    layouts = [Layout(n, scopes, args.beside) for n in sizes for scopes in args.scopes]
    info: dict[str, Any] = {"started": stamp(), **machine()}
    settings = Settings.from_env()
    memory = Memory.connect(settings)
    info["neo4j"] = (
        f"{memory.db.ping()} at {settings.bolt_uri} (local settings: heap {settings.local.heap}, "
        f"pagecache {settings.local.pagecache})"
    )
    info["model"] = (
        f"{memory.embedder.id}, {settings.embed_threads} threads, queries on "
        f"{settings.query_threads}; threads {'spin' if settings.embed_spinning else 'stop'} "
        f"between runs; passage list {'beside' if settings.search_overlap else 'inside'} "
        "the candidate query"
    )
    if args.beside and not seeded(memory, args.beside, args.seed, 1):
        print(
            f"--beside {args.beside}: seed and keep that scope first "
            f"(--facts {args.beside} --seed-only)",
            file=sys.stderr,
        )
        return 2
    if args.seed_only:
        for layout in layouts:
            if not (args.reuse and seeded(memory, layout.size, args.seed, layout.scopes)):
                seed_layout(memory, layout.size, args.seed, layout.scopes, args.pool)
        memory.close()
        return 0
    bench = Bench(memory, args, Queries(args.seed))
    rss: dict[int, list[tuple[int, float]]] = {}
    store: dict[str, dict[str, Any]] = {}
    notes = [
        f"Facts share vectors from a pool of {args.pool:,} distinct sentences embedded by the "
        "real model (bench/latency_corpus.py); queries are embedded live, each one new.",
        "Service: a uvicorn subprocess (`Memory.connect` + `create_app`, JSON access log at "
        "info, as `factgraph serve`); HTTP clients are keep-alive http.client connections in "
        "threads of the bench process, on the same 2 cores.",
        f"Selective filter: tag '{RARE_TAG}' on about 0.5% of facts.",
    ]
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, service(Path(tmp) / "service.log") as (base, pid):
        clients = Clients(base)
        try:
            for layout in layouts:
                facts = layout.total
                scope = scope_name(layout.size, args.seed, layout.scopes)
                if not (args.reuse and seeded(memory, layout.size, args.seed, layout.scopes)):
                    seconds = seed_layout(memory, layout.size, args.seed, layout.scopes, args.pool)
                    notes.append(f"Seeding {layout.title} took {seconds:.0f}s (fast import).")
                size = shares.share(memory.db, scope)
                notes.append(
                    f"{layout.title}: the scope searched held {size.share:.1%} of the "
                    f"database's {size.total:,} facts"
                    + (
                        f" (beside it, the kept {args.beside:,}-fact scope)"
                        if layout.beside
                        else f" ({layout.scopes} equal scopes)"
                        if layout.scopes > 1
                        else ""
                    )
                    + f": the vector index was asked for k = {bench.vector_k(scope)} neighbours "
                    "(graph/search/candidates.py)."
                )
                first = len(bench.figures)
                try:
                    bench.warm_up(scope, clients)
                    store[layout.title] = store_figures(settings, pid)
                    bench.floor(facts, scope)
                    bench.searches(facts, scope, clients)
                    bench.browse(facts, scope)
                    bench.writes(facts, scope)
                    whole = layout.searched == layout.total
                    if whole and layout.size == max(sizes) and args.rss_searches:
                        rss[facts] = bench.rss(scope, clients, pid)
                finally:
                    for f in bench.figures[first:]:
                        f.scope_facts = None if layout.searched == facts else layout.searched
                    if not args.keep:
                        access.recorder(memory.db).flush(60)
                        for name in layout_scopes(layout.size, args.seed, layout.scopes):
                            delete_scope(memory.db, name)
        finally:
            clients.close()
    info["finished"] = stamp()
    info["load after"] = machine()["uptime"]
    for f in bench.figures:
        f.neo4j = str(memory.db.server_version)
    figures = bench.figures
    if args.merge:
        figures, rss, store = merged(out / "latency.json", figures, rss, store, info)
    (out / "latency.json").write_text(
        json.dumps(
            {
                "info": info,
                "figures": [f.as_json() for f in figures],
                "rss": {str(k): v for k, v in rss.items()},
                "store": store,
                "notes": notes,
            },
            indent=1,
        )
    )
    (out / "latency.md").write_text(
        "\n".join(
            [
                markdown(figures, info, rss, notes),
                *scaling_markdown(figures),
                *store_markdown(store),
            ]
        )
    )
    plot(figures, rss, info, out / "latency.png")
    plot_scaling(figures, out / "latency-size.png")
    print(
        f"wrote {out / 'latency.md'}, latency.png, latency-size.png, latency.json", file=sys.stderr
    )
    memory.close()
    return 0


def merged(
    path: Path,
    figures: list[Figure],
    rss: dict[int, list[tuple[int, float]]],
    store: dict[str, dict[str, Any]],
    info: dict[str, Any],
) -> tuple[list[Figure], dict[int, list[tuple[int, float]]], dict[str, dict[str, Any]]]:
    """This run's layouts beside an earlier run's others, so one file holds every size.

    A million facts take most of an hour to seed and measure; re-measuring the smaller sizes
    beside it is optional. Each row keeps its paired floor, so ratios stay comparable across
    runs even when the machine's speed is not.
    """
    if not path.exists():
        return figures, rss, store
    earlier = json.loads(path.read_text())
    # Rows are kept per layout and Neo4j version: a run on one line appends beside the other's.
    measured = {(f.layout, f.neo4j) for f in figures}
    names = {f.name for f in dataclasses.fields(Figure)}
    earlier_neo4j = str(earlier.get("info", {}).get("neo4j", "")).split(" ")[0] or None
    kept = [
        Figure(**{k: v for k, v in {"neo4j": earlier_neo4j, **row}.items() if k in names})
        for row in earlier.get("figures", [])
    ]
    kept = [f for f in kept if (f.layout, f.neo4j) not in measured]
    earlier_info = earlier.get("info", {})
    runs = earlier_info.get("runs") or {}
    kept_titles = {f"{layout_title(f.layout)} on Neo4j {f.neo4j}": f.layout for f in kept}
    if kept:
        by_run: dict[str, list[str]] = {}
        for title, layout in sorted(kept_titles.items()):
            # Runs recorded before rows carried a version were keyed by the layout alone.
            started = runs.get(title) or runs.get(
                layout_title(layout), earlier_info.get("started", "?")
            )
            runs[title] = started
            by_run.setdefault(started, []).append(title)
        info["merged"] = "; ".join(
            f"{', '.join(titles)}: rows of the run of {started} UTC"
            for started, titles in by_run.items()
        )
    info["runs"] = {
        **{k: v for k, v in runs.items() if k in kept_titles},
        **{f"{layout_title(x)} on Neo4j {v}": info["started"] for x, v in measured},
    }
    old_rss = {int(k): [tuple(x) for x in v] for k, v in earlier.get("rss", {}).items()}
    all_rss = {**{k: v for k, v in old_rss.items() if k not in rss}, **rss}
    all_store = {**earlier.get("store", {}), **store}
    return (
        sorted([*kept, *figures], key=lambda f: f.layout),
        all_rss,
        all_store,
    )


if __name__ == "__main__":
    sys.exit(main())
