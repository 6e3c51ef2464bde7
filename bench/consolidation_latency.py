"""Search latency with the background consolidator working a backlog, and without it.

    .venv/bin/python bench/consolidation_latency.py                  # 3,000 facts, 12 blocks
    .venv/bin/python bench/consolidation_latency.py --facts 10000 --blocks 20

A scope is seeded with the fast importer (turns that say "yesterday", "last week", name other
people: work for every enricher), then hybrid searches (never the same query twice, so the
query cache never helps) are timed through the Python API in alternating blocks: the worker
stopped; the worker running as `factgraph serve` runs it (FACTGRAPH_CONSOLIDATE_CPU_SHARE, a
quarter of a core by default); and the worker unbounded (share 1). The worker runs in the same
process as the searches, as it does in `serve`, so it competes for the GIL, the model and
Neo4j as it would there. The scope is queued again whenever the worker has emptied it, so it
always has a backlog. Alternating blocks pair each condition with the same machine state; the
machine is shared, so the figures are relative. Results go to bench/results/consolidation.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import statistics
import tempfile
import time
import uuid
from pathlib import Path

from graph.bulk.autocommit import delete_scope
from graph.bulk.importer import ImportOptions, run_import
from graph.config import Settings
from graph.consolidation import BackgroundConsolidator, Consolidator
from graph.memory import Memory

RESULTS = Path(__file__).resolve().parent / "results" / "consolidation.md"
PEOPLE = ["Caroline", "Melanie", "Jon", "Gina", "Audrey", "Andrew", "Maria", "John", "Tim"]
DOINGS = [
    "went hiking",
    "painted a sunset",
    "ran a charity race",
    "adopted a puppy",
    "visited the museum",
    "started a pottery class",
    "cooked dinner for friends",
    "read a novel about sailing",
    "fixed the old bicycle",
    "planted tomatoes",
]
WHEN = ["yesterday", "last week", "two days ago", "last Friday", "last month", "today", ""]


def seed(memory: Memory, scope: str, facts: int, rng: random.Random) -> None:
    rows = []
    for n in range(facts):
        who, other = rng.sample(PEOPLE, 2)
        text = f"{who}: I {rng.choice(DOINGS)} with {other} {rng.choice(WHEN)} (note {n})"
        rows.append(
            {
                "text": text.strip(),
                "subject": who,
                "session_id": str(n // 20),
                "turn": n % 20,
                "valid_from": f"2023-{1 + n % 12:02d}-{1 + n % 28:02d}T12:00:00+00:00",
            }
        )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "seed.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        run_import(memory, ImportOptions(path=path, scope=scope, fast=True, progress=False))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--facts", type=int, default=3000)
    parser.add_argument("--blocks", type=int, default=12, help="blocks per condition")
    parser.add_argument("--block-size", type=int, default=20, help="searches per block")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    settings = Settings.from_env()
    memory = Memory.connect(settings)
    scope = f"consolidation-bench-{uuid.uuid4().hex[:8]}"
    bounded = settings.consolidation
    conditions = {
        "worker off": None,
        f"worker on (cpu share {bounded.cpu_share:g}, the default)": bounded,
        "worker on, unbounded (cpu share 1)": dataclasses.replace(bounded, cpu_share=1.0),
    }
    times: dict[str, list[float]] = {name: [] for name in conditions}
    consolidated: dict[str, int] = dict.fromkeys(conditions, 0)
    busy_seconds: dict[str, float] = dict.fromkeys(conditions, 0.0)
    query_number = 0
    try:
        seed(memory, scope, args.facts, rng)
        memory.search(scope, "warm-up search", track_access=False)
        for _ in range(args.blocks):
            for name, config in conditions.items():
                worker = None
                if config is not None:
                    consolidator = Consolidator(memory, config)
                    if consolidator.status(scope).queued < args.facts // 2:
                        consolidator.requeue(scope)
                    worker = BackgroundConsolidator(consolidator)
                    worker.start()
                started = time.monotonic()
                for _ in range(args.block_size):
                    query_number += 1
                    who, doing = rng.choice(PEOPLE), rng.choice(DOINGS)
                    query = f"when did {who} {doing}? ({query_number})"
                    t0 = time.perf_counter()
                    memory.search(scope, query, track_access=False)
                    times[name].append((time.perf_counter() - t0) * 1000.0)
                if worker is not None:
                    worker.stop()
                    consolidated[name] += worker.state().facts
                    busy_seconds[name] += time.monotonic() - started
    finally:
        delete_scope(memory.db, scope)
        memory.close()

    lines = [
        "# Search latency with the consolidator working a backlog",
        "",
        f"`bench/consolidation_latency.py --facts {args.facts} --blocks {args.blocks} "
        f"--block-size {args.block_size}`: hybrid search through the Python API, "
        f"{args.blocks} alternating blocks of {args.block_size} searches per condition, one "
        "scope, the worker in the same process (as in `factgraph serve`) with a backlog all "
        f"along. Load average when it ended: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs "
        "(compare the rows with each other; figures scale with the machine's load).",
        "",
        "| condition | p50 ms | p95 ms | mean ms | facts consolidated / s of wall time |",
        "|---|---|---|---|---|",
    ]
    for name, values in times.items():
        ordered = sorted(values)
        p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
        rate = consolidated[name] / busy_seconds[name] if busy_seconds[name] else 0.0
        lines.append(
            f"| {name} | {statistics.median(ordered):.1f} | {p95:.1f} | "
            f"{statistics.fmean(ordered):.1f} | {rate:.1f} |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
