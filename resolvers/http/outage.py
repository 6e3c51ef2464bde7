"""A request waiting on a Neo4j that stopped answering is answered 503 at once, not when it returns.

The queries of a request run on worker threads that cannot be interrupted, and a paused Neo4j
never answers them. So each API request runs as a task of its own, and while it runs this
middleware looks every `POLL` seconds at the gate that the liveness watcher closes when Neo4j
stops answering (graph/storage/liveness.py). Once it closes, a request that arrived before
and has not begun its answer is answered 503 `DATABASE_UNAVAILABLE` with Retry-After, and
its task is left to end by itself when Neo4j answers or the driver gives up; whatever it
then sends is dropped.

A write cut off so is either applied whole when Neo4j is back, or not at all (one transaction):
the answer says so, and a repeated `remember` of the same text is recognised as a duplicate.
Requests that arrive while the gate is closed are refused by the gate itself, at once.
"""

from __future__ import annotations

import asyncio
import logging
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from graph.errors import DatabaseUnavailable
from graph.storage.db import Database
from resolvers.http.observe import send_error, serves_data
from resolvers.http.streams import STREAM

log = logging.getLogger("factgraph.http")

POLL = 0.1
RETRY_AFTER = "5"


class OutageGuard:
    """Answer 503 for a request still waiting when the database is found down."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._orphans: set[asyncio.Task[None]] = set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        db = _watched_db(scope)
        if db is None or scope["type"] != "http" or not serves_data(scope) or scope.get(STREAM):
            await self.app(scope, receive, send)
            return
        started = False
        cut_off = False

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if cut_off:
                return  # answered already: the late answer goes nowhere
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        arrived = time.monotonic()
        task = asyncio.create_task(self._run(scope, receive, guarded_send))
        while True:
            done, _ = await asyncio.wait({task}, timeout=POLL)
            if done:
                task.result()
                return
            down_since = db.down_since
            # Down since it arrived: its queries wait on a server that stopped. Down before:
            # the gate refuses its queries at once, and it answers by itself (MCP with its
            # tool error), unless it still waits after the timeout.
            late = time.monotonic() - arrived > db.settings.db_timeout
            if down_since is not None and not started and (down_since > arrived or late):
                break
        cut_off = True
        self._orphans.add(task)
        task.add_done_callback(self._forget)
        error = DatabaseUnavailable(
            f"Neo4j is unavailable: it stopped answering while this request waited on it; "
            f"nothing was confirmed: "
            f"a write in it is applied whole when Neo4j is back, or not at all. Retry after "
            f"{RETRY_AFTER} s"
        )
        await send_error(scope, send, 503, error.code, str(error), retry_after=RETRY_AFTER)

    async def _run(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app(scope, receive, send)

    def _forget(self, task: asyncio.Task[None]) -> None:
        """A cut-off request has ended: its failure, if any, is the outage's, logged once by the
        watcher, so it is read here (unread, asyncio would log it as an ERROR) and kept quiet."""
        self._orphans.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.debug("a request cut off by a Neo4j outage ended", exc_info=task.exception())


def _watched_db(scope: Scope) -> Database | None:
    app = scope.get("app")
    memory = getattr(getattr(app, "state", None), "memory", None)
    db = getattr(memory, "db", None)
    return db if isinstance(db, Database) and db.watched else None
