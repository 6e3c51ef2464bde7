"""Facts per second for `factgraph import --fast` of N generated facts, against Neo4j's own floor.

Runs into fresh scopes of the configured Neo4j, each deleted afterwards (in bounded
transactions, cypher/scope_delete_batched.cypher):

  floor     Neo4j's own speed for the same rows: the importer's property maps (vector included),
            batch by batch, as a bare `UNWIND $rows AS row CREATE (f:BenchFloorFact) SET f =
            row.props` under a label with nothing but the same vector index
            (cypher/bench_import_floor*.cypher). Only the transactions are timed; parsing is not.
            Measured right before and right after the importer, on the same machine state: the
            machine is shared, so the ratio of the two, not either figure, is the result.
  supplied  every row carries its 384-number vector (random unit vectors: what matters for
            speed is the size of the data and the index work, not what the vectors mean)
  ablation  the importer at --ablation-rows with its statements added one at a time (facts
            only, + entities, + tags, + audit, + passages = everything), beside a floor of the
            same size: what each of the extra writes costs
  computed  no vectors in the file: the model embeds every fact's contextual index text

The importer's own timings say where the time went: parsing (a reader thread, overlapped),
embedding (main thread), Neo4j writes (a writer thread, overlapped with the next batch's
embedding) and the time the main thread spent waiting for Neo4j.

    .venv/bin/python bench/import_speed.py --out bench/results/import     # 100,000 facts
    .venv/bin/python bench/import_speed.py --rows 5000 --ablation-rows 0 --computed-rows 0
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import socket
import sys
import tempfile
import time
import uuid
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from graph.bulk.autocommit import delete_scope, run_autocommit
from graph.bulk.importer import Importer, ImportOptions, ImportSummary, settle
from graph.bulk.initial import run_initial_import
from graph.bulk.rows import read_records
from graph.bulk.spec import FactRow
from graph.config import Settings
from graph.memory import Memory
from graph.platform.neo4j_local import LocalNeo4j
from graph.storage import cypher, vector_shards
from graph.storage.db import run
from graph.storage.wire import Rows

LADDER: list[tuple[str, tuple[str, ...]]] = [
    ("facts only", ()),
    ("+ entities", ("entities",)),
    ("+ tags", ("entities", "tags")),
    ("+ audit", ("entities", "tags", "audit")),
    ("+ passages (everything)", Importer.stages),
]

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


def measure(
    memory: Memory,
    path: Path,
    batch_size: int,
    label: str,
    stages: tuple[str, ...] = Importer.stages,
    *,
    settle_after: bool = False,
) -> dict[str, Any]:
    """One `import --fast` into a fresh scope (deleted afterwards), with the given statements.

    With `settle_after`, also what `run_import` does next (graph/bulk/settle.py), timed apart,
    with the vector index call's p50 before and after it.
    """
    scope = f"bench-{label.replace(' ', '')}-{uuid.uuid4().hex[:8]}"
    importer = Importer(
        memory, ImportOptions(path=path, scope=scope, fast=True, batch_size=batch_size)
    )
    importer.stages = stages
    vector_ms: dict[str, float] = {}
    try:
        summary: ImportSummary = importer.run()
        if settle_after:
            vector_ms["before merge"] = vector_p50(memory, scope)
            settle(memory, summary, progress=True, scopes=importer.scopes)
            vector_ms["after merge"] = vector_p50(memory, scope)
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
        **({"settled": summary.settled, "vector_p50_ms": vector_ms} if settle_after else {}),
    }


def vector_p50(memory: Memory, scope: str, queries: int = 200, k: int = 96) -> float:
    """Median time of the vector index call alone (random unit queries), in milliseconds."""
    rng = np.random.default_rng(7)
    times: list[float] = []
    for _ in range(queries):
        vector = rng.standard_normal(memory.embedder.dimensions)
        vector = (vector / np.linalg.norm(vector)).tolist()
        started = time.perf_counter()
        memory.db.read_fast(
            "bench_floor_vector",
            {"k": k, "vector": vector, "index": vector_shards.index(scope), "scope": scope},
        )
        times.append((time.perf_counter() - started) * 1000.0)
    return round(float(np.median(times)), 2)


def measure_floor(
    memory: Memory, path: Path, batch_size: int, *, cleanup: bool = True
) -> dict[str, Any]:
    """Neo4j's own rate for the importer's rows: bare CREATEs under a vector-indexed label.

    The rows are the importer's own property maps (`Importer._params`), so the nodes carry the
    same data; only the write transactions are timed.
    """
    db = memory.db
    run_autocommit(db, "bench_import_floor_index", {"dimensions": memory.embedder.dimensions})
    db.driver.execute_query(cypher.load("schema_await_indexes"), seconds=300, database_=db.name)
    importer = Importer(memory, ImportOptions(path=path, scope="bench-floor", fast=True))
    importer.dimensions = memory.embedder.dimensions
    now = memory.clock()
    writing = 0.0
    rows = 0
    started = time.perf_counter()

    def write(batch: list[dict[str, Any]]) -> float:
        begun = time.perf_counter()
        db.write_tx(lambda tx: run(tx, "bench_import_floor", rows=Rows(batch)), "bench floor")
        return time.perf_counter() - begun

    try:
        batch: list[dict[str, Any]] = []
        for raw in read_records(path, "jsonl"):
            row = importer._parse(raw)
            assert isinstance(row, FactRow), row
            params = importer._params(importer._prepare(row, now), row.vector or [], now)
            batch.append({"props": {**params["props"], **params["times"]}})
            if len(batch) >= batch_size:
                writing += write(batch)
                rows += len(batch)
                batch = []
        if batch:
            writing += write(batch)
            rows += len(batch)
        wall = time.perf_counter() - started
    finally:
        cleaning = time.perf_counter()
        # The index first: deleting 100,000 nodes from a live vector index took 3 minutes.
        run_autocommit(db, "bench_import_floor_drop_index")
        if cleanup:
            run_autocommit(db, "bench_import_floor_drop")
        deleted_in = time.perf_counter() - cleaning
    return {
        "run": "floor",
        "rows": rows,
        "write_seconds": round(writing, 1),
        "wall_seconds": round(wall, 1),
        "facts_per_second": round(rows / writing, 1),
        "delete_seconds": round(deleted_in, 1),
    }


def generated(tmp: Path, rows: int, *, vectors: bool) -> Path:
    """The generated file of this size in `tmp` (--workdir keeps files between runs)."""
    path = tmp / f"{'supplied' if vectors else 'computed'}-{rows}.jsonl"
    if not path.exists():
        started = time.perf_counter()
        generate(path, rows, vectors=vectors)
        print(
            f"generated {rows} rows ({path.stat().st_size / 1e6:.0f} MB) "
            f"in {time.perf_counter() - started:.0f}s",
            file=sys.stderr,
        )
    return path


def side_by_side(memory: Memory, path: Path, batch_size: int, label: str) -> dict[str, Any]:
    """Floor, importer, floor again: the importer's rate against the mean of the two floors."""
    before = measure_floor(memory, path, batch_size)
    print(json.dumps(before), file=sys.stderr)
    result = measure(memory, path, batch_size, label, settle_after=True)
    print(json.dumps(result), file=sys.stderr)
    after = measure_floor(memory, path, batch_size)
    print(json.dumps(after), file=sys.stderr)
    floor = round((before["facts_per_second"] + after["facts_per_second"]) / 2, 1)
    return {
        **result,
        "floor_facts_per_second": floor,
        "ratio_to_floor": round(result["facts_per_second"] / floor, 2),
        "floors": [before, after],
    }


