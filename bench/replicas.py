"""What running past one machine costs a single replica: bookmarks and write locks, paired.

Three paired measurements, interleaved in one run so a busy machine slows both sides alike:

- bookmarks: one auto-commit read (`Database.read_fast`, the search hot path) carrying the
  process's bookmarks, against the same read on a session without any;
- slot lock: the write context of a remember (cypher/fact_write_context.cypher) taking the
  subject / predicate lock in the same query, against the same query without it;
- one slot: `--writers` threads remembering values of one single-valued slot (they take turns
  on the lock), against as many threads each writing its own slot.

    .venv/bin/python bench/replicas.py --rounds 400 --writers 8 --uri neo4j://localhost:7707

Results: bench/results/replicas.md.
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import neo4j

from graph.config import Settings
from graph.memory import Memory
from graph.storage import cypher
from graph.storage.store import write_context


def summary(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[int(0.95 * (len(ordered) - 1))]
    return f"p50 {statistics.median(ordered) * 1000:.2f} ms, p95 {p95 * 1000:.2f} ms"


def timed(call: Callable[[], object]) -> float:
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def paired(
    rounds: int, a: Callable[[], object], b: Callable[[], object]
) -> tuple[list[float], list[float]]:
    first: list[float] = []
    second: list[float] = []
    for i in range(rounds):
        if i % 2:
            first.append(timed(a))
            second.append(timed(b))
        else:
            second.append(timed(b))
            first.append(timed(a))
    return first, second


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=400)
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--uri", help="NEO4J_URI to measure through (default: the settings')")
    args = parser.parse_args()
    settings = Settings.from_env()
    if args.uri:
        settings = settings.with_overrides(neo4j_uri=args.uri)
    memory = Memory.connect(settings)
    db = memory.db
    scope = f"bench-replicas-{uuid.uuid4().hex[:8]}"
    try:
        memory.remember(
            scope,
            {
                "text": "Jon lives in Oslo",
                "subject": "Jon",
                "predicate": "lives_in",
                "object": "Oslo",
            },
        )
        params = {"scope": scope}
        query = cypher.load("search_scope_share")

        def bare() -> object:
            with db.driver.session(database=db.name, default_access_mode=neo4j.READ_ACCESS) as s:
                return list(s.run(query, params))

        with_bm, without_bm = paired(
            args.rounds, lambda: db.read_fast("search_scope_share", params), bare
        )
        print(f"read with bookmarks:    {summary(with_bm)}")
        print(f"read without bookmarks: {summary(without_bm)}")

        def context(tx: neo4j.ManagedTransaction, lock: bool) -> object:
            return write_context(
                tx,
                scope=scope,
                content_hash="x",
                subject_key="jon",
                predicate_key="lives_in",
                lock_slot=lock,
            )

        locked, unlocked = paired(
            args.rounds,
            lambda: db.write_tx(lambda tx: context(tx, True)),
            lambda: db.write_tx(lambda tx: context(tx, False)),
        )
        print(f"write tx with slot lock:    {summary(locked)}")
        print(f"write tx without slot lock: {summary(unlocked)}")

        def writers(same_slot: bool) -> list[float]:
            barrier = threading.Barrier(args.writers)
            tag = uuid.uuid4().hex[:6]

            def one(i: int) -> float:
                subject = "Ana" if same_slot else f"Ana{tag}{i}"
                city = f"City{tag}{i}"
                barrier.wait()
                return timed(
                    lambda: memory.remember(
                        scope,
                        {
                            "text": f"{subject} lives in {city}",
                            "subject": subject,
                            "predicate": "lives_in",
                            "object": city,
                        },
                    )
                )

            with ThreadPoolExecutor(args.writers) as pool:
                return list(pool.map(one, range(args.writers)))

        same: list[float] = []
        own: list[float] = []
        for i in range(max(1, args.rounds // 40)):
            for flag in (True, False) if i % 2 else (False, True):
                (same if flag else own).extend(writers(flag))
        print(f"{args.writers} writers, one slot:   {summary(same)}")
        print(f"{args.writers} writers, own slots:  {summary(own)}")
    finally:
        db.write("scope_delete", {"scope": scope})
        memory.close()


if __name__ == "__main__":
    main()
