"""How much memory the local Neo4j gets: heap and page cache sized from the machine.

A fixed 1g heap and 512m page cache suit a first test run and leave a million-fact store paging:
at 1,000,000 facts the store files and native indexes the page cache serves are several GB.
Neo4j takes page cache memory as pages are first read or written, not at start-up (a server
configured for 8g on a 200 MiB store maps no more than its heap and the pages it touched), so
a cache larger than the store costs nothing until the store grows into it. The page cache is
therefore set to its ceiling from the first start, so a store that grows by an import keeps
fitting without a restart; the ceiling leaves the rest of the machine to what does not live in
it: the full-text and vector indexes are Lucene files read through the operating system's file
cache, and the service process holds the embedding model. FACTGRAPH_NEO4J_HEAP /
FACTGRAPH_NEO4J_PAGECACHE set to a size (for example `2g`) override either value; `auto` (the
default) keeps this rule.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

AUTO = "auto"
MIB = 1024 * 1024
GIB = 1024 * MIB
# Index providers whose files Lucene reads through the OS file cache, not Neo4j's page cache.
LUCENE_PROVIDERS = ("fulltext", "vector", "text")
PAGECACHE_MIN = 512 * MIB
# Shares of the machine's memory: the page cache's ceiling, and the heap's (between HEAP_MIN and
# HEAP_MAX). What is left is for Lucene's file cache, the service and the operating system.
PAGECACHE_SHARE = 0.35
HEAP_SHARE = 0.125
HEAP_MIN = 1 * GIB
HEAP_MAX = 8 * GIB


@dataclass(frozen=True)
class MemoryPlan:
    heap: str
    pagecache: str
    store_bytes: int
    machine_bytes: int

    def describe(self) -> str:
        return (
            f"heap {self.heap}, page cache {self.pagecache} (store {_human(self.store_bytes)}, "
            f"machine {_human(self.machine_bytes)})"
        )


def machine_memory() -> int:
    """Physical memory, or the cgroup's limit when the process runs under a smaller one."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    for limit_file in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            raw = Path(limit_file).read_text().strip()
        except OSError:
            continue
        if raw.isdigit() and 0 < int(raw) < total:
            return int(raw)
    return int(total)


def page_cached_bytes(database_dir: Path) -> int:
    """Bytes of a database folder that Neo4j reads through its page cache.

    Store files and native indexes (range, token lookup, point); Lucene-backed index folders
    under schema/index are left out (see LUCENE_PROVIDERS).
    """
    if not database_dir.is_dir():
        return 0
    index_root = database_dir / "schema" / "index"
    total = 0
    for root, dirs, files in os.walk(database_dir):
        here = Path(root)
        if here == index_root:
            dirs[:] = [d for d in dirs if not d.startswith(LUCENE_PROVIDERS)]
        for name in files:
            try:
                total += (here / name).stat().st_size
            except OSError:
                continue  # a file Neo4j removed while we counted
    return total


def plan(
    store_bytes: int, machine_bytes: int, *, heap: str = AUTO, pagecache: str = AUTO
) -> MemoryPlan:
    """Heap and page cache for a store of `store_bytes` on a machine of `machine_bytes`."""
    if heap == AUTO:
        chosen_heap = min(HEAP_MAX, max(HEAP_MIN, int(machine_bytes * HEAP_SHARE)))
        heap = _size(_round_down(chosen_heap, 256 * MIB))
    if pagecache == AUTO:
        ceiling = max(PAGECACHE_MIN, int(machine_bytes * PAGECACHE_SHARE))
        pagecache = _size(_round_up(ceiling, 64 * MIB))
    return MemoryPlan(heap, pagecache, store_bytes, machine_bytes)


def size_bytes(value: str) -> int:
    """Bytes of a Neo4j size (`512m`, `3g`, `1024k`, or a plain byte count)."""
    value = value.strip().lower()
    units = {"k": 1024, "m": MIB, "g": GIB}
    if value and value[-1] in units:
        return int(value[:-1]) * units[value[-1]]
    return int(value)


def outgrown(running: str, planned: MemoryPlan) -> bool:
    """True when the store no longer fits the running page cache (a server started with a
    smaller rule, or on a machine since given more memory) and a restart would give it one at
    least a quarter larger."""
    cache = size_bytes(running)
    return planned.store_bytes > cache and size_bytes(planned.pagecache) > cache * 1.25


def _round_down(value: int, step: int) -> int:
    return max(step, value // step * step)


def _round_up(value: int, step: int) -> int:
    return -(-value // step) * step


def _size(value: int) -> str:
    """Neo4j's size syntax: whole gigabytes as `3g`, anything else in megabytes."""
    return f"{value // GIB}g" if value % GIB == 0 else f"{value // MIB}m"


def _human(value: int) -> str:
    return f"{value / GIB:.1f} GiB" if value >= GIB else f"{value / MIB:.0f} MiB"