def ablation(memory: Memory, path: Path, batch_size: int) -> list[dict[str, Any]]:
    floor = measure_floor(memory, path, batch_size)
    print(json.dumps(floor), file=sys.stderr)
    steps: list[dict[str, Any]] = []
    for label, stages in LADDER:
        step = measure(memory, path, batch_size, label, stages)
        step["ratio_to_floor"] = round(step["facts_per_second"] / floor["facts_per_second"], 2)
        print(json.dumps(step), file=sys.stderr)
        steps.append(step)
    return [floor, *steps]


def render(report: dict[str, Any]) -> str:
    lines = [
        f"# Import speed ({report['date']})",
        "",
        *sorted({f"- `{r['command']}`" for r in report["runs"] if r.get("command")}),
        "",
        f"Neo4j {report['neo4j']}, heap {report['heap']}, page cache {report['pagecache']}, "
        f"batch size {report['batch_size']}, on a shared 2-core machine: compare each rate with "
        "the floor measured beside it, not across runs.",
        "",
        "Rates are facts inserted per second of the whole command (for `initial`: parsing, CSV, "
        "neo4j-admin, restart, every index online and the vector index merged); the floor is "
        "Neo4j's own rate for the same rows (a bare `UNWIND ... CREATE` with the vector index), "
        "measured in the same run.",
        "",
        "| run | facts | facts/s | floor facts/s | ratio | where the time went |",
        "|---|---|---|---|---|---|",
    ]
    for r in report["runs"]:
        spent = ", ".join(f"{k} {v:.0f}s" for k, v in r["timings"].items() if v >= 0.5)
        floor = r.get("floor_facts_per_second") or "not measured"
        lines.append(
            f"| {r['run']} | {r['inserted']} | {r['facts_per_second']} | {floor} | "
            f"{r.get('ratio_to_floor') or ''} | {spent} |"
        )
    for r in report["runs"]:
        if r.get("settled") and r.get("vector_p50_ms"):
            p50 = r["vector_p50_ms"]
            lines += [
                "",
                f"After the {r['run']} import, run_import let Lucene merge the vector index "
                f"(graph/bulk/settle.py): {r['settled']}. Vector index call (k = 96, random "
                f"queries) p50 {p50['before merge']} ms right after the import, "
                f"{p50['after merge']} ms after the merge.",
            ]
        elif r.get("settled"):
            lines += ["", f"After the {r['run']} import: {r['settled']}."]
    if report.get("ablation"):
        floor, *steps = report["ablation"]
        lines += [
            "",
            f"Ablation at {floor['rows']} facts, embeddings supplied: the importer with its "
            f"statements added one at a time, against a floor of {floor['facts_per_second']} "
            "facts/s measured just before.",
            "",
            "| importer writes | facts/s | ratio to floor | tx statements (s) |",
            "|---|---|---|---|",
        ]
        for step in steps:
            tx = ", ".join(
                f"{k[4:]} {v:.1f}" for k, v in step["timings"].items() if k.startswith("tx: ")
            )
            lines.append(
                f"| {step['run']} | {step['facts_per_second']} | {step['ratio_to_floor']} | {tx} |"
            )
    return "\n".join(lines) + "\n"


