"""Fill Neo4j's page cache with what searches read, once, when the service starts.

After a host restart (the store's files no longer in the operating system's cache either),
every fact a search touches is read from disk: at 1,000,000 facts the first 400 searches took
p50 86-115 ms for the first 50, 56-58 ms for the next 150 and 38-41 ms after, against 64-68,
41-45 and 30-35 ms once this warm-up (26-31 s there) had read the store. Random queries take
hours to touch every page. Neo4j Enterprise warms its page cache itself on start; Community,
which the local server runs, does not. So `factgraph serve` reads the facts' properties, the id
and turn indexes and the tag and entity links once, on a background thread, while it already
answers (bench/README.md, "A warm page cache"). When the files are still in the operating
system's cache (Neo4j alone restarted) it changes nothing measurable, and costs 9-12 s of one
core at a million facts.

`FACTGRAPH_WARMUP`: `auto` (the default) warms only the local Neo4j factgraph manages, whose
page cache is sized to hold the store (graph/platform/neo4j_memory.py); a cluster or Aura sized by
someone else is left alone unless set to `on`. `off` never warms.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from neo4j.exceptions import DriverError, Neo4jError

from graph.config import Settings
from graph.errors import FactgraphError
from graph.storage.db import Database

log = logging.getLogger("factgraph.warmup")

# Each statement reads one part of the store; in this order, the facts first, since every
# search reads them.
STATEMENTS: tuple[tuple[str, str], ...] = (
    ("warmup_facts", "facts"),
    ("warmup_indexes", "ids"),
    ("warmup_links", "links"),
)


@dataclass(frozen=True)
class Warmup:
    facts: int
    ids: int  # entries read in the id and (scope, session, turn) indexes together
    links: int
    seconds: float

    def describe(self) -> str:
        return (
            f"page cache warmed: {self.facts:,} facts, {self.ids:,} index entries, "
            f"{self.links:,} links in {self.seconds:.1f}s"
        )


def enabled(settings: Settings) -> bool:
    """Whether start-up warms the page cache (FACTGRAPH_WARMUP, `auto`: the local server only)."""
    if settings.warmup == "auto":
        return settings.uses_local_neo4j
    return settings.warmup == "on"


def warm_page_cache(db: Database) -> Warmup:
    """Read the store's hot parts once; returns what was read. Reads only: safe at any time."""
    started = time.perf_counter()
    counts: dict[str, int] = {}
    for name, column in STATEMENTS:
        records = db.read(name)
        counts[column] = int(records[0][column]) if records else 0
    return Warmup(**counts, seconds=time.perf_counter() - started)


def warm_in_background(
    db: Database, *, done: Callable[[Warmup], None] | None = None
) -> threading.Thread:
    """Start the warm-up on a daemon thread: the service answers meanwhile.

    A failure (the server going away, the service shutting down mid-read) is logged, never
    raised: a cold cache is slower, not wrong.
    """

    def work() -> None:
        log.info("page cache warm-up started")
        try:
            report = warm_page_cache(db)
        except (FactgraphError, Neo4jError, DriverError, OSError) as exc:
            log.warning("page cache warm-up stopped: %s", exc)
            return
        log.info(report.describe(), extra={"warmup_seconds": round(report.seconds, 1)})
        if done is not None:
            done(report)

    thread = threading.Thread(target=work, name="factgraph-warmup", daemon=True)
    thread.start()
    return thread
