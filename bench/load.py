"""Load: 50 concurrent clients, mixed reads and writes, for 60 s, over HTTP on loopback.

Starts `factgraph serve` as a subprocess on a free port (or uses --url), warms it up, runs
--clients asyncio clients for --seconds (and at most --max-requests requests), then checks what
the service promised:

- every request got an answer: a connection-level error (the client got no HTTP response at
  all: reset, disconnect, timeout) is a broken promise, since a client that gets no answer to
  a write cannot know whether it happened;
- no 5xx other than the service's own overload refusal (503 `OVERLOADED` with `Retry-After`),
  which the clients honour by waiting before their next request;
- p99 of the answered requests within --max-p99-ms (default 1,500 ms);
- every acknowledged write present afterwards (read back from Neo4j, not the service), and one
  fact for the text every client writes.

It prints p50 / p99 per operation and a JSON summary (also written to --out); the exit code is
1 if a promise was broken.

Fair admission (--tenant-b-rps N): a second tenant, in a scope of its own (its own API key with
--api-key-b), sends a steady N requests per second (remember, get and search in turn, each
request on time whatever the last one's latency), first alone for --tenant-b-alone seconds, then
beside the flood of --clients. Promised: every one of its requests succeeds, and its p99 beside
the flood stays under --max-b-ratio (3) times its p99 alone. Its figures go to
bench/results/load-tenants.json unless --out says otherwise, with the command line, the commit
and the machine's load average (a figure taken beside other work is not a quiet one).

    .venv/bin/python bench/load.py                       # 50 clients, 60 s
    .venv/bin/python bench/load.py --clients 10 --seconds 10
    .venv/bin/python bench/load.py --url http://127.0.0.1:8000 --api-key fgk_...
    .venv/bin/python bench/load.py --out bench/results/load.json --server-log /tmp/serve.log
    .venv/bin/python bench/load.py --tenant-b-rps 5      # fairness: results/load-tenants.json

Operations: remember (a new fact, 25%), remember_same (the same text from everyone, 5%),
get (a fact acknowledged earlier, 35%), search (hybrid search; `get` when the schema has none,
30%), health (5%). The bench scope is deleted at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bench.serve import free_port, start_server
from graph.config import Settings
from graph.storage.db import Database

REMEMBER = """mutation($s: String!, $t: String!, $subject: String) {
  remember(scope: $s, fact: {text: $t, subject: $subject}) { kind fact { id text } }
}"""
GET = "query($s: String!, $id: ID!) { fact(scope: $s, id: $id) { id text } }"
SEARCH = "query($s: String!, $q: String!) { search(scope: $s, query: $q) { hits { fact { id } } } }"
HEALTH = "{ health { ok neo4j } }"

PEOPLE = ["Ana", "Bo", "Caroline", "Dev", "Elif", "Farid", "Greta", "Hiro", "Ines", "Jon"]
THINGS = ["chess", "climbing", "jazz", "pottery", "birds", "sourdough", "salsa", "Oslo", "Lyon"]
SHARED_TEXT = "Every load-test client agrees: the meeting moved to Thursday."


@dataclass
class Stats:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    statuses: Counter[str] = field(default_factory=Counter)
    # The client got no HTTP answer at all (httpx.TransportError: reset, disconnect, timeout).
    connection_errors: Counter[str] = field(default_factory=Counter)
    # An answer other than the promised one: a non-200 status or a GraphQL error.
    errors: Counter[str] = field(default_factory=Counter)
    # 503 OVERLOADED answers (refused at once, nothing done) and their latency.
    refused: Counter[str] = field(default_factory=Counter)
    refused_latencies: list[float] = field(default_factory=list)
    refused_without_retry_after: int = 0
    retry_after_waited_s: float = 0.0
    acked: dict[str, str] = field(default_factory=dict)  # fact id -> text acknowledged
    shared_ids: set[str] = field(default_factory=set)
    requests: int = 0


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def retry_after_seconds(response: httpx.Response) -> float | None:
    raw = response.headers.get("retry-after", "")
    try:
        return max(0.0, float(raw))
    except ValueError:
        return None


def is_overload_refusal(response: httpx.Response) -> bool:
    """The service's own admission-control answer, as opposed to any other 503."""
    if response.status_code != 503:
        return False
    try:
        body = response.json()
    except ValueError:
        return False
    if isinstance(body, dict) and isinstance(body.get("errors"), list) and body["errors"]:
        code = (body["errors"][0].get("extensions") or {}).get("code")
    else:
        code = (body.get("error") or {}).get("code") if isinstance(body, dict) else None
    return code == "OVERLOADED"


