"""Access bookkeeping off the search path: returned facts are counted after the response.

Searches hand their returned ids to a per-database recorder; one daemon thread drains the
queue and writes everything pending in one batched `UNWIND` (cypher/search_access.cypher), so
a burst of searches costs one write, and no search waits for it. `flush()` waits until what
was queued so far is written (tests, shutdown).
"""

from __future__ import annotations

import logging
import queue
import threading
import weakref
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from graph.db import Database

log = logging.getLogger("factgraph.search.access")

_Item = tuple[str, tuple[str, ...], datetime] | threading.Event


class AccessRecorder:
    def __init__(self, db: Database) -> None:
        self._db = weakref.ref(db)
        self._queue: queue.SimpleQueue[_Item] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._loop, name="factgraph-access", daemon=True)
        self._thread.start()

    def record(self, scope: str, ids: Sequence[str], at: datetime) -> None:
        if ids:
            self._queue.put((scope, tuple(ids), at))

    def flush(self, timeout: float = 10.0) -> bool:
        done = threading.Event()
        self._queue.put(done)
        return done.wait(timeout)

    def _loop(self) -> None:
        while True:
            first = self._queue.get()
            items = [first]
            while True:
                try:
                    items.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            rows: dict[tuple[str, str], dict[str, Any]] = {}
            events: list[threading.Event] = []
            for item in items:
                if isinstance(item, threading.Event):
                    events.append(item)
                    continue
                scope, ids, at = item
                for fact_id in ids:
                    row = rows.setdefault(
                        (scope, fact_id), {"scope": scope, "id": fact_id, "count": 0, "at": at}
                    )
                    row["count"] += 1
                    row["at"] = max(row["at"], at)
            if rows:
                self._write(list(rows.values()))
            for event in events:
                event.set()
            if self._db() is None:
                return

    def _write(self, rows: list[dict[str, Any]]) -> None:
        db = self._db()
        if db is None:
            return
        try:
            db.write("search_access", {"rows": rows})
        except Exception:  # the bookkeeping must never take the service down
            log.warning("could not record access of %d facts", len(rows), exc_info=True)


_recorders: weakref.WeakKeyDictionary[Database, AccessRecorder] = weakref.WeakKeyDictionary()
_recorders_lock = threading.Lock()


def recorder(db: Database) -> AccessRecorder:
    """The one recorder of `db`, started on first use."""
    with _recorders_lock:
        found = _recorders.get(db)
        if found is None:
            found = _recorders[db] = AccessRecorder(db)
        return found
