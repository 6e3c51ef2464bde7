"""Latency of lexical search and the timeline at 100,000 facts (p50 / p95, milliseconds).

Seeds a fresh scope of the configured Neo4j with N facts in batched UNWIND writes (no write
pipeline and no embeddings: neither read needs vectors), then times each read from Python
through `graph.browse`, the code the API and GraphQL call. The scope is deleted afterwards in
bounded transactions unless --keep is given.

Lexical needles by selectivity: `rare` (a ticket code: one fact), `name` (a person: about
1/64 of the facts, so newest-first must sort ~1,600 matches), `alias` (a nickname that is only
an entity alias: the entity side of the union), `common` (a verb in 1/8 of the facts: ~12,500
matches), `miss` (no match). Timeline: the first page, page 20 (cursor from page 19), a
session filter, a partition filter and a valid-time range.

    .venv/bin/python bench/browse.py                    # 100,000 facts
    .venv/bin/python bench/browse.py --facts 5000 --repeat 20
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from graph.browse import lexical, lexical_search, timeline
from graph.bulk.autocommit import delete_scope
from graph.config import Settings
from graph.platform.embedding import Embedder
from graph.storage.db import Database
from graph.storage.schema import apply_schema
from graph.storage.store import fact_properties, new_id
from graph.write.entities import normalise
from graph.write.facts import FactInput, FactStatus
from graph.write.indexing import content_hash, index_text, lexical_text

FIRST = ("Ana", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal")
LAST = ("Berg", "Lind", "Moss", "Reyes", "Sato", "Voss", "Wolfe", "Yoon")
NAMES = [f"{first} {last}" for first in FIRST for last in LAST]
VERBS = ["likes", "visited", "works on", "asked about", "bought", "recommended", "fixed", "wrote"]
THINGS = ["the garden", "a blue bicycle", "the Q3 report", "sourdough", "the Lisbon trip"]
T0 = datetime(2023, 1, 1, tzinfo=UTC)


def nickname(name: str) -> str:
    return name.split()[0].lower() + "zilla"


def seed(db: Database, scope: str, facts: int, batch: int) -> float:
    now = datetime.now(UTC)
    db.write(
        "browse_bench_entities",
        {
            "scope": scope,
            "now": now,
            "entities": [
                {"canonical": normalise(n), "name": n, "aliases": [nickname(n)]} for n in NAMES
            ],
        },
    )
    rng = random.Random(7)
    started = time.perf_counter()
    for start in range(0, facts, batch):
        rows: list[dict[str, Any]] = []
        for i in range(start, min(start + batch, facts)):
            name, verb, thing = rng.choice(NAMES), rng.choice(VERBS), rng.choice(THINGS)
            valid_from = T0 + timedelta(minutes=17 * i + rng.randint(0, 16))
            data = FactInput(
                text=f"{name} {verb} {thing} (ticket QX-{i})",
                subject=name,
                predicate=verb.replace(" ", "_"),
                object=thing,
                tags=(verb.split()[0],),
                partition=f"p{i % 4}",
                session_id=f"session-{i // 50}",
                turn=i % 50,
                valid_from=valid_from,
                recorded_at=now,
            )
            props = fact_properties(
                data,
                fact_id=new_id(),
                scope=scope,
                content_hash=content_hash(data.text),
                index_text=index_text(data, valid_from, "late-chunk"),
                lexical_text=lexical_text(data, [name]),
                subject_key=normalise(name),
                embedding=None,
                embedder=None,
                status=FactStatus.ACTIVE,
                now=now,
            )
            rows.append({"props": props, "canonical": normalise(name)})
        db.write("browse_bench_seed", {"scope": scope, "rows": rows})
        done = min(start + batch, facts)
        if done % (batch * 10) == 0 or done == facts:
            print(f"seeded {done} facts", file=sys.stderr)
    return time.perf_counter() - started


def timed(work: Callable[[], object], repeat: int) -> dict[str, float]:
    work()  # warm the plan cache and the page cache
    samples: list[float] = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        samples.append((time.perf_counter() - started) * 1000.0)
    samples.sort()
    return {
        "p50_ms": round(statistics.median(samples), 1),
        "p95_ms": round(samples[max(0, round(0.95 * len(samples)) - 1)], 1),
        "max_ms": round(samples[-1], 1),
    }


def cases(db: Database, scope: str, facts: int) -> dict[str, Callable[[], object]]:
    rng = random.Random(11)

    def lexical(pick: Callable[[], str]) -> Callable[[], object]:
        return lambda: lexical_search(db, scope, pick(), limit=10)

    def deep_page() -> object:
        after: str | None = None
        for _ in range(19):
            after = timeline(db, scope, first=10, after=after).end_cursor
        return after

    cursor = deep_page()
    assert isinstance(cursor, str)
    mid = T0 + timedelta(minutes=17 * facts // 2)
    return {
        "lexical rare": lexical(lambda: f"qx-{rng.randrange(facts // 10, facts // 10 * 10)}"),
        "lexical name": lexical(lambda: rng.choice(NAMES)),
        "lexical alias": lexical(lambda: nickname(rng.choice(NAMES))),
        "lexical common": lexical(lambda: rng.choice(VERBS)),
        "lexical miss": lexical(lambda: f"zz-{rng.randrange(10**6)}"),
        "timeline first page": lambda: timeline(db, scope),
        "timeline page 20": lambda: timeline(db, scope, after=cursor),
        "timeline session": lambda: timeline(
            db, scope, session_id=f"session-{rng.randrange(facts // 50)}"
        ),
        "timeline partition": lambda: timeline(db, scope, partition=f"p{rng.randrange(4)}"),
        "timeline range": lambda: timeline(
            db, scope, since=mid, until=mid + timedelta(days=rng.randint(1, 30))
        ),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=5_000)
    parser.add_argument("--repeat", type=int, default=100)
    parser.add_argument("--keep", action="store_true", help="leave the bench scope in Neo4j")
    parser.add_argument("--scope", help="reuse a scope seeded by an earlier --keep run")
    parser.add_argument("--sort-cap", type=int, help="override graph.browse.lexical.SORT_CAP")
    args = parser.parse_args()
    if args.sort_cap is not None:
        lexical.SORT_CAP = args.sort_cap

    settings = Settings.from_env()
    db = Database(settings)
    embedder = Embedder(settings)  # only for the vector index's dimension in the schema
    apply_schema(db, embedder.dimensions, embedder.id)
    scope = args.scope or f"bench-browse-{uuid.uuid4().hex[:8]}"
    results: dict[str, Any] = {
        "facts": args.facts,
        "scope": scope,
        "repeat": args.repeat,
        "sort_cap": lexical.SORT_CAP,
    }
    try:
        if not args.scope:
            results["seed_seconds"] = round(seed(db, scope, args.facts, args.batch), 1)
        for label, work in cases(db, scope, args.facts).items():
            results[label] = timed(work, args.repeat)
            print(f"{label:22} {results[label]}", file=sys.stderr)
    finally:
        if not args.keep:
            delete_scope(db, scope)
        db.close()
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