class Load:
    def __init__(self, url: str, scope: str, args: argparse.Namespace, has_search: bool) -> None:
        self.url = url
        self.scope = scope
        self.args = args
        self.has_search = has_search
        self.stats = Stats()
        self.deadline = 0.0
        self.max_requests = args.max_requests
        # Every request of this load names its scope, `health` too: without keys a tenant is
        # the scope a request names, and a health query naming none was charged to the client's
        # address, a third tenant beside the flood that took slots from tenant B's share.
        self.headers = {"X-Scope": scope}
        if args.api_key:
            self.headers["Authorization"] = f"Bearer {args.api_key}"

    def _budget_left(self) -> bool:
        return time.monotonic() < self.deadline and self.stats.requests < self.max_requests

    async def _post(self, client: httpx.AsyncClient, op: str, query: str, **v: Any) -> Any:
        self.stats.requests += 1
        started = time.perf_counter()
        try:
            response = await client.post(
                "/graphql", json={"query": query, "variables": v}, headers=self.headers
            )
        except httpx.TransportError as exc:
            self.stats.connection_errors[f"{op}:{type(exc).__name__}"] += 1
            return None
        elapsed = time.perf_counter() - started
        self.stats.statuses[str(response.status_code)] += 1
        if is_overload_refusal(response):
            self.stats.refused[op] += 1
            self.stats.refused_latencies.append(elapsed)
            wait = retry_after_seconds(response)
            if wait is None:
                self.stats.refused_without_retry_after += 1
                wait = 1.0
            wait = min(wait, max(0.0, self.deadline - time.monotonic()))
            self.stats.retry_after_waited_s += wait
            await asyncio.sleep(wait)
            return None
        self.stats.latencies[op].append(elapsed)
        if response.status_code != 200:
            self.stats.errors[f"{op}:{response.status_code}"] += 1
            return None
        body = response.json()
        if body.get("errors"):
            self.stats.errors[f"{op}:{body['errors'][0].get('message', '')[:60]}"] += 1
            return None
        return body["data"]

    async def client(self, client: httpx.AsyncClient, n: int) -> None:
        rng = random.Random(n)
        while self._budget_left():
            roll = rng.random()
            if roll < 0.25 or not self.stats.acked:
                text = (
                    f"{rng.choice(PEOPLE)} mentioned {rng.choice(THINGS)} "
                    f"(client {n}, note {uuid.uuid4().hex[:10]})"
                )
                data = await self._post(client, "remember", REMEMBER, s=self.scope, t=text)
                if data:  # a (near-)duplicate is acknowledged as the fact that holds it
                    fact = data["remember"]["fact"]
                    self.stats.acked[fact["id"]] = fact["text"]
            elif roll < 0.30:
                data = await self._post(
                    client, "remember_same", REMEMBER, s=self.scope, t=SHARED_TEXT
                )
                if data:
                    fact = data["remember"]["fact"]
                    self.stats.shared_ids.add(fact["id"])
                    self.stats.acked[fact["id"]] = fact["text"]
            elif roll < 0.65 or (roll < 0.95 and not self.has_search):
                fact_id = rng.choice(list(self.stats.acked))
                data = await self._post(client, "get", GET, s=self.scope, id=fact_id)
                if data is not None and data["fact"] is None:
                    self.stats.errors["get:acknowledged fact missing"] += 1
            elif roll < 0.95:
                query = f"{rng.choice(PEOPLE)} {rng.choice(THINGS)}"
                await self._post(client, "search", SEARCH, s=self.scope, q=query)
            else:
                await self._post(client, "health", HEALTH)

    async def run(self, clients: int, seconds: float) -> None:
        self.deadline = time.monotonic() + seconds
        await asyncio.gather(*(self._one_client(n) for n in range(clients)))

    async def _one_client(self, n: int) -> None:
        """Each client on its own keep-alive connection, as separate agents would be.

        One shared pool of 50 connections cost the bench itself ~0.5 s per request at 50
        clients (httpcore re-scans every connection for every waiting request on each state
        change), which it then reported as the service's latency.
        """
        limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
        async with httpx.AsyncClient(base_url=self.url, timeout=30, limits=limits) as client:
            await self.client(client, n)


