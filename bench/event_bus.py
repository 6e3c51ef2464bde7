"""What live subscribers cost a write: `EventBus.publish` with 0 to 1000 subscriptions.

Each write publishes one change after its transaction commits (graph/write/events.py). This times
that call alone, from a worker thread as in the service, with every subscription of the scope
either keeping up (a consumer on the event loop reads) or stalled (nobody reads: its queue is
full and every change is dropped and counted). A write's own time (tens of milliseconds:
embedding and a Neo4j transaction, bench/results/latency.md) is not included.

    .venv/bin/python bench/event_bus.py [--out bench/results/event_bus.md]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

from graph.write.events import Action, EventBus, FactChange

PUBLISHES = 2_000
ROUNDS = 5


def _change(n: int) -> FactChange:
    return FactChange(
        scope="bench",
        action=Action.REMEMBER,
        fact_id=f"fact-{n}",
        fact=None,
        decision="insert",
        matched_id=None,
        reason="new fact",
        actor="bench",
        at=datetime.now(UTC),
    )


async def _measure(subscribers: int, stalled: bool) -> float:
    """Median microseconds per publish over ROUNDS rounds of PUBLISHES publishes."""
    bus = EventBus(max_subscribers=max(subscribers, 1))
    subscriptions = [bus.subscribe("bench") for _ in range(subscribers)]
    stop = asyncio.Event()

    async def consume(subscription: object) -> None:
        assert hasattr(subscription, "next_event")
        while not stop.is_set():
            await subscription.next_event()

    consumers = [] if stalled else [asyncio.create_task(consume(s)) for s in subscriptions]
    changes = [_change(n) for n in range(PUBLISHES)]
    rounds: list[float] = []

    def publish_all() -> None:
        started = time.perf_counter()
        for change in changes:
            bus.publish(change)
        rounds.append((time.perf_counter() - started) / PUBLISHES * 1e6)

    for _ in range(ROUNDS):
        worker = threading.Thread(target=publish_all)
        worker.start()
        while worker.is_alive():  # keep the loop free for the consumers meanwhile
            await asyncio.sleep(0.001)
        worker.join()
    stop.set()
    for task in consumers:
        task.cancel()
    for subscription in subscriptions:
        subscription.close()
    return statistics.median(rounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    rows = ["| subscriptions of the scope | keeping up: µs per publish | stalled: µs per publish |",
            "|---:|---:|---:|"]  # fmt: skip
    for count in (0, 1, 10, 100, 1000):
        live = asyncio.run(_measure(count, stalled=False))
        stalled = asyncio.run(_measure(count, stalled=True))
        rows.append(f"| {count} | {live:.1f} | {stalled:.1f} |")
        print(rows[-1], flush=True)
    text = "\n".join(
        [
            "# EventBus.publish: what subscribers cost a write",
            "",
            f"`bench/event_bus.py`, {datetime.now(UTC):%Y-%m-%d}, Python "
            f"{platform.python_version()}, {PUBLISHES} publishes x {ROUNDS} rounds (median), "
            "from a worker thread; 'stalled': nobody reads, every queue is full. "
            f"Load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs "
            "(a shared machine: figures scale with it).",
            "",
            *rows,
            "",
        ]
    )
    if args.out:
        args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
