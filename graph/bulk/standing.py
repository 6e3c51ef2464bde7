"""`factgraph mark-standing`: the standing-statement recogniser applied to facts already stored.

A fact is recognised as a standing instruction or preference when it is written
(graph/reading/standing.py). Facts written before a factgraph that knew how, or loaded by a
batch Cypher job that never ran it, carry no mark; and when the recogniser changes, marks
written under the old one are stale. This re-reads every fact's text (and its vector, for the
classifier) with today's recogniser and brings `standing` and the :Standing label to what they
say, in batches by id, so it can be
stopped and run again (a second run changes nothing). Revocations are not replayed: which
statement an old "drop the type hints" withdrew was decided, or not, when it was written, and
re-deciding it would rewrite history that callers may have read.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from tqdm import tqdm

from graph.reading.standing import recognise
from graph.storage.db import Database


@dataclass
class MarkSummary:
    read: int = 0
    marked: int = 0  # gained a kind or changed kind
    cleared: int = 0  # lost a mark the patterns no longer give

    def render(self) -> str:
        return (
            f"mark-standing: {self.read} facts read, {self.marked} marked standing, "
            f"{self.cleared} marks cleared"
        )


def mark_standing(
    db: Database,
    *,
    scopes: list[str] | None = None,
    batch_size: int = 1000,
    progress: bool = False,
) -> MarkSummary:
    """Apply the standing patterns to every stored fact of `scopes` (all when None)."""
    summary = MarkSummary()
    after = ""
    with tqdm(unit=" facts", desc="mark-standing", file=sys.stderr, disable=not progress) as bar:
        while True:
            records = db.read(
                "standing_mark_batch", {"scopes": scopes, "after": after, "limit": batch_size}
            )
            if not records:
                break
            rows = []
            for record in records:
                kind = recognise(
                    str(record["text"] or ""),
                    record["subject"],
                    vector=record["embedding"],
                    embedder=record["embedder"],
                )
                now = kind.value if kind is not None else None
                if now == record["standing"]:
                    continue
                rows.append({"id": record["id"], "standing": now})
                if now is None:
                    summary.cleared += 1
                else:
                    summary.marked += 1
            if rows:
                db.write("standing_mark_apply", {"rows": rows})
            summary.read += len(records)
            after = str(records[-1]["id"])
            bar.update(len(records))
    return summary