class SteadyTenant:
    """Another tenant's steady stream: `rps` requests a second, each sent on time (open loop),
    so a slow answer shows as latency, never as fewer requests."""

    def __init__(self, url: str, scope: str, rps: float, api_key: str | None) -> None:
        self.url = url
        self.scope = scope
        self.rps = rps
        self.headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.stats = Stats()
        self.latencies: dict[str, list[float]] = defaultdict(list)  # phase -> seconds
        self.failures: Counter[str] = Counter()
        self.failed_at: dict[str, list[float]] = defaultdict(list)  # phase -> s into it

    async def run(self, phase: str, seconds: float) -> None:
        limits = httpx.Limits(max_connections=16, max_keepalive_connections=16)
        async with httpx.AsyncClient(base_url=self.url, timeout=30, limits=limits) as client:
            started = time.monotonic()
            sent: list[asyncio.Task[None]] = []
            n = 0
            while (due := started + n / self.rps) < started + seconds:
                await asyncio.sleep(max(0.0, due - time.monotonic()))
                sent.append(asyncio.create_task(self._one(client, phase, n)))
                n += 1
            await asyncio.gather(*sent)

    async def _one(self, client: httpx.AsyncClient, phase: str, n: int) -> None:
        kind = ("remember", "get", "search")[n % 3]
        if kind == "get" and not self.stats.acked:
            kind = "remember"
        if kind == "remember":
            text = f"{PEOPLE[n % 10]} told tenant B about {THINGS[n % 9]} ({uuid.uuid4().hex[:10]})"
            query, variables = REMEMBER, {"s": self.scope, "t": text}
        elif kind == "get":
            query, variables = GET, {"s": self.scope, "id": next(reversed(self.stats.acked))}
        else:
            query, variables = SEARCH, {"s": self.scope, "q": f"{PEOPLE[n % 10]} {THINGS[n % 9]}"}
        started = time.perf_counter()
        try:
            response = await client.post(
                "/graphql", json={"query": query, "variables": variables}, headers=self.headers
            )
        except httpx.TransportError as exc:
            self.failures[f"{phase}:{kind}:{type(exc).__name__}"] += 1
            return
        elapsed = time.perf_counter() - started
        body = response.json()
        if response.status_code != 200 or body.get("errors"):
            error = (body.get("errors") or [{}])[0]
            code = error.get("extensions", {}).get("code", "")
            # Which bound refused it: the tenant's share, or the service's capacity.
            bound = " share" if "PER_TENANT" in error.get("message", "") else ""
            self.failures[f"{phase}:{kind}:{response.status_code} {code}{bound}"] += 1
            self.failed_at[phase].append(round(n / self.rps, 1))
            return
        self.latencies[phase].append(elapsed)
        if kind == "remember":
            fact = body["data"]["remember"]["fact"]
            self.stats.acked[fact["id"]] = fact["text"]


def verify(settings: Settings, scope: str, stats: Stats) -> dict[str, int]:
    """Read every acknowledged fact back from Neo4j itself, not through the service."""
    db = Database(settings)
    try:
        present = 0
        for fact_id, text in stats.acked.items():
            records = db.read("fact_get", {"scope": scope, "id": fact_id})
            if records and records[0]["fact"]["text"] == text:
                present += 1
        return {"acknowledged": len(stats.acked), "present": present}
    finally:
        db.close()


def warm_up(url: str, settings: Settings, args: argparse.Namespace, has_search: bool) -> None:
    """The same mix from a few clients in a throw-away scope: model, JIT and caches warm."""
    if args.warmup <= 0:
        return
    scope = f"bench-load-warmup-{uuid.uuid4().hex[:8]}"
    warm = Load(url, scope, args, has_search)
    try:
        asyncio.run(warm.run(min(4, args.clients), args.warmup))
    finally:
        db = Database(settings)
        try:
            db.write("scope_delete", {"scope": scope})
        finally:
            db.close()


