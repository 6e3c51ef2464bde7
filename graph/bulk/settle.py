"""After a bulk load, let Lucene merge the vector index's small segments before anyone searches.

Each import transaction leaves a small segment in the vector index (about 50 at 100,000 facts).
Lucene picks merges only when a segment is written, and the import's last merges are still
running when it ends, so the small segments stay until some later write: until then every
vector query searches all of them (p50 11.2 ms with 54 segments, 5.0 ms with 16; bench/README.md
"Lucene segments after a bulk import"). A write right at the end does not help; one after the
merges have finished does. Neo4j offers no force-merge, so this waits for the index's files to
stop changing (the merges are done), then writes and deletes one probe vector (so Lucene looks
for merges again), and repeats until a probe starts no merge: the index is then as merged as a
live service's writes would leave it. The vectors are split over sixteen shard indexes
(graph/vector_shards.py); each shard that holds facts is watched and probed.

The files are watched on the project's own Neo4j only. A server named by NEO4J_URI gets probes
at fixed intervals instead, for as long as a 100,000-fact import's merges take here.
"""

from __future__ import annotations

import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from graph import vector_shards
from graph.config import Settings
from graph.db import Database

PROBE_SCOPE = "__factgraph_settle__"
QUIET_SECONDS = 5.0
MERGE_BYTES = 256 * 1024  # more than a probe's own segment: a merge ran
BLIND_PROBES = (20.0, 40.0, 60.0)  # seconds after the import, for a server we cannot watch


@dataclass(frozen=True)
class Settled:
    segments_before: int | None
    segments_after: int | None
    probes: int
    seconds: float

    def render(self) -> str:
        if self.segments_before is None:
            return f"vector index: {self.probes} probe writes in {self.seconds:.0f}s"
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
    base = settings.local.home / "data" / "databases" / db.name / "schema" / "index" / "vector-2.0"
    folders = [
        base / str(record["id"])
        for record in db.read("vector_index_names")
        if record["name"] in wanted
    ]
    return [folder for folder in folders if folder.is_dir()] or None


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


def _segments(files: dict[str, int]) -> int:
    return sum(1 for name in files if name.endswith(".si"))


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


def settle_vector_index(
    db: Database,
    settings: Settings,
    dimensions: int,
    *,
    timeout: float = 600.0,
    progress: bool = True,
) -> Settled:
    started = time.monotonic()
    labels = shards_in_use(db)
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
    first, base, probes = _segments(last), last, 0
    quiet_since = time.monotonic()
    while time.monotonic() - started < timeout:
        time.sleep(1.0)
        now = _files(folders)
        elapsed = time.monotonic() - started
        if now != last:
            last, quiet_since = now, time.monotonic()
            say(f"vector index: merging segments ({elapsed:.0f}s)")
            continue
        if time.monotonic() - quiet_since < QUIET_SECONDS:
            continue
        if probes and _written(base, now) < MERGE_BYTES:
            break  # the last probe started no merge: as merged as writes will make it
        _probe(db, dimensions, labels)
        probes += 1
        base = last = _files(folders)
        quiet_since = time.monotonic()
        say(f"vector index: probe write {probes} ({elapsed:.0f}s)")
    if progress:
        print(file=sys.stderr)
    return Settled(first, _segments(_files(folders)), probes, time.monotonic() - started)
