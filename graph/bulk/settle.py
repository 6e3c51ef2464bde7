"""After a bulk load, let Lucene merge the vector index's small segments before anyone searches.

Each import transaction leaves a small segment in the vector index (about 75 at 100,000 facts).
Until they are merged every vector query searches all of them (p50 35 ms with 75 segments at
100,000 facts; bench/README.md "Lucene segments after a bulk import"). Neo4j offers no
force-merge, and its vector indexes merge late: measured on 5.26 (`bench/segments.py`), the
segments on disk stay as they are for 60-90 s after an import whatever is written meanwhile,
then a write starts the merge (35 -> 11 segments). A probe right after the import, or one when
the files have been quiet a few seconds, starts nothing; stopping there left 75 segments. So
this writes and deletes one probe vector every few seconds (a commit is what makes Lucene look
for merges) until a merge has been seen and the next probe starts no further one, or the
segments are already few, or no merge has started within MERGE_WAIT. The vectors are split
over sixteen shard indexes (graph/storage/vector_shards.py); the shards of the scopes the import
wrote
are watched and probed (each shard holding facts, when those are not known). Segments that
earlier writes left in other shards are not the import's: waiting for them kept a 10,000-fact
import into one scope probing until its merge wait ran out.

A quiet folder is not proof that no merge runs: merging segments of a large import rebuilds an
HNSW graph in memory for minutes before it writes a byte (300,000 facts: a Lucene merge thread
at one full core for 200 s while the shard's files did not change, after an earlier version of
this module had already reported the index merged). So the server's Lucene merge threads are
watched too (their CPU time, from /proc; any index's, as the thread names do not say which):
while one works, the index is not settled. A finished merge is searched only from the next
commit, which the probe after it makes (without one the call stayed at 36 ms, with it 13 ms).

The files are watched on the project's own Neo4j only. A server named by NEO4J_URI gets probes
at fixed intervals instead, for as long as a 100,000-fact import's merge takes to start here.
"""

from __future__ import annotations

import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from graph.config import Settings
from graph.platform.neo4j_local import LocalNeo4j
from graph.storage import vector_shards
from graph.storage.db import Database

PROBE_SCOPE = "__factgraph_settle__"
QUIET_SECONDS = 5.0  # no file changed for this long: no merge is running
PROBE_EVERY = 10.0  # seconds between probes while waiting for the merge to start
FEW_SEGMENTS = 12  # per shard index: too few for a merge to pay, nothing to wait for
# How long probes wait for the first merge. After `--fast` it started at 80-91 s in every run
# here. The larger segments index population leaves (`--initial`: 20 of ~10 MB at 100,000
# facts) were not merged within 300 s, so `--initial` does not wait (graph/bulk/initial.py).
MERGE_WAIT = 150.0
# ... but never longer than the import took, down to this: seeding 100 scopes of 10,000 facts
# (bench/latency.py --scopes 100), every import from the 32nd on, into shards that already held
# unmerged segments, waited the whole MERGE_WAIT for a merge that did not come (13 s of import,
# then 150 s of probes). A wait as long as the import at most doubles it, and a 100,000-fact
# import (about 120 s here) still waits long enough for the merge that starts 80-91 s after it.
MIN_MERGE_WAIT = 15.0
# How long settling may take in all: as long as the import, between these. The merges a
# million-fact import sets off run for minutes (see MergeThreads).
SETTLE_TIMEOUT = 300.0
MAX_SETTLE_TIMEOUT = 1800.0
MERGE_BYTES = 256 * 1024  # more than a probe's own segment: a merge ran
BLIND_PROBES = tuple(float(at) for at in range(15, 151, 15))  # seconds, a server we cannot watch


@dataclass(frozen=True)
class Settled:
    segments_before: int | None
    segments_after: int | None
    probes: int
    seconds: float
    merged: bool = True  # False: settle stopped (MERGE_WAIT or timeout) before Lucene merged
    merging: bool = False  # a Lucene merge was still running when settle stopped

    def render(self) -> str:
        if self.segments_before is None:
            return f"vector index: {self.probes} probe writes in {self.seconds:.0f}s"
        if self.merging:
            return (
                f"vector index: still merging after {self.seconds:.0f}s ({self.probes} probe "
                f"writes; {self.segments_after} segment files); Lucene goes on in the background"
            )
        if not self.merged:
            return (
                f"vector index: not merged after {self.seconds:.0f}s ({self.probes} probe writes; "
                f"{self.segments_after} segment files); the next writes will merge it"
            )
        return (
            f"vector index: merged in {self.seconds:.0f}s ({self.probes} probe writes; "
            f"segment files on disk {self.segments_before} -> {self.segments_after})"
        )


