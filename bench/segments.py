"""When does Neo4j merge a vector index's segments after a bulk load, and what does it change?

graph/bulk/settle.py waits for that merge after every large import; this measures the behaviour
it relies on, on the project's own Neo4j, with nothing of factgraph's in the way: a scratch
label with only a vector index (384 dimensions, cosine, Neo4j's defaults), N transactions of
1,000 random unit vectors written the way the importer writes them
(`db.create.setNodeVectorProperty`), then one single-vector write every PROBE seconds. It
prints the index's segment files on disk after each step and the p50 of the vector index call
(k = 96) right after the load and at the end. The label and its index are dropped afterwards.

    .venv/bin/python bench/segments.py                  # 60 x 1,000 vectors, probes for 120 s
    .venv/bin/python bench/segments.py --tx 100 --probe 5 --for 180

Measured on Neo4j 5.26 (2 cores, 2026-11-26, two runs): 35 segments right after 60,000
vectors (p50 25-36 ms); probes every 10 s changed nothing for 80 s, then one started a merge
to 11 segments (p50 12-14 ms). With `internal.dbms.index.vector.standard_merge_factor=10` in
neo4j.conf the load itself merged (13 segments at its end, 6 after the first probe) but took
48 s instead of 35 s, so the project keeps Neo4j's default and settles after the import.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

from graph.bulk.autocommit import run_autocommit
from graph.config import Settings
from graph.storage import cypher
from graph.storage.db import Database

DIMENSIONS = 384


def folder_of(db: Database, settings: Settings) -> Path:
    index_id = db.read("bench_segments_folder")[0]["id"]
    base = settings.local.home / "data" / "databases" / db.name / "schema" / "index"
    return base / "vector-2.0" / str(index_id)


def segments(folder: Path) -> int:
    return sum(1 for _ in folder.rglob("*.si"))


def unit_vectors(rng: np.random.Generator, n: int) -> np.ndarray:
    m = rng.standard_normal((n, DIMENSIONS))
    unit: np.ndarray = m / np.linalg.norm(m, axis=1, keepdims=True)
    return unit


def vector_call_p50(db: Database, rng: np.random.Generator, calls: int = 50) -> float:
    times = []
    for vector in unit_vectors(rng, calls):
        started = time.perf_counter()
        db.read("bench_segments_query", {"k": 96, "vector": vector.tolist()})
        times.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(times), 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--tx", type=int, default=60, help="transactions of 1,000 vectors")
    parser.add_argument("--probe", type=float, default=10.0, help="seconds between probe writes")
    parser.add_argument("--for", dest="seconds", type=float, default=120.0, help="probe this long")
    args = parser.parse_args()

    settings = Settings.from_env()
    if not settings.uses_local_neo4j:
        raise SystemExit("bench/segments.py reads the index files: run it on the local Neo4j")
    db = Database(settings)
    rng = np.random.default_rng(1)
    db.write("bench_segments_index", {"dimensions": DIMENSIONS})
    db.driver.execute_query(cypher.load("schema_await_indexes"), seconds=300, database_=db.name)
    folder = folder_of(db, settings)
    try:
        started = time.monotonic()
        for tx in range(args.tx):
            vectors = unit_vectors(rng, 1000)
            rows = [{"i": tx * 1000 + j, "vector": v.tolist()} for j, v in enumerate(vectors)]
            db.write("bench_segments_write", {"rows": rows})
            if (tx + 1) % 10 == 0:
                took = time.monotonic() - started
                print(f"load: {tx + 1} transactions, {segments(folder)} segments ({took:.0f}s)")
        p50 = vector_call_p50(db, rng)
        print(f"after the load: {segments(folder)} segments, vector call p50 {p50} ms")
        loaded = time.monotonic()
        while time.monotonic() - loaded < args.seconds:
            time.sleep(args.probe)
            before = segments(folder)
            probe = [{"i": -1, "vector": unit_vectors(rng, 1)[0].tolist()}]
            db.write("bench_segments_write", {"rows": probe})
            time.sleep(1.0)
            took = time.monotonic() - loaded
            print(f"+{took:.0f}s probe: {before} -> {segments(folder)} segments")
        time.sleep(5.0)
        p50 = vector_call_p50(db, rng)
        print(f"at the end: {segments(folder)} segments, vector call p50 {p50} ms")
    finally:
        run_autocommit(db, "bench_segments_drop")
        db.write("bench_segments_drop_index")
        db.close()


if __name__ == "__main__":
    main()