def latency_row(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"n": 0, "p50": None, "p99": None, "max": None}
    return {
        "n": len(values),
        "p50": round(percentile(values, 0.50) * 1000, 1),
        "p99": round(percentile(values, 0.99) * 1000, 1),
        "max": round(max(values) * 1000, 1),
    }


def summarise(
    args: argparse.Namespace, load: Load, elapsed: float, checked: dict[str, int]
) -> tuple[dict[str, Any], list[str]]:
    """The JSON summary and the list of broken promises (empty: PASS)."""
    stats = load.stats
    refused = sum(stats.refused.values())
    other_5xx = sum(n for status, n in stats.statuses.items() if status.startswith("5")) - refused
    connection_errors = sum(stats.connection_errors.values())
    answered = [v for values in stats.latencies.values() for v in values]
    summary: dict[str, Any] = {
        "clients": args.clients,
        "seconds": round(elapsed, 1),
        "requests": stats.requests,
        "throughput_rps": round(stats.requests / elapsed, 1),
        "answered_rps": round(len(answered) / elapsed, 1),
        "unanswered": connection_errors,
        "connection_errors": dict(stats.connection_errors),
        "statuses": dict(stats.statuses),
        "refused_503": refused,
        "refused_by_op": dict(stats.refused),
        "refused_without_retry_after": stats.refused_without_retry_after,
        "retry_after_waited_s": round(stats.retry_after_waited_s, 1),
        "other_5xx": other_5xx,
        "errors": dict(stats.errors),
        "writes_acknowledged": checked["acknowledged"],
        "writes_present_afterwards": checked["present"],
        "shared_text_fact_ids": len(stats.shared_ids),
        "search": load.has_search,
        "latency_ms": {op: latency_row(values) for op, values in sorted(stats.latencies.items())},
    }
    summary["latency_ms"]["all_answered"] = latency_row(answered)
    summary["latency_ms"]["refused_503"] = latency_row(stats.refused_latencies)
    broken = []
    if connection_errors:
        broken.append(f"{connection_errors} request(s) got no answer at all (connection errors)")
    if other_5xx:
        broken.append(f"{other_5xx} 5xx answer(s) other than the 503 overload refusal")
    if stats.refused_without_retry_after:
        broken.append(f"{stats.refused_without_retry_after} 503 refusal(s) without Retry-After")
    if checked["present"] != checked["acknowledged"]:
        broken.append("acknowledged writes missing afterwards")
    if len(stats.shared_ids) > 1:
        broken.append("the shared text produced more than one fact")
    if any(k.startswith("get:acknowledged") for k in stats.errors):
        broken.append("a get did not find an acknowledged fact")
    p99 = summary["latency_ms"]["all_answered"]["p99"]
    if p99 is not None and p99 > args.max_p99_ms:
        broken.append(f"p99 of answered requests {p99} ms > {args.max_p99_ms} ms")
    if not answered:
        broken.append("no request was answered")
    summary["broken"] = broken
    return summary, broken


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="an already running service (default: start one)")
    parser.add_argument("--api-key", help="API key for a service that requires one")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--max-requests", type=int, default=200_000)
    parser.add_argument("--warmup", type=float, default=10.0, help="seconds (0: none)")
    parser.add_argument("--max-p99-ms", type=float, default=1500.0)
    parser.add_argument("--tenant-b-rps", type=float, default=0.0, help="0: no second tenant")
    parser.add_argument("--tenant-b-alone", type=float, default=20.0, help="seconds, first")
    parser.add_argument("--api-key-b", help="the second tenant's API key (keys required)")
    parser.add_argument("--max-b-ratio", type=float, default=3.0)
    parser.add_argument("--out", help="also write the JSON summary to this file")
    parser.add_argument("--server-log", help="append the started service's stderr here")
    args = parser.parse_args()
    if args.tenant_b_rps > 0 and args.out is None:
        args.out = str(Path(__file__).parent / "results" / "load-tenants.json")

    settings = Settings.from_env()
    scope = f"bench-load-{uuid.uuid4().hex[:8]}"
    conditions = run_conditions()
    proc = None
    url = args.url
    if url is None:
        port = free_port()
        proc = start_server(port, args.server_log, "--log-level", "warning")
        url = f"http://127.0.0.1:{port}"
    try:
        sdl = httpx.post(
            f"{url}/graphql",
            json={"query": "{ __schema { queryType { fields { name } } } }"},
            headers={"Authorization": f"Bearer {args.api_key}"} if args.api_key else {},
            timeout=30,
        )
        fields = {f["name"] for f in sdl.json()["data"]["__schema"]["queryType"]["fields"]}
        has_search = "search" in fields
        warm_up(url, settings, args, has_search)
        load = Load(url, scope, args, has_search)
        tenant_b = None
        if args.tenant_b_rps > 0:
            tenant_b = SteadyTenant(url, f"{scope}-b", args.tenant_b_rps, args.api_key_b)
            asyncio.run(tenant_b.run("alone", args.tenant_b_alone))
        started = time.monotonic()
        asyncio.run(flood_beside(load, tenant_b, args.clients, args.seconds))
        elapsed = time.monotonic() - started
        checked = verify(settings, scope, load.stats)
        summary, broken = summarise(args, load, elapsed, checked)
        if tenant_b is not None:
            broken += fairness(args, tenant_b, verify(settings, tenant_b.scope, tenant_b.stats))
            summary["tenant_b"] = tenant_b_summary(tenant_b)
            summary["broken"] = broken
        summary["conditions"] = {**conditions, "loadavg_at_end": os.getloadavg()[0]}
        text = json.dumps(summary, indent=2)
        print(text)
        if args.out:
            Path(args.out).write_text(text + "\n")
        for reason in broken:
            print(f"broken: {reason}", file=sys.stderr)
        print("FAIL" if broken else "PASS", file=sys.stderr)
        return 1 if broken else 0
    finally:
        if proc is not None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)
        db = Database(settings)
        try:
            db.write("scope_delete", {"scope": scope})
            db.write("scope_delete", {"scope": f"{scope}-b"})
        finally:
            db.close()