def shards_in_use(db: Database) -> list[str]:
    """The labels of the vector shards that hold facts (an import fills one per scope); every
    shard when none does, so that settling an empty store still finds and probes the indexes."""
    counts = db.read("vector_shard_counts")[0]["shards"]
    used = [label for label, n in zip(vector_shards.LABELS, counts, strict=True) if n]
    return used or list(vector_shards.LABELS)


def index_folders(db: Database, settings: Settings, labels: list[str]) -> list[Path] | None:
    """The Lucene folders of those shards' vector indexes on the local server, if this is one."""
    if not settings.uses_local_neo4j:
        return None
    wanted = {vector_shards.INDEXES[vector_shards.LABELS.index(label)] for label in labels}
    wanted.add(vector_shards.FILTERED_INDEX)  # Neo4j 2026.01+: the one index, no shards
    # The provider's folder: vector-2.0 on 5.26; the calendar versions may name a newer one.
    base = settings.local.home / "data" / "databases" / db.name / "schema" / "index"
    providers = sorted(base.glob("vector-*")) or [base / "vector-2.0"]
    folders = [
        provider / str(record["id"])
        for record in db.read("vector_index_names")
        if record["name"] in wanted
        for provider in providers
    ]
    return [folder for folder in folders if folder.is_dir()] or None


MERGE_THREAD = "Lucene Merge"  # Lucene's ConcurrentMergeScheduler names its threads so


class MergeThreads:
    """CPU time of the server's Lucene merge threads, from /proc: whether one worked since the
    last look. Linux only; elsewhere (or when the process is gone) it never reports work, and
    settling falls back to watching the files alone."""

    def __init__(self, pid: int | None, proc: Path = Path("/proc")) -> None:
        self.tasks = proc / str(pid) / "task" if pid is not None else None
        self.seen = self._times()

    def _times(self) -> dict[str, int]:
        out: dict[str, int] = {}
        if self.tasks is None:
            return out
        try:
            tasks = list(self.tasks.iterdir())
        except OSError:
            return out
        for task in tasks:
            try:
                if not (task / "comm").read_text().startswith(MERGE_THREAD):
                    continue
                fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue  # the thread ended while listed
            out[task.name] = int(fields[11]) + int(fields[12])  # utime + stime, in ticks
        return out

    def worked(self) -> bool:
        now = self._times()
        busy = any(ticks > self.seen.get(tid, 0) for tid, ticks in now.items())
        self.seen = now
        return busy


def _files(folders: list[Path]) -> dict[str, int]:
    out: dict[str, int] = {}
    for folder in folders:
        for path in folder.rglob("*"):
            try:
                if path.is_file():
                    out[str(path)] = path.stat().st_size
            except FileNotFoundError:  # deleted by a merge while listed
                continue
    return out


def merge_wait_after(import_seconds: float) -> float:
    """How long to wait for Lucene's first merge after an import that took `import_seconds`."""
    return min(MERGE_WAIT, max(MIN_MERGE_WAIT, import_seconds))


def timeout_after(import_seconds: float) -> float:
    """How long settling may take in all after an import that took `import_seconds`."""
    return min(MAX_SETTLE_TIMEOUT, max(SETTLE_TIMEOUT, import_seconds))


def _segments(files: dict[str, int]) -> int:
    return sum(1 for name in files if name.endswith(".si"))


def _most_segments(folders: list[Path], files: dict[str, int]) -> int:
    """The segment count of the shard index that holds the most: the one a search waits on."""
    return max(
        (_segments({n: 0 for n in files if n.startswith(f"{folder}/")}) for folder in folders),
        default=0,
    )


