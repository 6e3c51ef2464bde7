"""Soak: idle streams, a flood and Neo4j outages at once, against a served factgraph.

Starts `factgraph serve` on a free port (the local Neo4j; not with NEO4J_URI, which it cannot
pause), opens --streams idle MCP event streams, runs --clients writing and searching clients
(tenant "work") beside --flood-clients clients of another tenant that send as fast as they are
let ("flood"), for --minutes, and meanwhile takes Neo4j away (--faults, spread evenly over the
run): `pause` stops it (SIGSTOP) for --pause-for seconds, `kill` kills it (SIGKILL) and starts
it again after --down-for seconds. Then it checks what the service promised (issue 64):

- every request got an HTTP answer (no reset, no timeout);
- no 5xx but 503 with Retry-After and a code: OVERLOADED or DATABASE_UNAVAILABLE;
- no request sent while Neo4j was away was refused later than FACTGRAPH_DB_TIMEOUT + --slack;
- the service served again by itself after each fault (first 200 after it, in seconds);
- every acknowledged write is in Neo4j afterwards (read from Neo4j, not through the service),
  and no fact the soak sent is half-written (without its embedding or its subject's entity);
- the idle streams were never refused.

Figures go to --out (bench/results/outage_soak.json) and stdout; exit 1 if a promise broke.

    .venv/bin/python bench/outage_soak.py --minutes 10       # the 10-minute soak (issue 64 §6)
    .venv/bin/python bench/outage_soak.py --minutes 2 --out /tmp/soak.json   # a short check
    .venv/bin/python bench/outage_soak.py --minutes 1 --faults pause
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bench.load import latency_row
from bench.serve import drop_scope, free_port, start_server
from graph.config import Settings
from graph.errors import DatabaseUnavailable
from graph.platform.neo4j_local import LocalNeo4j
from graph.storage.db import Database

RESULTS = Path(__file__).parent / "results"

REMEMBER = """mutation($s: String!, $t: String!, $who: String!) {
  remember(scope: $s, fact: {text: $t, subject: $who}) { fact { id text } }
}"""
SEARCH = "query($s: String!, $q: String!) { search(scope: $s, query: $q) { hits { fact { id } } } }"
WORDS = ["chess", "tea", "Oslo", "jazz", "sailing", "pottery", "birds", "Lyon", "salsa"]


@dataclass
class Answer:
    tenant: str
    sent: float  # time.monotonic()
    took: float
    status: int
    code: str
    retry_after: bool


@dataclass
class Soak:
    url: str
    scope: str  # the working tenant's; the flood's is `scope + "-flood"`
    deadline: float
    faults_over: bool = False
    answers: list[Answer] = field(default_factory=list)
    transport_errors: Counter[str] = field(default_factory=Counter)
    acked: dict[str, str] = field(default_factory=dict)  # id -> text
    sent_texts: set[str] = field(default_factory=set)

    async def client(self, n: int, tenant: str) -> None:
        scope = self.scope if tenant == "work" else f"{self.scope}-flood"
        who = f"Client {n}"
        limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
        async with httpx.AsyncClient(base_url=self.url, timeout=60, limits=limits) as client:
            i = 0
            while time.monotonic() < self.deadline or not self.faults_over:
                i += 1
                if i % 2:
                    text = f"{who} noted {WORDS[i % 9]} ({uuid.uuid4().hex[:12]})"
                    self.sent_texts.add(text)
                    variables = {"s": scope, "t": text, "who": who}
                    body = {"query": REMEMBER, "variables": variables}
                else:
                    body = {"query": SEARCH, "variables": {"s": scope, "q": WORDS[i % 9]}}
                sent = time.monotonic()
                try:
                    response = await client.post("/graphql", json=body)
                except httpx.TransportError as exc:
                    self.transport_errors[type(exc).__name__] += 1
                    continue
                answer = Answer(
                    tenant, sent, time.monotonic() - sent, response.status_code,
                    _code(response), bool(response.headers.get("retry-after")),
                )  # fmt: skip
                self.answers.append(answer)
                if response.status_code == 200 and i % 2 and not response.json().get("errors"):
                    fact = response.json()["data"]["remember"]["fact"]
                    self.acked[fact["id"]] = fact["text"]
                elif response.status_code == 503:
                    await asyncio.sleep(1.0)  # Retry-After, capped as the Python client does
                elif tenant == "work":
                    await asyncio.sleep(0.05)  # a working client thinks between requests


def _code(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return ""
    if body.get("errors"):
        return str((body["errors"][0].get("extensions") or {}).get("code", ""))
    return str((body.get("error") or {}).get("code", ""))


def warm_up(url: str, scope: str) -> None:
    """A process's first search loads what it needs (seconds, cold): not the fault's to show."""
    with httpx.Client(base_url=url, timeout=300) as client:
        for word in WORDS[:3]:
            text = f"Warm-up note about {word}"
            variables = {"s": scope, "t": text, "who": "Warm-up"}
            client.post("/graphql", json={"query": REMEMBER, "variables": variables})
            client.post("/graphql", json={"query": SEARCH, "variables": {"s": scope, "q": word}})


def open_streams(url: str, n: int) -> tuple[list[socket.socket], Counter[int]]:
    host, port = url.removeprefix("http://").split(":")
    socks: list[socket.socket] = []
    statuses: Counter[int] = Counter()
    for i in range(n):
        sock = socket.create_connection((host, int(port)), timeout=30)
        # A key of its own per stream: the per-client bound is the service's to keep, not
        # this bench's to hit.
        sock.sendall(
            f"GET /mcp HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: text/event-stream\r\n"
            f"X-Scope: soak\r\nX-API-Key: stream-{i}\r\n\r\n".encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            head += sock.recv(4096)
        statuses[int(head.split(b" ", 2)[1])] += 1
        socks.append(sock)
    return socks, statuses


@dataclass
class Fault:
    kind: str  # "pause" or "kill"
    at: float  # seconds into the run
    began: float = 0.0  # time.monotonic()
    ended: float = 0.0  # when Neo4j was let go on (SIGCONT) or had started again


async def take_away(server: LocalNeo4j, fault: Fault, args: argparse.Namespace) -> None:
    if fault.kind == "kill":
        fault.began = time.monotonic()
        server.kill()
        await asyncio.sleep(args.down_for)
        await asyncio.to_thread(server.start)
    else:
        pid = server.pid()
        assert pid is not None, "the local Neo4j is not running"
        fault.began = time.monotonic()
        os.kill(pid, signal.SIGSTOP)
        try:
            await asyncio.sleep(args.pause_for)
        finally:
            os.kill(pid, signal.SIGCONT)
    fault.ended = time.monotonic()


async def faults(
    soak: Soak, server: LocalNeo4j, plan: list[Fault], args: argparse.Namespace
) -> None:
    """Each fault at its time; the clients go on 30 s past the last one's end (a restart on a
    loaded machine can outlast the run)."""
    started = time.monotonic()
    for fault in plan:
        await asyncio.sleep(max(0.0, started + fault.at - time.monotonic()))
        await take_away(server, fault, args)
    if plan:
        soak.deadline = max(soak.deadline, plan[-1].ended + 30)
    soak.faults_over = True


async def run(soak: Soak, server: LocalNeo4j, plan: list[Fault], args: argparse.Namespace) -> None:
    fault_task = asyncio.create_task(faults(soak, server, plan, args))
    await asyncio.gather(
        *(soak.client(n, "work") for n in range(args.clients)),
        *(soak.client(n, "flood") for n in range(args.flood_clients)),
    )
    await fault_task


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=10, help="the working tenant's")
    parser.add_argument("--flood-clients", type=int, default=30, help="the flooding tenant's")
    parser.add_argument("--streams", type=int, default=50)
    parser.add_argument("--faults", default="pause,kill", help="in order, spread evenly")
    parser.add_argument("--pause-for", type=float, default=10.0, help="seconds, SIGSTOP")
    parser.add_argument("--down-for", type=float, default=5.0, help="seconds killed")
    parser.add_argument("--slack", type=float, default=1.0, help="seconds over the bound")
    parser.add_argument("--out", default=str(RESULTS / "outage_soak.json"))
    parser.add_argument("--server-log")
    args = parser.parse_args()
    kinds = [kind for kind in args.faults.split(",") if kind]
    if set(kinds) - {"pause", "kill"}:
        raise SystemExit("--faults: a list of pause and kill, e.g. pause,kill")
    seconds = args.minutes * 60
    plan = [Fault(kind, seconds * (i + 1) / (len(kinds) + 1)) for i, kind in enumerate(kinds)]

    settings = Settings.from_env()
    if not settings.uses_local_neo4j:
        raise SystemExit("outage_soak pauses the local Neo4j: unset NEO4J_URI")
    server = LocalNeo4j(settings)
    scope = f"bench-soak-{uuid.uuid4().hex[:8]}"
    port = free_port()
    proc = start_server(port, args.server_log, "--log-level", "info")
    url = f"http://127.0.0.1:{port}"
    socks: list[socket.socket] = []
    began = time.monotonic()
    try:
        warm_up(url, scope)
        socks, stream_statuses = open_streams(url, args.streams)
        soak = Soak(url, scope, time.monotonic() + seconds)
        asyncio.run(run(soak, server, plan, args))
        metrics_page = httpx.get(f"{url}/metrics", timeout=30).text
        streams_open = next(
            (
                float(line.split()[1])
                for line in metrics_page.splitlines()
                if line.startswith("factgraph_streams_open ")
            ),
            None,
        )
    finally:
        for sock in socks:
            sock.close()
        os.killpg(proc.pid, signal.SIGTERM)
        try:  # uvicorn waits for requests in progress: on a cold, restarted Neo4j, many seconds
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
    summary, broken = summarise(soak, settings, args, plan, stream_statuses)
    summary["wall_seconds"] = round(time.monotonic() - began, 1)
    summary["streams_open_at_end"] = streams_open
    summary["broken"] = broken
    text = json.dumps(summary, indent=2)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n")
    drop_scope(scope)
    drop_scope(f"{scope}-flood")
    for reason in broken:
        print(f"broken: {reason}", file=sys.stderr)
    print("FAIL" if broken else "PASS", file=sys.stderr)
    return 1 if broken else 0


def summarise(
    soak: Soak,
    settings: Settings,
    args: argparse.Namespace,
    plan: list[Fault],
    stream_statuses: Counter[int],
) -> tuple[dict[str, Any], list[str]]:
    bound = settings.db_timeout + args.slack
    broken: list[str] = []
    answers = sorted(soak.answers, key=_sent)
    outside = [a for a in answers if not any(f.began <= a.sent < f.ended for f in plan)]
    bad_5xx = [
        a
        for a in answers
        if a.status >= 500
        and not (
            a.status == 503 and a.retry_after and a.code in ("OVERLOADED", "DATABASE_UNAVAILABLE")
        )
    ]
    lost: int | None
    half_written: int | None
    try:
        lost, half_written = check_store(settings, soak)
    except DatabaseUnavailable as exc:  # a summary still, and a broken promise
        lost = half_written = None
        broken.append(f"the store could not be read afterwards: {exc}")
    faults = []
    for fault in plan:
        during = [a for a in answers if fault.began <= a.sent < fault.ended]
        # A refusal must be fast; a success once Neo4j is back may be slow (a restarted server
        # is cold), and is not what the bound is about.
        refusals = [a.took for a in during if a.status != 200]
        after = [a for a in answers if a.sent >= fault.ended and a.status == 200]
        first_200 = round(after[0].sent - fault.ended, 2) if after else None
        slowest = max(refusals, default=0.0)
        faults.append(
            {
                "kind": fault.kind,
                "at_s": round(fault.at, 1),
                "seconds": round(fault.ended - fault.began, 1),
                "answers": len(during),
                "codes": dict(Counter(f"{a.status} {a.code}".strip() for a in during)),
                "refusal_ms": latency_row(refusals),
                "first_200_after_s": first_200,
            }
        )
        if slowest > bound:
            broken.append(f"{fault.kind}: a refusal took {slowest:.1f} s > {bound:.1f} s")
        if first_200 is None:
            broken.append(f"{fault.kind}: no request succeeded after it: no recovery")
    summary: dict[str, Any] = {
        "minutes": args.minutes,
        "clients": {"work": args.clients, "flood": args.flood_clients},
        "streams": dict(stream_statuses),
        "requests": len(answers),
        "statuses": {
            tenant: dict(
                Counter(f"{a.status} {a.code}".strip() for a in answers if a.tenant == tenant)
            )
            for tenant in ("work", "flood")
        },
        "faults": faults,
        "answer_bound_s": bound,
        "latency_ms_outside_faults": {
            tenant: latency_row([a.took for a in outside if a.tenant == tenant and a.status == 200])
            for tenant in ("work", "flood")
        },
        # Not a promise of issue 64 (a slow Neo4j is not an absent one), but what a client met:
        # answers slower than the bound, sent while Neo4j was there (a restarted one is cold).
        "answers_over_bound_outside_faults": sum(1 for a in outside if a.took > bound),
        "slowest_answer_outside_faults_s": round(max((a.took for a in outside), default=0.0), 1),
        "transport_errors": dict(soak.transport_errors),
        "other_5xx": len(bad_5xx),
        "writes_acknowledged": len(soak.acked),
        "acknowledged_writes_lost": lost,
        "half_written_facts": half_written,
    }
    if soak.transport_errors:
        broken.append(f"{sum(soak.transport_errors.values())} request(s) got no answer")
    if bad_5xx:
        broken.append(f"{len(bad_5xx)} 5xx without Retry-After and a known code")
    if lost:
        broken.append(f"{lost} acknowledged write(s) missing")
    if half_written:
        broken.append(f"{half_written} half-written fact(s)")
    if set(stream_statuses) != {200}:
        broken.append(f"streams refused: {dict(stream_statuses)}")
    return summary, broken


def check_store(settings: Settings, soak: Soak) -> tuple[int, int]:
    """Acknowledged writes missing, and facts the soak sent stored without their embedding or
    their subject's entity, read from Neo4j itself (once it answers: a restarted Neo4j on a
    loaded machine was measured answering nothing for a minute after it started)."""
    db = Database(settings.with_overrides(db_timeout=30.0))
    try:
        deadline = time.monotonic() + 300
        while True:
            try:
                db.read("health_ping")
                break
            except DatabaseUnavailable:
                if time.monotonic() > deadline:
                    raise
                time.sleep(2)
        present = sum(
            1
            for fact_id, text in soak.acked.items()
            if (rows := db.read("fact_get", {"scope": soak.scope, "id": fact_id})
                or db.read("fact_get", {"scope": f"{soak.scope}-flood", "id": fact_id}))
            and rows[0]["fact"]["text"] == text
        )  # fmt: skip
        records, _, _ = db.driver.execute_query(
            "MATCH (f:Fact) WHERE f.scope IN $scopes "
            "RETURN f.text AS text, f.embedding IS NOT NULL "
            "AND EXISTS { (f)--(:Entity) } AS whole",
            scopes=[soak.scope, f"{soak.scope}-flood"],
            database_=db.name,
        )
    finally:
        db.close()
    half = sum(1 for r in records if r["text"] in soak.sent_texts and not r["whole"])
    return len(soak.acked) - present, half


def _sent(answer: Answer) -> float:
    return answer.sent


if __name__ == "__main__":
    sys.exit(main())
