"""`factgraph read-texts`: the reader (graph/reading/) applied to facts already stored.

Facts are read when written, on every write path. Facts written before factgraph read text, or
read by an older reader (`read_v` below graph.reading.VERSION), have no term links or stale
ones: this reads them again, in batches by id, and replaces their links (cypher/reading_link
removes a fact's earlier links first), so it can be stopped and run again; a second run reads
nothing (`--all` reads every fact again).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from tqdm import tqdm

from graph.clock import system_clock
from graph.reading import VERSION, read, terms
from graph.storage.db import Database
from graph.write.entities import EntityResolver


@dataclass
class ReadSummary:
    seen: int = 0
    read: int = 0
    mentions: int = 0

    def render(self) -> str:
        return (
            f"read-texts: {self.seen} facts seen, {self.read} read, "
            f"{self.mentions} term mentions linked"
        )


def read_texts(
    db: Database,
    resolver: EntityResolver,
    *,
    scopes: list[str] | None = None,
    batch_size: int = 500,
    every: bool = False,
    progress: bool = False,
) -> ReadSummary:
    """Link every stored fact of `scopes` (all when None) not read by this reader to the terms
    its text mentions; `every`: read every fact again."""
    summary = ReadSummary()
    after = ""
    version = -1 if every else VERSION
    with tqdm(unit=" facts", desc="read-texts", file=sys.stderr, disable=not progress) as bar:
        while True:
            records = db.read(
                "reading_batch",
                {"scopes": scopes, "after": after, "limit": batch_size, "version": version},
            )
            if not records:
                break
            rows = []
            for record in records:
                summary.seen += 1
                if not record["due"]:
                    continue
                reading = read(str(record["text"] or ""), record["subject"], with_standing=False)
                found = [term.row() for term in terms(reading, resolver)]
                rows.append({"id": record["id"], "terms": found})
                summary.mentions += len(found)
            if rows:
                db.write("reading_link", {"rows": rows, "version": VERSION, "now": system_clock()})
                summary.read += len(rows)
            after = str(records[-1]["id"])
            bar.update(len(records))
    return summary
