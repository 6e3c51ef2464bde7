"""Remember throughput: facts per second through `Memory.remember`, pipeline on and off.

Each run writes N generated facts (a reproducible mix from --seed: new facts, exact
duplicates, restatements, contradictions of single-valued predicates, and untrusted input)
into a fresh scope of the configured Neo4j, one call per fact as an agent would, with
--threads concurrent writers, then deletes the scope. It prints facts per second, the
latency percentiles of one remember call, and how many of each decision the pipeline made.
The model embeds every fact: that is part of what a remember costs.

    .venv/bin/python bench/remember.py                # 1,000 facts, pipeline on and off
    .venv/bin/python bench/remember.py --facts 200 --threads 4
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from graph.bulk.autocommit import delete_scope
from graph.config import Settings
from graph.memory import Memory

PEOPLE = ["Ana", "Bo", "Caroline", "Dev", "Elif", "Farid", "Greta", "Hiro", "Ines", "Jon"]
CITIES = ["Lisbon", "Oslo", "Tbilisi", "Quito", "Osaka", "Nairobi", "Lyon", "Perth"]
EMPLOYERS = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark", "Wayne", "Wonka"]
HOBBIES = ["chess", "climbing", "jazz piano", "pottery", "birdwatching", "sourdough", "salsa"]


def generate(n: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    facts: list[dict[str, Any]] = []
    for i in range(n):
        who = rng.choice(PEOPLE)
        roll = rng.random()
        if facts and roll < 0.1:
            facts.append(dict(rng.choice(facts)))  # exact duplicate
        elif roll < 0.35:
            city = rng.choice(CITIES)
            facts.append(
                {
                    "text": f"{who} lives in {city}",
                    "subject": who,
                    "predicate": "lives_in",
                    "object": city,
                }
            )
        elif roll < 0.55:
            firm = rng.choice(EMPLOYERS)
            facts.append(
                {
                    "text": f"{who} works at {firm}",
                    "subject": who,
                    "predicate": "works_at",
                    "object": firm,
                }
            )
        elif roll < 0.6:
            facts.append({"text": f"{who} said the meeting moved (note {i})", "source": "web"})
        else:
            hobby = rng.choice(HOBBIES)
            facts.append(
                {
                    "text": f"{who} spent day {i} on {hobby} with friends",
                    "subject": who,
                    "predicate": "likes",
                    "object": hobby,
                    "tags": [hobby.split()[0]],
                    "session_id": f"s{i // 20}",
                    "turn": i % 20,
                }
            )
    return facts


def run(memory: Memory, facts: list[dict[str, Any]], pipeline: bool, threads: int) -> None:
    scope = f"bench-remember-{uuid.uuid4().hex[:8]}"
    latencies: list[float] = []
    decisions: Counter[str] = Counter()

    def one(fact: dict[str, Any]) -> None:
        started = time.perf_counter()
        decision = memory.remember_with_decision(scope, fact, pipeline=pipeline)
        latencies.append(time.perf_counter() - started)
        decisions[decision.kind.value] += 1

    started = time.perf_counter()
    try:
        if threads == 1:
            for fact in facts:
                one(fact)
        else:
            with ThreadPoolExecutor(threads) as pool:
                list(pool.map(one, facts))
        elapsed = time.perf_counter() - started
    finally:
        delete_scope(memory.db, scope)
    ms = sorted(x * 1000 for x in latencies)
    label = "on " if pipeline else "off"
    print(
        f"pipeline {label} threads={threads}: {len(facts) / elapsed:7.1f} facts/s  "
        f"p50 {statistics.median(ms):6.1f} ms  p95 {ms[int(0.95 * (len(ms) - 1))]:6.1f} ms  "
        f"decisions {dict(sorted(decisions.items()))}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    facts = generate(args.facts, args.seed)
    with Memory.connect(Settings.from_env()) as memory:
        memory.embedder.embed_one("warm up the model")
        for pipeline in (True, False):
            run(memory, facts, pipeline, args.threads)


if __name__ == "__main__":
    main()