def initial(settings: Settings, path: Path, batch_size: int, home: Path) -> dict[str, Any]:
    """`import --initial` end to end on a private, empty Neo4j, then the floor on that server.

    End to end: parsing, the CSV files, neo4j-admin, the restart, every index populated and
    online, and the vector index merged. The floor comes after, on the same server and rows.
    """
    local = replace(
        settings.local,
        home=home / "neo4j",
        bolt_port=free_port(),
        http_port=free_port(),
    )
    private = replace(settings, local=local, neo4j_uri=None)
    server = LocalNeo4j(private)
    try:
        summary = run_initial_import(private, ImportOptions(path=path, scope="bench-initial"))
        result: dict[str, Any] = {
            "run": "initial",
            "rows": summary.records,
            "inserted": summary.inserted,
            "seconds": summary.seconds,
            "facts_per_second": round(summary.inserted / summary.seconds, 1),
            "timings": summary.timings,
            "settled": summary.settled,
        }
        print(json.dumps(result), file=sys.stderr)
        with Memory.connect(private) as memory:
            floor = measure_floor(memory, path, batch_size, cleanup=False)  # server discarded
        print(json.dumps(floor), file=sys.stderr)
    finally:
        server.stop()
        shutil.rmtree(home / "neo4j", ignore_errors=True)
    return {
        **result,
        "floor_facts_per_second": floor["facts_per_second"],
        "ratio_to_floor": round(result["facts_per_second"] / floor["facts_per_second"], 2),
        "floors": [floor],
    }


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def merged(report: dict[str, Any], out: Path | None) -> dict[str, Any]:
    """This run's figures over those of earlier runs in OUT.json (runs of other sizes kept)."""
    if out is None or not out.with_suffix(".json").exists():
        return report
    earlier = json.loads(out.with_suffix(".json").read_text())
    fresh = {(r["run"], r["rows"]) for r in report["runs"]}
    runs = [
        {"command": earlier.get("command"), **r}
        for r in earlier.get("runs", [])
        if (r["run"], r["rows"]) not in fresh
    ]
    return {
        **report,
        "runs": sorted([*runs, *report["runs"]], key=lambda r: (r["rows"], r["run"])),
        "ablation": report.get("ablation") or earlier.get("ablation"),
    }


