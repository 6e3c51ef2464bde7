"""Auto-commit and streaming queries, for the jobs that cannot run in a managed transaction.

`CALL { } IN TRANSACTIONS` (batched deletes, the LOAD CSV template) is refused inside an
explicit transaction, and an export streams more records than should be held in memory; both
run here on a plain session. The Cypher still comes from `cypher/` files by name.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from neo4j import Record

from graph.storage import bookmarks, cypher
from graph.storage.db import Database


def run_autocommit(
    db: Database, name: str, params: Mapping[str, Any] | None = None
) -> list[Record]:
    """Run `cypher/<name>.cypher` as an auto-commit query (it may commit in several batches)."""
    with db._translate(name), db.session() as session:
        records = list(session.run(cypher.load(name), dict(params or {})))
    bookmarks.note_write()
    return records


def stream(db: Database, name: str, params: Mapping[str, Any] | None = None) -> Iterator[Record]:
    """Records of a read query as they arrive, without holding the whole result."""
    with (
        db._translate(name),
        db.session(read=True) as session,
    ):
        yield from session.run(cypher.load(name), dict(params or {}))


def delete_scope(db: Database, scope: str) -> None:
    """Remove a scope of any size in bounded transactions (see cypher/scope_delete_batched)."""
    run_autocommit(db, "scope_delete_batched", {"scope": scope})