def _probe(db: Database, dimensions: int, labels: list[str]) -> None:
    """Write one vector per shard and delete them: a commit that makes Lucene choose merges."""
    vector = np.random.default_rng().standard_normal(dimensions)
    rows = [{"id": f"settle-{uuid.uuid4()}", "label": label} for label in labels]
    db.write(
        "vector_index_probe_create",
        {"rows": rows, "scope": PROBE_SCOPE, "vector": (vector / np.linalg.norm(vector)).tolist()},
    )
    db.write("vector_index_probe_delete", {"ids": [row["id"] for row in rows]})


def _written(since: dict[str, int], now: dict[str, int]) -> int:
    """Bytes written to the folder between two listings (a merge writes megabytes)."""
    return sum(max(0, size - since.get(name, 0)) for name, size in now.items())


def next_step(
    *,
    probes: int,
    stirred: bool,
    merged: bool,
    most_segments: int,
    since_probe: float,
    waited: float = 0.0,
    merge_wait: float = MERGE_WAIT,
) -> Literal["done", "probe", "wait"]:
    """What to do once the index files have been quiet for a while.

    `stirred`: the last probe made Lucene write (a merge ran); `merged`: the index has fewer
    segments than the import left. A quiet probe ends the wait only once a merge has been seen
    or the segments are too few to merge: before the merge starts every probe is quiet. Past
    `merge_wait` seconds (`waited`) without a merge, none is coming: the next writes will do it.
    """
    if probes and not stirred and (merged or most_segments <= FEW_SEGMENTS):
        return "done"
    if probes and not stirred and waited >= merge_wait:
        return "done"
    if stirred or not probes or since_probe >= PROBE_EVERY:
        return "probe"
    return "wait"


def settle_vector_index(
    db: Database,
    settings: Settings,
    dimensions: int,
    *,
    timeout: float = SETTLE_TIMEOUT,
    progress: bool = True,
    merge_wait: float = MERGE_WAIT,
    labels: list[str] | None = None,
) -> Settled:
    """`labels`: the shards to watch and probe (graph/storage/vector_shards.py LABELS); by
    default every
    shard that holds facts."""
    started = time.monotonic()
    labels = labels or shards_in_use(db)
    folders = index_folders(db, settings, labels)
    if folders is None:
        for at in BLIND_PROBES:
            time.sleep(max(0.0, at - (time.monotonic() - started)))
            _probe(db, dimensions, labels)
        return Settled(None, None, len(BLIND_PROBES), time.monotonic() - started)

    def say(message: str) -> None:
        if progress:
            print(f"\r{message:<78}", end="", file=sys.stderr, flush=True)

    last = _files(folders)
    threads = MergeThreads(LocalNeo4j(settings).pid())
    first, base, probes, merged, saw_merge = _segments(last), last, 0, False, False
    quiet_since = probed_at = time.monotonic()
    while time.monotonic() - started < timeout:
        time.sleep(1.0)
        now = _files(folders)
        elapsed = time.monotonic() - started
        working = threads.worked()
        saw_merge = saw_merge or working
        if now != last or working:
            last, quiet_since = now, time.monotonic()
            say(f"vector index: merging segments ({elapsed:.0f}s)")
            continue
        if time.monotonic() - quiet_since < QUIET_SECONDS:
            continue
        # A merge thread's work counts as a merge: the files of merged-away segments stay on
        # disk while readers hold them, so the count of segment files can even grow.
        merged = merged or saw_merge or _segments(now) < first
        stirred = probes > 0 and _written(base, now) >= MERGE_BYTES
        step = next_step(
            probes=probes,
            stirred=stirred,
            merged=merged,
            most_segments=_most_segments(folders, now),
            since_probe=time.monotonic() - probed_at,
            waited=elapsed,
            merge_wait=merge_wait,
        )
        if step == "done":
            break
        if step == "wait":
            continue
        _probe(db, dimensions, labels)
        probes += 1
        base = last = _files(folders)
        quiet_since = probed_at = time.monotonic()
        state = "merging" if merged or stirred else "waiting for Lucene to merge"
        say(f"vector index: {state}, probe write {probes} ({elapsed:.0f}s)")
    if progress:
        print(file=sys.stderr)
    after = _files(folders)
    merging = threads.worked()
    done = (merged or saw_merge or _most_segments(folders, after) <= FEW_SEGMENTS) and not merging
    return Settled(first, _segments(after), probes, time.monotonic() - started, done, merging)