def headline(report: dict[str, Any]) -> dict[str, Any]:
    """The report under its headline: the largest run with embeddings supplied and a floor.

    At a million facts both paths have one: the online `--fast` import heads the summary, as
    the path every user's import takes (`--initial` only loads an empty database).
    """
    with_vectors = [r for r in report["runs"] if r["run"] != "computed"]
    paired = [r for r in with_vectors if r.get("floor_facts_per_second")] or with_vectors
    largest = max(paired, key=lambda r: (r["inserted"], r["run"] == "supplied"))
    return {
        "facts": largest["inserted"],
        "facts_per_s": largest["facts_per_second"],
        "floor_facts_per_s": largest["floor_facts_per_second"],
        "ratio_to_floor": largest["ratio_to_floor"],
        "largest_run": largest["run"],
        **{k: v for k, v in report.items() if k not in HEADLINE},
    }


HEADLINE = ("facts", "facts_per_s", "floor_facts_per_s", "ratio_to_floor", "largest_run")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--batch-size", type=int, default=1000)
    parser.add_argument("--ablation-rows", type=int, default=20_000, help="0 to skip")
    parser.add_argument("--computed-rows", type=int, default=0, help="0 to skip (the model's rate)")
    parser.add_argument(
        "--initial",
        action="store_true",
        help="measure `import --initial` (on a private empty Neo4j) instead of --fast",
    )
    parser.add_argument(
        "--workdir", type=Path, help="where the generated files are kept (default: deleted)"
    )
    parser.add_argument("--out", type=Path, help="write OUT.json and OUT.md (merged with them)")
    args = parser.parse_args()

    settings = Settings.from_env()
    memory = Memory.connect(settings)
    command = "python bench/import_speed.py " + " ".join(sys.argv[1:])
    report: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "neo4j": memory.db.driver.execute_query(
            cypher.load("server_components"), database_="system"
        ).records[0]["v"],
        "heap": settings.local.heap,
        "pagecache": settings.local.pagecache,
        "batch_size": args.batch_size,
        "runs": [],
    }
    with tempfile.TemporaryDirectory(dir=args.workdir) as scratch:
        tmp = args.workdir or Path(scratch)
        supplied = generated(Path(tmp), args.rows, vectors=True)
        if args.initial:
            memory.close()
            report["runs"].append(initial(settings, supplied, args.batch_size, Path(scratch)))
            memory = Memory.connect(settings)
        else:
            report["runs"].append(side_by_side(memory, supplied, args.batch_size, "supplied"))
        report["runs"][-1]["command"] = command
        if args.ablation_rows and not args.initial:
            path = generated(Path(tmp), args.ablation_rows, vectors=True)
            report["ablation"] = ablation(memory, path, args.batch_size)
            report["ablation"][0]["command"] = command
        if args.computed_rows:
            path = generated(Path(tmp), args.computed_rows, vectors=False)
            report["runs"].append(measure(memory, path, args.batch_size, "computed"))
            report["runs"][-1]["command"] = command
            print(json.dumps(report["runs"][-1]), file=sys.stderr)
    memory.close()

    report = merged(report, args.out)
    summary = headline(report)
    print(render(report))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.with_suffix(".json").write_text(json.dumps(summary, indent=2) + "\n")
        args.out.with_suffix(".md").write_text(render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
