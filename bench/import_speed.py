"""Facts per second for `factgraph import --fast` of N generated facts, and where the time goes.

Two runs into fresh scopes of the configured Neo4j, each deleted afterwards (in bounded
transactions, cypher/scope_delete_batched.cypher):

  supplied  every row carries its 384-number vector (random unit vectors: what matters for
            speed is the size of the data and the index work, not what the vectors mean)
  computed  no vectors in the file: the model embeds every fact's contextual index text

The importer's own timings say where the time went: parsing (a reader thread, overlapped),
embedding (main thread), Neo4j writes (a writer thread, overlapped with the next batch's
embedding) and the time the main thread spent waiting for Neo4j.

    .venv/bin/python bench/import_speed.py                  # 100,000 facts, both runs
    .venv/bin/python bench/import_speed.py --rows 5000 --skip-computed
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np

from graph.bulk.autocommit import delete_scope
from graph.bulk.importer import ImportOptions, ImportSummary, run_import
from graph.config import Settings
from graph.memory import Memory

NAMES = [
    f"{first} {last}"
    for first in ("Ana", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal")
    for last in ("Berg", "Lind", "Moss", "Reyes", "Sato", "Voss", "Wolfe", "Yoon")
]
VERBS = ["likes", "visited", "works on", "asked about", "bought", "recommended", "fixed", "wrote"]
THINGS = [
    "the garden",
    "a blue bicycle",
    "the Q3 report",
    "sourdough",
    "the Lisbon trip",
    "a jazz record",
    "the billing bug",
    "chess openings",
    "the new laptop",
    "a poem",
]


def generate(path: Path, rows: int, *, vectors: bool, dimensions: int = 384) -> None:
    rng = random.Random(42)
    vec_rng = np.random.default_rng(42)
    with path.open("w", encoding="utf-8") as out:
        for start in range(0, rows, 1000):
            count = min(1000, rows - start)
            block = vec_rng.standard_normal((count, dimensions)) if vectors else None
            if block is not None:
                block = np.round(block / np.linalg.norm(block, axis=1, keepdims=True), 6)
            for offset in range(count):
                i = start + offset
                name, verb, thing = rng.choice(NAMES), rng.choice(VERBS), rng.choice(THINGS)
                row: dict[str, Any] = {
                    "text": f"{name} {verb} {thing} (note {i})",
                    "subject": name,
                    "predicate": verb.replace(" ", "_"),
                    "object": thing,
                    "tags": [verb.split()[0], f"batch-{i % 20}"],
                    "importance": rng.randint(1, 10),
                    "session_id": f"session-{i // 50}",
                    "turn": i % 50,
                    "valid_from": f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}T12:00:00+00:00",
                }
                if block is not None:
                    row["embedding"] = block[offset].tolist()
                out.write(json.dumps(row) + "\n")


def measure(memory: Memory, path: Path, batch_size: int, label: str) -> dict[str, Any]:
    scope = f"bench-{label}-{uuid.uuid4().hex[:8]}"
    try:
        summary: ImportSummary = run_import(
            memory, ImportOptions(path=path, scope=scope, fast=True, batch_size=batch_size)
        )
    finally:
        started = time.perf_counter()
        delete_scope(memory.db, scope)
        deleted_in = time.perf_counter() - started
    return {
        "run": label,
        "rows": summary.records,
        "inserted": summary.inserted,
        "seconds": summary.seconds,
        "facts_per_second": round(summary.inserted / summary.seconds, 1),
        "timings": summary.timings,
        "scope_delete_seconds": round(deleted_in, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--batch-size", type=int, default=1000)
    parser.add_argument("--skip-computed", action="store_true")
    parser.add_argument("--skip-supplied", action="store_true")
    parser.add_argument("--workdir", type=Path, help="where to write the generated files")
    args = parser.parse_args()

    settings = Settings.from_env()
    memory = Memory.connect(settings)
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        for label, vectors, skip in (
            ("supplied", True, args.skip_supplied),
            ("computed", False, args.skip_computed),
        ):
            if skip:
                continue
            path = Path(tmp) / f"{label}.jsonl"
            started = time.perf_counter()
            generate(path, args.rows, vectors=vectors)
            print(
                f"generated {args.rows} rows ({path.stat().st_size / 1e6:.0f} MB) "
                f"in {time.perf_counter() - started:.0f}s",
                file=sys.stderr,
            )
            results.append(measure(memory, path, args.batch_size, label))
            print(json.dumps(results[-1]), file=sys.stderr)
    memory.close()

    print(f"\nimport --fast of {args.rows} facts, batch size {args.batch_size}")
    print(f"{'run':10} {'facts/s':>9} {'seconds':>9}  where the time went")
    for r in results:
        spent = ", ".join(f"{k} {v:.0f}s" for k, v in r["timings"].items() if v >= 0.5)
        print(f"{r['run']:10} {r['facts_per_second']:>9} {r['seconds']:>9.0f}  {spent}")
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
