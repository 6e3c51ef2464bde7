"""Whether Neo4j answers, watched from outside the requests, with hysteresis both ways.

A Neo4j that is paused (SIGSTOP, a stop-the-world pause, a frozen VM) or behind a dropped
network keeps its TCP connections open and answers nothing, and the driver has no read
timeout: a query on such a connection waits until the server comes back. Until issue 64 every
request then hung (10 s for a pooled connection, then a 500), and /healthz with them.

The watcher pings Neo4j every `PERIOD * timeout` seconds on threads of its own, and `Gate`
decides from what the pings say, with hysteresis so that a server that is alive but slow (just
restarted, its JVM cold, on a loaded machine) does not make the gate flap:

- **Closing** needs the server *silent*: pings outstanding and none answered for
  `SILENT * timeout` seconds, or `CLOSE_AFTER_FAILURES` pings failing in a row (a killed
  server refuses connections at once). One slow ping does not close it while the pings sent
  after it are answered: the pings overlap (up to `MAX_OUTSTANDING`), so a slow query is told
  apart from a stopped server. Until issue 64's last round one ping late by 1.2 s closed the
  gate, and a cold server flapped closed / open every few seconds after a restart.
- **Opening** needs `OPEN_AFTER` pings in a row answered within the silence bound; one late or
  failed ping in between starts the count again.

Closed, queries are refused at once with `DatabaseUnavailable` and the service answers the
requests still waiting (resolvers/http/outage.py). A request that arrives just after Neo4j
stops is answered within `(PERIOD + SILENT) * timeout` (0.8 of it) plus the outage guard's
poll, so within the timeout (FACTGRAPH_DB_TIMEOUT, 2 s). Opening takes at least
`(OPEN_AFTER - 1) * PERIOD * timeout` (0.8 s) after the first answer.

`Gate` is a pure state machine over a clock given to it, so its rule is tested with exact
times (tests/test_liveness.py); `Liveness` runs it against the real server.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

# Of the timeout: the pause between pings, and how long the server may answer nothing at all
# while pinged before the gate closes.
PERIOD = 0.2
SILENT = 0.6
# Pings in a row that must fail to close, and be answered (each within the silence bound)
# to open.
CLOSE_AFTER_FAILURES = 2
OPEN_AFTER = 3
# Pings outstanding at once while open: enough to cover the silence bound, so that the pings
# sent after a slow one say whether the server answers (SILENT / PERIOD + 1).
MAX_OUTSTANDING = 4


@dataclass
class Gate:
    """The rule, fed what the pings did and when (seconds on any monotonic clock).

    Each method returns the change it makes: "down: <cause>", "up", or None.
    """

    timeout: float
    open: bool = True
    outstanding: dict[int, float] = field(default_factory=dict)  # ping -> when it was sent
    last_heard: float | None = None  # when a ping was last answered
    failures: int = 0  # pings failed in a row
    good: int = 0  # pings answered in a row while closed
    next_ping: float = 0.0
    _next_id: int = 0

    @property
    def period(self) -> float:
        return self.timeout * PERIOD

    @property
    def silent(self) -> float:
        return self.timeout * SILENT

    def due(self, now: float) -> int | None:
        """A new ping's id if one is due now (then send it), else None. Closed, one at a time:
        a paused server is not sent a pile of pings."""
        if now < self.next_ping:
            return None
        if len(self.outstanding) >= (MAX_OUTSTANDING if self.open else 1):
            return None
        ping = self._next_id
        self._next_id += 1
        self.outstanding[ping] = now
        self.next_ping = now + self.period
        return ping

    def answered(self, ping: int, now: float) -> str | None:
        sent = self.outstanding.pop(ping, None)
        if sent is None:
            return None
        self.last_heard = now
        self.failures = 0
        if self.open:
            return None
        if now - sent > self.silent:  # late: alive, but not yet what reopening needs
            self.good = 0
            return None
        self.good += 1
        if self.good < OPEN_AFTER:
            return None
        self.open = True
        self.good = 0
        return "up"

    def failed(self, ping: int, now: float, cause: str) -> str | None:
        if self.outstanding.pop(ping, None) is None:
            return None
        self.failures += 1
        self.good = 0
        if self.open and self.failures >= CLOSE_AFTER_FAILURES:
            return self._close(f"{self.failures} pings in a row failed: {cause}")
        return None

    def tick(self, now: float) -> str | None:
        """Close if the server has been silent too long; call at `wake_at` at the latest."""
        silent_since = self._silent_since()
        if not self.open or silent_since is None or now - silent_since < self.silent:
            return None
        return self._close(f"no answer to any ping for {now - silent_since:.1f}s")

    def wake_at(self) -> float:
        """When the watcher must look again, at the latest: the next ping, if one may be sent,
        or the silence bound running out (a ping ending wakes it too)."""
        times = []
        if len(self.outstanding) < (MAX_OUTSTANDING if self.open else 1):
            times.append(self.next_ping)
        silent_since = self._silent_since()
        if self.open and silent_since is not None:
            times.append(silent_since + self.silent)
        return min(times, default=math.inf)

    def _silent_since(self) -> float | None:
        """Since when pings have been outstanding with none answered; None if none waits."""
        if not self.outstanding:
            return None
        oldest = min(self.outstanding.values())
        return oldest if self.last_heard is None else max(oldest, self.last_heard)

    def _close(self, cause: str) -> str:
        self.open = False
        self.good = 0
        self.failures = 0
        return f"down: {cause}"


class Liveness:
    """Ping with `ping` until stopped; call `down(cause)` when the gate closes, `up()` when it
    opens again (see the module for the rule)."""

    def __init__(
        self,
        ping: Callable[[], object],
        *,
        timeout: float,
        down: Callable[[str], None],
        up: Callable[[], None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ping = ping
        self.timeout = timeout
        self.down = down
        self.up = up
        self.clock = clock
        self.gate = Gate(timeout)
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._pinger = ThreadPoolExecutor(
            max_workers=MAX_OUTSTANDING, thread_name_prefix="factgraph-ping"
        )
        self._thread = threading.Thread(target=self._run, name="factgraph-liveness", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout=self.timeout * 2)
        self._pinger.shutdown(wait=False, cancel_futures=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.clear()  # before looking: a ping ending from now on wakes the wait
            with self._lock:
                now = self.clock()
                self._apply(self.gate.tick(now))
                ping = self.gate.due(now)
                wake_at = self.gate.wake_at()
            if ping is not None:
                self._send(ping)
            self._wake.wait(max(0.0, min(wake_at - self.clock(), self.timeout * PERIOD)))

    def _send(self, ping: int) -> None:
        try:
            pending: Future[object] = self._pinger.submit(self.ping)
        except RuntimeError:  # shut down while stopping
            return
        pending.add_done_callback(lambda done: self._heard(ping, done))

    def _heard(self, ping: int, done: Future[object]) -> None:
        """A ping ended (on the pinger's thread): answered, or failed. A ping the server never
        answers ends when the driver gives up on it."""
        if done.cancelled():
            return
        error = done.exception()
        with self._lock:
            now = self.clock()
            if error is None:
                self._apply(self.gate.answered(ping, now))
            else:
                self._apply(self.gate.failed(ping, now, type(error).__name__))
        self._wake.set()  # a slot for the next ping, or a count that changed

    def _apply(self, change: str | None) -> None:
        if change == "up":
            self.up()
        elif change is not None:
            self.down(change.removeprefix("down: "))
