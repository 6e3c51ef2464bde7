"""The background worker of `factgraph serve`: the consolidator off the request path.

One daemon thread, at nice +10, works one batch at a time and then rests in proportion to the
time the batch took (FACTGRAPH_CONSOLIDATE_CPU_SHARE, a quarter of a core by default), so a
backlog never takes more than that share from the searches the service answers. An empty queue
is looked at every FACTGRAPH_CONSOLIDATE_IDLE seconds. A failed batch is logged, counted and
left queued; the worker carries on after a pause. Health reports the worker stalled when work
waits and no batch has finished for FACTGRAPH_CONSOLIDATE_STALL seconds, or the thread died.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING

# typing's TypedDict is not enough for pydantic before Python 3.12, which derives the JSON
# Schema of /healthz from these (resolvers/http/openapi.py).
from typing_extensions import TypedDict

from graph.consolidation.consolidator import EXPIRY_BATCH, Consolidator
from graph.errors import DatabaseUnavailable
from graph.observability import metrics

if TYPE_CHECKING:
    from graph.memory import Memory

log = logging.getLogger("factgraph.consolidation")

NICE = 10
ERROR_PAUSE = 10.0  # seconds after a failed batch (Neo4j down, say) before the next try

_running: weakref.WeakKeyDictionary[Memory, BackgroundConsolidator] = weakref.WeakKeyDictionary()


class WorkerJson(TypedDict):
    """The background consolidator of the process that answered."""

    running: bool
    stalled: bool
    queued: int
    facts: int
    last_batch_age_seconds: float | None
    last_error: str | None


@dataclass(frozen=True)
class WorkerState:
    running: bool
    stalled: bool
    queued: int
    facts: int
    last_batch_age: float | None  # seconds since the last batch finished
    last_error: str | None

    def as_json(self) -> WorkerJson:
        return {
            "running": self.running,
            "stalled": self.stalled,
            "queued": self.queued,
            "facts": self.facts,
            "last_batch_age_seconds": self.last_batch_age,
            "last_error": self.last_error,
        }


class BackgroundConsolidator:
    def __init__(self, consolidator: Consolidator) -> None:
        self.consolidator = consolidator
        self.settings = consolidator.settings
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="consolidator", daemon=True)
        self._pending: list[str] = []
        self._queued = 0
        self._facts = 0
        self._last_progress = time.monotonic()
        self._last_batch: float | None = None
        self._last_error: str | None = None

    @classmethod
    def start_for(cls, memory: Memory) -> BackgroundConsolidator:
        worker = cls(Consolidator(memory))
        _running[memory] = worker
        worker.start()
        enrichers = ",".join(worker.consolidator.enrichers)
        log.info("consolidator started", extra={"enrichers": enrichers})
        return worker

    def start(self) -> None:
        """Start the thread (unregistered: health does not see it; `start_for` registers)."""
        self._thread.start()

    def stop(self, timeout: float = 30.0) -> None:
        """Ask the thread to finish its batch and wait for it (a batch is never cut short)."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)
        if not self._thread.is_alive():
            self.consolidator.close()
        for memory, worker in list(_running.items()):
            if worker is self:
                del _running[memory]

    def state(self) -> WorkerState:
        now = time.monotonic()
        alive = self._thread.is_alive()
        waiting = self._queued > 0 or bool(self._pending)
        stalled = (not alive and not self._stop.is_set()) or (
            waiting and now - self._last_progress > self.settings.stall_seconds
        )
        return WorkerState(
            running=alive,
            stalled=stalled,
            queued=self._queued,
            facts=self._facts,
            last_batch_age=None if self._last_batch is None else round(now - self._last_batch, 1),
            last_error=self._last_error,
        )

    def step(self) -> int:
        """One unit of work: an expiry sweep when the scope list is renewed, then one batch of
        the scope waiting longest. Returns the facts it handled."""
        if not self._pending:
            expired = self.consolidator.expire(limit=EXPIRY_BATCH)
            scopes = self.consolidator.queued_scopes()
            self._queued = sum(s.queued for s in scopes)
            self._pending = [s.scope for s in scopes]
            if not self._pending:
                self._last_progress = time.monotonic()
                return expired
        scope = self._pending[0]
        done = self.consolidator.run_batch(scope)
        if done < self.settings.batch_size:
            self._pending.pop(0)  # drained (what was queued when the batch was read)
        self._queued = max(0, self._queued - done)
        self._facts += done
        self._last_progress = self._last_batch = time.monotonic()
        return done

    def _loop(self) -> None:
        with contextlib.suppress(AttributeError, OSError):  # Linux: a thread has its own nice
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), NICE)
        share = self.settings.cpu_share
        while not self._stop.is_set():
            started = time.monotonic()
            try:
                done = self.step()
                self._last_error = None
            except Exception as exc:  # a failed batch stays queued; report it and carry on
                metrics.CONSOLIDATION_ERRORS.inc()
                self._last_error = f"{type(exc).__name__}: {exc}"[:300]
                self._pending.clear()
                if isinstance(exc, DatabaseUnavailable):  # the outage is logged once, by db.py
                    log.info("consolidation waits: %s", exc)
                else:
                    log.warning("consolidation batch failed", exc_info=True)
                self._stop.wait(ERROR_PAUSE)
                continue
            busy = time.monotonic() - started
            self._stop.wait(busy * (1 - share) / share if done else self.settings.idle_seconds)


def worker_of(memory: Memory) -> BackgroundConsolidator | None:
    """The background worker running over this memory in this process, if any."""
    return _running.get(memory)
