"""Load: 50 concurrent clients, mixed reads and writes, for 60 s, over HTTP on loopback.

Starts `factgraph serve` as a subprocess on a free port (or uses --url), runs --clients
asyncio clients for --seconds (and at most --max-requests requests), then checks what the
service promised: zero 5xx answers, every acknowledged write present afterwards (counted), and
that the writes of one shared text by every client produced exactly one fact. It prints p50 /
p99 per operation and a JSON summary; the exit code is 1 if a promise was broken.

    .venv/bin/python bench/load.py                       # 50 clients, 60 s
    .venv/bin/python bench/load.py --clients 10 --seconds 10
    .venv/bin/python bench/load.py --url http://127.0.0.1:8000 --api-key fgk_...

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
import socket
import statistics
import subprocess
import sys
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from graph.config import Settings
from graph.db import Database

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
    errors: Counter[str] = field(default_factory=Counter)
    acked: dict[str, str] = field(default_factory=dict)  # fact id -> text acknowledged
    shared_ids: set[str] = field(default_factory=set)
    requests: int = 0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class Load:
    def __init__(self, url: str, scope: str, args: argparse.Namespace, has_search: bool) -> None:
        self.url = url
        self.scope = scope
        self.args = args
        self.has_search = has_search
        self.stats = Stats()
        self.deadline = 0.0
        self.headers = {"Authorization": f"Bearer {args.api_key}"} if args.api_key else {}

    def _budget_left(self) -> bool:
        return time.monotonic() < self.deadline and self.stats.requests < self.args.max_requests

    async def _post(self, client: httpx.AsyncClient, op: str, query: str, **v: Any) -> Any:
        self.stats.requests += 1
        started = time.perf_counter()
        try:
            response = await client.post(
                "/graphql", json={"query": query, "variables": v}, headers=self.headers
            )
        except httpx.HTTPError as exc:
            self.stats.errors[f"{op}:{type(exc).__name__}"] += 1
            return None
        self.stats.latencies[op].append(time.perf_counter() - started)
        self.stats.statuses[str(response.status_code)] += 1
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

    async def run(self) -> None:
        limits = httpx.Limits(max_connections=self.args.clients, max_keepalive_connections=64)
        async with httpx.AsyncClient(base_url=self.url, timeout=30, limits=limits) as client:
            self.deadline = time.monotonic() + self.args.seconds
            await asyncio.gather(*(self.client(client, n) for n in range(self.args.clients)))


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


def start_server(settings: Settings, port: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "FACTGRAPH_LOG_FORMAT": "json"}
    exe = Path(sys.executable).parent / "factgraph"
    proc = subprocess.Popen(
        [str(exe), "serve", "--port", str(port), "--log-level", "warning"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"factgraph serve exited with {proc.returncode}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    proc.kill()
    raise SystemExit("factgraph serve did not become healthy within 180 s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="an already running service (default: start one)")
    parser.add_argument("--api-key", help="API key for a service that requires one")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--max-requests", type=int, default=200_000)
    args = parser.parse_args()

    settings = Settings.from_env()
    scope = f"bench-load-{uuid.uuid4().hex[:8]}"
    proc = None
    url = args.url
    if url is None:
        port = free_port()
        proc = start_server(settings, port)
        url = f"http://127.0.0.1:{port}"
    try:
        sdl = httpx.post(
            f"{url}/graphql",
            json={"query": "{ __schema { queryType { fields { name } } } }"},
            timeout=30,
        )
        fields = {f["name"] for f in sdl.json()["data"]["__schema"]["queryType"]["fields"]}
        load = Load(url, scope, args, has_search="search" in fields)
        started = time.monotonic()
        asyncio.run(load.run())
        elapsed = time.monotonic() - started
        stats = load.stats
        checked = verify(settings, scope, stats)
        five_xx = sum(n for status, n in stats.statuses.items() if status.startswith("5"))
        summary: dict[str, Any] = {
            "clients": args.clients,
            "seconds": round(elapsed, 1),
            "requests": stats.requests,
            "throughput_rps": round(stats.requests / elapsed, 1),
            "statuses": dict(stats.statuses),
            "five_xx": five_xx,
            "errors": dict(stats.errors),
            "writes_acknowledged": checked["acknowledged"],
            "writes_present_afterwards": checked["present"],
            "shared_text_fact_ids": len(stats.shared_ids),
            "search": load.has_search,
            "latency_ms": {
                op: {
                    "n": len(values),
                    "p50": round(percentile(values, 0.50) * 1000, 1),
                    "p99": round(percentile(values, 0.99) * 1000, 1),
                    "mean": round(statistics.fmean(values) * 1000, 1),
                }
                for op, values in sorted(stats.latencies.items())
            },
        }
        all_latencies = [v for values in stats.latencies.values() for v in values]
        summary["latency_ms"]["all"] = {
            "n": len(all_latencies),
            "p50": round(percentile(all_latencies, 0.50) * 1000, 1),
            "p99": round(percentile(all_latencies, 0.99) * 1000, 1),
        }
        print(json.dumps(summary, indent=2))
        ok = (
            five_xx == 0
            and checked["present"] == checked["acknowledged"]
            and len(stats.shared_ids) <= 1
            and not any(k.startswith("get:acknowledged") for k in stats.errors)
        )
        print("PASS" if ok else "FAIL", file=sys.stderr)
        return 0 if ok else 1
    finally:
        if proc is not None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)
        db = Database(settings)
        try:
            db.write("scope_delete", {"scope": scope})
        finally:
            db.close()


if __name__ == "__main__":
    sys.exit(main())
