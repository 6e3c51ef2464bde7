"""What a mem0 search costs as its filter reaches more owners (users, agents, ...).

A mem0 search asks factgraph's search in every scope its filter reaches (graph/adapters/mem0/
reading.py), four at a time. This seeds a project of `--owners` users, each with two memories
tagged with one agent, and times the search by the user (one scope), by the agent (every
scope) and by the agent with `top_k` 1,000 (every scope, a page past 100 where a scope holds
more), through `Project` directly (no HTTP), each the median of `--repeat` runs. The project is
deleted afterwards. Not part of `make test`; takes under a minute at 100 owners.

    .venv/bin/python bench/mem0_wide_search.py
    .venv/bin/python bench/mem0_wide_search.py --owners 500
"""

from __future__ import annotations

import argparse
import statistics
import time
import uuid
from collections.abc import Callable

from graph.adapters.mem0 import Caller, Project, store
from graph.adapters.mem0.entities import EntityIds, namespace_prefix
from graph.adapters.mem0.filters import Filter, all_of, parse
from graph.adapters.mem0.writing import Message
from graph.memory import Memory


def median_ms(work: Callable[[], object], repeat: int) -> float:
    took = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        took.append(time.perf_counter() - start)
    return statistics.median(took) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--owners", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    memory = Memory.connect()
    name = f"bench-{uuid.uuid4().hex[:8]}"
    project = Project(memory, name, Caller(lambda scope, role: None))
    try:
        for i in range(args.owners):
            said = [
                Message("user", f"User {i} paints with watercolours on Sundays"),
                Message("user", f"User {i} keeps a cat called Tom{i}"),
            ]
            project.add(said, EntityIds(user=f"u{i}", agent="bot"), infer=False)

        def where(raw: dict[str, str]) -> Filter:
            return all_of([parse(raw)])

        one, every = where({"user_id": "u1"}), where({"agent_id": "bot"})
        rows: list[tuple[str, Callable[[], object]]] = [
            ("by the user (1 scope)", lambda: project.search("painting", one)),
            (f"by the agent ({args.owners} scopes)", lambda: project.search("painting", every)),
            (
                f"by the agent, top_k 1,000 ({args.owners} scopes)",
                lambda: project.search("painting", every, top_k=1_000),
            ),
        ]
        print("| search | median ms |\n|---|---|")
        for label, work in rows:
            work()  # warm: plans, the query's embedding
            print(f"| {label} | {median_ms(work, args.repeat):.0f} |")
    finally:
        for scope in store.project_scopes(memory.db, namespace_prefix(name)):
            memory.db.write("scope_delete", {"scope": scope})
        memory.close()


if __name__ == "__main__":
    main()
