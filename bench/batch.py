"""Batch writes against the model's ceiling: remember_many, one-by-one remember, `import --fast`
and the bare model, all on the same LoCoMo turns, in one run.

The turns are the first --turns turns of the LoCoMo file (--data), each stored as LoCoMo is
stored everywhere in bench/ (bench/locomo.py turn_rows: "Speaker: text", subject, session,
turn, the session's date). The store first gets --background-facts facts of its own in another
scope (imported with random vectors: they make the database big, not the written scope), then:

  embedder     the bare model on the very texts remember_many embeds (the contextual index
               text with the model's document prefix): in input order in batches of 64 (how
               the code batched before issue 37), and shortest first at each of --sizes; the
               best rate is the ceiling the others are held to.
  batch        `Memory.remember_many`, full pipeline, into a fresh scope, in batches of each
               of --batches (100-1,000 facts).
  one_by_one   `Memory.remember_with_decision` per turn, full pipeline, into a fresh scope.
  import_fast  `factgraph import --fast` of the same turns (JSONL) into a fresh scope.

The decisions of the batch runs are checked against the one-by-one run's (kinds in order).
Every measured scope is deleted afterwards; the background scope too unless --keep.

    .venv/bin/python bench/batch.py                          # writes bench/results/batch.json
    .venv/bin/python bench/batch.py --background-facts 100000 --turns 700
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from bench.locomo import turn_rows
from graph.bulk.autocommit import delete_scope
from graph.bulk.importer import ImportOptions, run_import
from graph.config import Settings
from graph.memory import Memory
from graph.platform.embedding import length_order
from graph.platform.neo4j_local import LocalNeo4j
from graph.write.validation import fact_from_mapping

DATA = Path("/work/shared/data/locomo/locomo-dev.json")


def turns(path: Path, limit: int) -> list[dict[str, Any]]:
    samples = json.loads(path.read_text(encoding="utf-8"))
    rows: list[dict[str, Any]] = []
    for sample in samples:
        rows.extend(turn_rows(sample, captions=False))
        if len(rows) >= limit:
            break
    return rows[:limit]


def model_rate(memory: Memory, texts: list[str], size: int) -> tuple[float, float]:
    """Texts per second of the bare model on `texts` sorted by length, at `size` per run, and
    the CPU seconds it spent (all its threads)."""
    items = [memory.embedder.doc_prefix + t for t in texts]
    ordered = [items[i] for i in length_order(items)]
    cpu = os.times()
    start = time.perf_counter()
    for _ in memory.embedder._model.embed(ordered, batch_size=size):
        pass
    seconds = time.perf_counter() - start
    after = os.times()
    return len(ordered) / seconds, after.user + after.system - cpu.user - cpu.system


class CpuClock:
    """CPU seconds of this process (the model's threads included) and of the local Neo4j server
    while a run writes: what the run cost the machine, whatever the scheduling.

    The bare model keeps every core busy (1.9 of 2 here), so a run that spends C CPU seconds
    where the bare model spends M on the same texts cannot beat M / C of the model's rate,
    however well the model and the database overlap. CPU seconds, unlike wall time, hardly
    move with the machine's drift. Neo4j's share is read from /proc (Linux, the project's own
    server only; None otherwise), its background threads included: the writes cause them.
    """

    def __init__(self, settings: Settings) -> None:
        pid = LocalNeo4j(settings).pid() if settings.uses_local_neo4j else None
        self.stat = Path(f"/proc/{pid}/stat") if pid is not None else None
        self.python = self.neo4j = 0.0

    def _server(self) -> float | None:
        if self.stat is None:
            return None
        try:
            fields = self.stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def __enter__(self) -> CpuClock:
        times = os.times()
        self._python = times.user + times.system
        self._neo4j = self._server()
        return self

    def __exit__(self, *exc: object) -> None:
        times = os.times()
        self.python = times.user + times.system - self._python
        server = self._server()
        self.neo4j = server - self._neo4j if server is not None and self._neo4j is not None else 0.0

    def summary(self, model_cpu: float) -> dict[str, Any]:
        """The run's CPU beside the bare model's on the same texts, and the ratio to the model
        that no overlap of the model and the database could beat."""
        spent = self.python + self.neo4j
        return {
            "model_cpu_seconds": round(model_cpu, 2),
            "python_cpu_seconds": round(self.python, 2),
            "neo4j_cpu_seconds": round(self.neo4j, 2) if self.stat is not None else None,
            "cpu_ceiling_vs_model": round(model_cpu / spent, 2) if spent else None,
        }


def model_rates(memory: Memory, texts: list[str], sizes: list[int]) -> dict[str, Any]:
    """Texts per second of the bare model (its own `embed`, no factgraph code in the way)."""
    model = memory.embedder._model
    items = [memory.embedder.doc_prefix + t for t in texts]
    list(model.embed(items[:64], batch_size=16))  # warm the session

    def rate(ordered: list[str], size: int) -> float:
        start = time.perf_counter()
        for _ in model.embed(ordered, batch_size=size):
            pass
        return len(ordered) / (time.perf_counter() - start)

    out: dict[str, Any] = {"input_order_batch_64": round(rate(items, 64), 1)}
    ordered = [items[i] for i in length_order(items)]
    sorted_rates = {str(size): round(rate(ordered, size), 1) for size in sizes}
    out["sorted_by_batch_size"] = sorted_rates
    best = max(sorted_rates, key=lambda s: sorted_rates[s])
    out["best_batch_size"] = int(best)
    out["best"] = sorted_rates[best]
    return out


def fresh_scope(tag: str) -> str:
    return f"bench-batch-{tag}-{uuid.uuid4().hex[:8]}"


def background(memory: Memory, count: int, seed: int) -> str | None:
    """A scope of `count` facts with random unit vectors, imported fast (not measured)."""
    if count <= 0:
        return None
    scope = fresh_scope("background")
    rng = np.random.default_rng(seed)
    dims = memory.embedder.dimensions
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "background.jsonl"
        with path.open("w", encoding="utf-8") as out:
            for start in range(0, count, 10_000):
                block = rng.standard_normal((min(10_000, count - start), dims)).astype(np.float32)
                block /= np.linalg.norm(block, axis=1, keepdims=True)
                for offset, vector in enumerate(block):
                    i = start + offset
                    row = {
                        "text": f"Background fact {i} about topic {i % 997}",
                        "session_id": f"bg{i // 500}",
                        "turn": i % 500,
                        "embedding": vector.tolist(),
                    }
                    out.write(json.dumps(row) + "\n")
        run_import(
            memory,
            ImportOptions(
                path=path, scope=scope, fast=True, progress=False, batch_size=1_000, settle=False
            ),
        )
    return scope


class EmbedClock:
    """Time spent in `Embedder.embed` while a run writes: the model's share of the run."""

    def __init__(self, memory: Memory) -> None:
        self.embedder = memory.embedder
        self.plain = memory.embedder.embed
        self.seconds = 0.0

    def __enter__(self) -> EmbedClock:
        def timed(texts: Any, batch_size: int | None = None) -> list[list[float]]:
            start = time.perf_counter()
            try:
                return self.plain(texts, batch_size)
            finally:
                self.seconds += time.perf_counter() - start

        self.embedder.embed = timed  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        self.embedder.embed = self.plain  # type: ignore[method-assign]


def timed_batches(
    memory: Memory, rows: list[dict[str, Any]], size: int, texts: list[str], repeats: int
) -> dict[str, Any]:
    """remember_many runs, each with the bare model's rate measured right before it.

    The machine's speed drifts (the bare model alone moved between 260 and 370 texts/s within
    minutes on a quiet machine): the ratio of two figures taken together is steadier than
    either, and the median of `repeats` alternating pairs steadier than one pair.
    """
    runs: list[dict[str, Any]] = []
    for _ in range(repeats):
        model_before, model_cpu = model_rate(memory, texts, memory.embedder.batch_size)
        scope = fresh_scope(f"many{size}")
        kinds: list[str] = []
        try:
            with EmbedClock(memory) as clock, CpuClock(memory.settings) as cpu:
                start = time.perf_counter()
                for offset in range(0, len(rows), size):
                    chunk = rows[offset : offset + size]
                    decisions = memory.remember_many(scope, chunk, actor="bench")
                    kinds.extend(d.kind.value for d in decisions)
                elapsed = time.perf_counter() - start
        finally:
            delete_scope(memory.db, scope)
        rate = len(rows) / elapsed
        runs.append(
            {
                "seconds": round(elapsed, 2),
                "facts_per_s": round(rate, 1),
                "embed_seconds": round(clock.seconds, 2),
                "model_share": round(clock.seconds / elapsed, 2),
                "model_texts_per_s_just_before": round(model_before, 1),
                "vs_model_just_before": round(rate / model_before, 2),
                **cpu.summary(model_cpu),
                "kinds": kinds,
            }
        )
    median = sorted(runs, key=lambda run: run["vs_model_just_before"])[len(runs) // 2]
    return {
        "batch_size": size,
        **median,
        "runs": [{k: v for k, v in run.items() if k != "kinds"} for run in runs],
    }


def timed_one_by_one(memory: Memory, rows: list[dict[str, Any]]) -> dict[str, Any]:
    scope = fresh_scope("single")
    kinds: list[str] = []
    try:
        start = time.perf_counter()
        for row in rows:
            kinds.append(memory.remember_with_decision(scope, row, actor="bench").kind.value)
        elapsed = time.perf_counter() - start
    finally:
        delete_scope(memory.db, scope)
    return {
        "seconds": round(elapsed, 2),
        "facts_per_s": round(len(rows) / elapsed, 1),
        "kinds": kinds,
    }


def timed_import(memory: Memory, rows: list[dict[str, Any]]) -> dict[str, Any]:
    scope = fresh_scope("import")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "turns.jsonl"
            path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
            start = time.perf_counter()
            summary = run_import(
                memory,
                ImportOptions(
                    path=path, scope=scope, fast=True, progress=False, restart=True, settle=False
                ),
            )
            elapsed = time.perf_counter() - start
    finally:
        delete_scope(memory.db, scope)
    return {
        "seconds": round(elapsed, 2),
        "facts_per_s": round(len(rows) / elapsed, 1),
        "inserted": summary.inserted,
        "deduplicated": summary.deduplicated,
        "timings": summary.timings,
    }


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help=f"LoCoMo JSON (default {DATA})")
    parser.add_argument("--turns", type=int, default=700, help="turns written (default 700)")
    parser.add_argument(
        "--background-facts",
        type=int,
        default=10_000,
        help="facts in the store before the runs, in a scope of their own (default 10,000)",
    )
    parser.add_argument("--batches", default="100,350,700", help="remember_many batch sizes")
    parser.add_argument("--sizes", default="8,16,32,64,128", help="model batch sizes tried")
    parser.add_argument(
        "--repeats", type=int, default=3, help="alternating model / batch pairs per size"
    )
    parser.add_argument("--seed", type=int, default=37)
    parser.add_argument("--keep", action="store_true", help="keep the background scope")
    parser.add_argument("--out", type=Path, default=Path("bench/results/batch.json"))
    args = parser.parse_args(argv)
    if not args.data.is_file():
        parser.error(f"no LoCoMo file at {args.data} (give --data)")

    rows = turns(args.data, args.turns)
    settings = Settings.from_env()
    memory = Memory.connect(settings)
    try:
        started = load_average()
        bg = background(memory, args.background_facts, args.seed)
        print(f"background: {args.background_facts} facts", file=sys.stderr, flush=True)
        now = memory.clock()
        texts = [memory._index_text(fact_from_mapping(r), now) for r in rows]
        sizes = [int(s) for s in args.sizes.split(",")]
        model = model_rates(memory, texts, sizes)
        print(f"model: {json.dumps(model)}", file=sys.stderr)
        # Every write path embeds at the model's best batch size found here.
        memory.embedder.batch_size = model["best_batch_size"]
        tuned = memory
        one = timed_one_by_one(tuned, rows)
        print(f"one by one: {one['facts_per_s']} facts/s", file=sys.stderr)
        batches = [
            timed_batches(tuned, rows, int(size), texts, args.repeats)
            for size in args.batches.split(",")
        ]
        for run in batches:
            print(f"batch {run['batch_size']}: {run['facts_per_s']} facts/s", file=sys.stderr)
        imported = timed_import(tuned, rows)
        print(f"import --fast: {imported['facts_per_s']} facts/s", file=sys.stderr)
        ended = load_average()
        if bg is not None and not args.keep:
            delete_scope(memory.db, bg)
    finally:
        memory.close()

    same = all(run["kinds"] == one["kinds"] for run in batches)
    slowest = min(batches, key=lambda run: run["facts_per_s"])
    result: dict[str, Any] = {
        "facts": len(rows),
        "batch_facts_per_s": slowest["facts_per_s"],
        "embedder_texts_per_s": model["best"],
        "one_by_one_facts_per_s": one["facts_per_s"],
        "import_fast_facts_per_s": imported["facts_per_s"],
        "batch_vs_model": round(slowest["facts_per_s"] / model["best"], 2),
        "batch_vs_one_by_one": round(slowest["facts_per_s"] / one["facts_per_s"], 1),
        "batch_facts_per_s_is": "the slowest of the batch sizes (each the median of its runs)",
        "batch_vs_model_just_before": slowest["vs_model_just_before"],
        "decisions_equal_one_by_one": same,
        "decisions": dict(Counter(one["kinds"])),
        "batches": [{k: v for k, v in run.items() if k != "kinds"} for run in batches],
        "one_by_one": {k: v for k, v in one.items() if k != "kinds"},
        "import_fast": imported,
        "model": model,
        "background_facts": args.background_facts,
        "data": args.data.name,
        "model_name": settings.model_name,
        "load_average_before": started,
        "load_average_after": ended,
        "cpus": os.cpu_count(),
        "command": " ".join(["bench/batch.py", *(argv if argv is not None else sys.argv[1:])]),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: result[k] for k in list(result)[:9]}, indent=2))
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