def run_conditions() -> dict[str, Any]:
    """What the figures were taken on: the command, the commit, the machine and its load."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            cwd=Path(__file__).parent,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = None
    return {
        "command": " ".join(["bench/load.py", *sys.argv[1:]]),
        "commit": commit,
        "cpus": os.cpu_count(),
        "loadavg_at_start": os.getloadavg()[0],
        "max_queue_per_tenant": os.environ.get("FACTGRAPH_MAX_QUEUE_PER_TENANT", "default"),
    }


async def flood_beside(load: Load, tenant_b: SteadyTenant | None, clients: int, s: float) -> None:
    runs = [load.run(clients, s)] if clients > 0 else []
    if tenant_b is not None:
        runs.append(tenant_b.run("beside_flood", s))
    await asyncio.gather(*runs)


def tenant_b_summary(tenant: SteadyTenant) -> dict[str, Any]:
    alone = latency_row(tenant.latencies["alone"])
    beside = latency_row(tenant.latencies["beside_flood"])
    ratio = (
        round(beside["p99"] / alone["p99"], 2)
        if alone["p99"] and beside["p99"] is not None
        else None
    )
    return {
        "rps": tenant.rps,
        "latency_ms": {"alone": alone, "beside_flood": beside},
        "p99_ratio": ratio,
        "failures": dict(tenant.failures),
        "failed_at_s": dict(tenant.failed_at),
    }


def fairness(args: argparse.Namespace, tenant: SteadyTenant, checked: dict[str, int]) -> list[str]:
    """What the second tenant was promised: every request served, p99 within the ratio."""
    broken = []
    if tenant.failures:
        broken.append(f"tenant B: {sum(tenant.failures.values())} request(s) not served")
    ratio = tenant_b_summary(tenant)["p99_ratio"]
    if ratio is not None and ratio > args.max_b_ratio:
        broken.append(f"tenant B: p99 beside the flood {ratio}x alone > {args.max_b_ratio}x")
    if checked["present"] != checked["acknowledged"]:
        broken.append("tenant B: acknowledged writes missing afterwards")
    return broken


if __name__ == "__main__":
    sys.exit(main())
