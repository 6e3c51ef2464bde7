"""Whether Neo4j answers, watched from outside the requests: a ping that is late closes the gate.

A Neo4j that is paused (SIGSTOP, a stop-the-world pause, a frozen VM) or behind a dropped
network keeps its TCP connections open and answers nothing, and the driver has no read
timeout: a query on such a connection waits until the server comes back. Until issue 64 every
request then hung (10 s for a pooled connection, then a 500), and /healthz with them.

The watcher pings Neo4j every `timeout / 5` seconds on a thread of its own. A ping that is not
answered within `0.6 * timeout` (or that fails: a killed server refuses connections at once)
marks the database down: queries are refused at once with `DatabaseUnavailable`, and the
service answers the requests still waiting (resolvers/http/outage.py), so that every request
has its answer within `timeout` of arriving. The next ping that is answered reopens the gate:
the service serves again by itself.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

log = logging.getLogger("factgraph.neo4j")

# Of the timeout: the pause between pings, and how long one ping may take. A request that
# arrives just after Neo4j stops is answered within PERIOD + PING_WAIT (0.8 of the timeout)
# plus the outage guard's poll.
PERIOD = 0.2
PING_WAIT = 0.6


class Liveness:
    """Ping with `ping` until stopped; call `down(cause)` when one is late or fails, `up()`
    when one is answered again."""

    def __init__(
        self,
        ping: Callable[[], object],
        *,
        timeout: float,
        down: Callable[[str], None],
        up: Callable[[], None],
    ) -> None:
        self.ping = ping
        self.timeout = timeout
        self.down = down
        self.up = up
        self._stop = threading.Event()
        self._pinger = ThreadPoolExecutor(max_workers=1, thread_name_prefix="factgraph-ping")
        self._thread = threading.Thread(target=self._run, name="factgraph-liveness", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=self.timeout * 2)
        self._pinger.shutdown(wait=False, cancel_futures=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            pending: Future[object] = self._pinger.submit(self.ping)
            try:
                pending.result(timeout=self.timeout * PING_WAIT)
            except FutureTimeout:
                self.down(f"no answer to a ping within {self.timeout * PING_WAIT:.1f}s")
                self._wait_for(pending)
            except Exception as exc:  # any failure to reach the server: it is down
                self.down(type(exc).__name__)
            else:
                self.up()
            self._stop.wait(self.timeout * PERIOD)

    def _wait_for(self, pending: Future[object]) -> None:
        """A late ping is let finish (the server may never answer it: then the driver's own
        timeouts end it); its answer says the server is back."""
        while not self._stop.is_set():
            try:
                pending.result(timeout=self.timeout * PERIOD)
            except FutureTimeout:
                continue
            except Exception:
                return
            self.up()
            return
