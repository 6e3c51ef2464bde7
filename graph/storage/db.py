"""The one way factgraph talks to Neo4j: named Cypher files, parameters, managed transactions.

Managed transactions (`execute_read` / `execute_write`) are retried by the driver on transient
errors, which is what makes a write all-or-nothing even when Neo4j hiccups. Connection loss is
translated into `DatabaseUnavailable` so callers can answer 503 instead of crashing.

Once Neo4j is known to be down, queries fail at once instead of each sitting in the driver's
retry loop: at most one caller per `PROBE_INTERVAL` probes the server, and the first successful
probe reopens the gate, so the service recovers by itself when Neo4j returns. The service
(`watch`) does better: a watcher pings Neo4j and closes the gate when the server stops
answering, so a paused server (which answers nothing and refuses nothing) is noticed within
FACTGRAPH_DB_TIMEOUT too, and only the watcher opens and closes the gate, with hysteresis
(graph/storage/liveness.py). Connecting,
and waiting for a pooled connection, are bounded by the same timeout.

`NEO4J_URI` may name a cluster or Aura (`neo4j://`, `neo4j+s://`): reads are routed to members
that serve reads, writes to the leader, and every transaction carries the bookmarks of
`graph.storage.bookmarks` so a read never runs on a member behind the writes it must see.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeVar

import neo4j
from neo4j import ManagedTransaction, Record
from neo4j.exceptions import (
    ClientError,
    ConnectionAcquisitionTimeoutError,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)

from graph.config import Settings
from graph.errors import DatabaseUnavailable, ValidationError
from graph.observability import tracing
from graph.platform.neo4j_versions import NeoVersion
from graph.platform.neo4j_versions import parse as parse_version
from graph.storage import bookmarks, cypher, parameters
from graph.storage.liveness import Liveness

T = TypeVar("T")
log = logging.getLogger("factgraph.neo4j")

QueryHook = Callable[[str, float], None]

PROBE_INTERVAL = 1.0
FLAP_WINDOW = 60.0
INVALID_BOOKMARK = "Neo.ClientError.Transaction.InvalidBookmark"
BOOKMARK_TIMEOUT = "Neo.TransientError.Transaction.BookmarkTimeout"


class _NotificationWarnings(logging.Handler):
    """Raises what the driver logs of a WARNING notification as a Python warning, where the
    query's result is read."""

    def emit(self, record: logging.LogRecord) -> None:
        printed = record.args[0] if isinstance(record.args, tuple) and record.args else None
        notification = getattr(printed, "notification", None)
        if record.levelno < logging.WARNING or notification is None:
            return
        deprecated = notification.classification == neo4j.NotificationClassification.DEPRECATION
        kind = neo4j.warnings.Neo4jDeprecationWarning if deprecated else neo4j.warnings.Neo4jWarning
        warnings.warn(kind(notification, getattr(printed, "query", None)), stacklevel=2)


_notification_handler = _NotificationWarnings()


def notifications_as_warnings() -> None:
    """FACTGRAPH_NEO4J_NOTIFICATION_WARNINGS (the test suite): a deprecated procedure or
    syntax in our Cypher becomes a Neo4jDeprecationWarning, which pytest makes an error.

    The driver's own option (`warn_notification_severity`) does the same but records the
    caller's `inspect.stack()` at every query, source lines and all, to point its warning at
    that line: a fifth of the suite's CPU went there. The driver logs every notification it
    receives anyway; this raises the warnings from that log instead.
    """
    notification_log = logging.getLogger("neo4j.notifications")
    if _notification_handler not in notification_log.handlers:
        notification_log.addHandler(_notification_handler)
        if notification_log.getEffectiveLevel() > logging.WARNING:
            notification_log.setLevel(logging.WARNING)


class Database:
    """A driver, a database name, and helpers that run named queries from `cypher/`."""

    def __init__(self, settings: Settings, *, max_pool: int = 64) -> None:
        self.settings = settings
        self.name = settings.neo4j_database
        self.driver = neo4j.GraphDatabase.driver(
            settings.bolt_uri,
            auth=(settings.neo4j_user, settings.neo4j_password),
            max_connection_pool_size=max_pool,
            # Both bounded by FACTGRAPH_DB_TIMEOUT (2 s): 10 s and 5 s until issue 64, when a
            # request waited 10 s for a connection to a paused server and then failed with 500.
            connection_acquisition_timeout=settings.db_timeout,
            connection_timeout=settings.db_timeout,
            max_transaction_retry_time=15.0,
            liveness_check_timeout=5.0,
            # "index already exists" and similar INFORMATION notices would flood the logs at
            # every start-up (the schema is applied idempotently); warnings still come through.
            notifications_min_severity=neo4j.NotificationMinimumSeverity.WARNING,
            # Except "property key does not exist": on a new database no fact has had, say,
            # `expires_at` set yet, and every search would log a warning for it. Our Cypher is
            # fixed text under test, so these warnings never point at a real misspelling.
            notifications_disabled_classifications=[
                neo4j.NotificationDisabledClassification.UNRECOGNIZED
            ],
        )
        if settings.notification_warnings:
            notifications_as_warnings()
        self.bookmarks = bookmarks.CausalBookmarks()
        self._signer: bookmarks.Signer | None = None
        self.query_hooks: list[QueryHook] = []
        self._down_since: float | None = None
        self._next_probe = 0.0
        self._gate = threading.Lock()
        self._server: NeoVersion | None = None
        self._liveness: Liveness | None = None
        self._up_again = -FLAP_WINDOW

    @property
    def server_version(self) -> NeoVersion:
        """The server's version, asked once (the first query of this Database asks it)."""
        if self._server is None:
            with self._translate("server_version"):
                pass
        assert self._server is not None
        return self._server

    def _learn_server(self) -> None:
        """Ask the server's version once, and select the Cypher files of its generation
        (graph/storage/cypher.py): 2026.01+ runs `cypher/neo4j2026/`, 5.26 the files at the top."""
        with self.driver.session(database=self.name) as session:
            record = session.run(cypher.load("health_ping")).single(strict=True)
        version = parse_version(str(record["version"]))
        cypher.use_generation(cypher.NEO4J_2026 if version.in_index_filters else cypher.BASE)
        self._server = version

    def close(self) -> None:
        if self._liveness is not None:
            self._liveness.stop()
        self.driver.close()

    def watch(self) -> None:
        """Watch Neo4j from a thread of its own (graph/storage/liveness.py) so that a server
        that stops answering closes the gate within FACTGRAPH_DB_TIMEOUT; idempotent."""
        with self._gate:
            if self._liveness is not None:
                return
            self._liveness = Liveness(
                self._bare_ping,
                timeout=self.settings.db_timeout,
                down=self._mark_down,
                up=self._mark_up,
            )
        self._liveness.start()

    @property
    def watched(self) -> bool:
        return self._liveness is not None

    def _bare_ping(self) -> None:
        """One auto-commit query, not retried, outside the gate: the watcher's probe."""
        with self.driver.session(database=self.name) as session:
            session.run(cypher.load("health_ping")).consume()

    def _unavailable(self, cause: str) -> DatabaseUnavailable:
        return DatabaseUnavailable(
            f"Neo4j at {self.settings.bolt_uri} is unavailable ({cause}); retry when it is back"
        )

    def unavailable_detail(self) -> str | None:
        """What /healthz says while the gate is closed (None while it is open)."""
        down_since = self._down_since
        if down_since is None:
            return None
        return str(self._unavailable(f"down for {time.monotonic() - down_since:.0f}s"))

    @property
    def down_since(self) -> float | None:
        """When (time.monotonic) the gate closed; None while it is open."""
        return self._down_since

    @property
    def available(self) -> bool:
        """False from a connection failure until a probe reaches Neo4j again."""
        return self._down_since is None

    def _check_gate(self) -> None:
        """Fail fast while Neo4j is down; one caller per interval probes and may reopen."""
        if self.available:
            return
        with self._gate:
            down_since = self._down_since
            if down_since is None:
                return
            now = time.monotonic()
            if self._liveness is not None or now < self._next_probe:
                raise self._unavailable(f"down for {now - down_since:.0f}s")
            self._next_probe = now + PROBE_INTERVAL
        try:
            self.driver.verify_connectivity()
        except Exception as exc:  # any failure to connect keeps the gate closed
            raise self._unavailable(type(exc).__name__) from exc
        self._mark_up()

    def _mark_up(self) -> None:
        with self._gate:
            if self._down_since is not None:
                log.info("Neo4j at %s answers again", self.settings.bolt_uri)
                self._up_again = time.monotonic()
            self._down_since = None

    def _mark_down(self, cause: str = "a query failed") -> None:
        with self._gate:
            if self._down_since is None:
                self._down_since = time.monotonic()
                self._next_probe = self._down_since + PROBE_INTERVAL
                # Once per outage, and a WARNING: the service does what it promises (503 with
                # Retry-After, recovery by itself); the requests refused meanwhile are not
                # errors each, and no traceback helps anyone. A gate that closes again within
                # a minute of reopening (a slow, cold server flaps) is the same outage: INFO.
                flapping = self._down_since - self._up_again < FLAP_WINDOW
                log.log(
                    logging.INFO if flapping else logging.WARNING,
                    "Neo4j at %s is unreachable (%s); requests answer 503 DATABASE_UNAVAILABLE "
                    "until it answers again",
                    self.settings.bolt_uri,
                    cause,
                )

    @contextmanager
    def _translate(self, what: str) -> Iterator[None]:
        """One call to Neo4j: a span of its own, timed for the query hooks, and the driver's
        errors turned into the service's."""
        started = time.perf_counter()
        try:
            with tracing.query_span(what, self.name):
                self._check_gate()
                if self._server is None:
                    self._learn_server()
                yield
        except (ServiceUnavailable, SessionExpired, OSError) as exc:
            # Watched, the watcher alone opens and closes the gate (with hysteresis: a query
            # that fails on a server just restarted does not close it for the others).
            if self._liveness is None:
                self._mark_down(type(exc).__name__)
            raise self._unavailable(type(exc).__name__) from exc
        except ConnectionAcquisitionTimeoutError as exc:
            # Every pooled connection busy for FACTGRAPH_DB_TIMEOUT: Neo4j too slow or gone;
            # the watcher (or the next probe) tells which, so the gate is left as it is.
            raise self._unavailable(
                f"no connection free within {self.settings.db_timeout:g}s"
            ) from exc
        except TransientError as exc:
            if exc.code == BOOKMARK_TIMEOUT:  # not retried here: the wait was the server's
                raise DatabaseUnavailable(
                    f"the Neo4j member that took this request has not caught up with the "
                    f"bookmark sent in {bookmarks.HEADER} within its wait; retry shortly"
                ) from exc
            raise
        except ClientError as exc:
            if exc.code == INVALID_BOOKMARK:
                raise ValidationError(
                    bookmarks.HEADER,
                    "Neo4j cannot read this bookmark; send back a value an earlier response "
                    "of this service returned",
                ) from exc
            raise
        finally:
            elapsed = time.perf_counter() - started
            for hook in self.query_hooks:
                hook(what, elapsed)

    def read(self, name: str, params: Mapping[str, Any] | None = None) -> list[Record]:
        """Run `cypher/<name>.cypher` in a managed read transaction and return all records."""
        parameters.check(params or {})
        with self._translate(name):
            query = cypher.load(name)  # after _translate: it picks the server's generation
            records, _, _ = self.driver.execute_query(
                query,
                parameters_=dict(params or {}),
                database_=self.name,
                routing_=neo4j.RoutingControl.READ,
                bookmark_manager_=self.bookmarks,
            )
        return records

    def read_fast(self, name: str, params: Mapping[str, Any] | None = None) -> list[Record]:
        """`read` in one round trip: an auto-commit query, for the hot path of search.

        A managed transaction costs a second round trip (BEGIN, RUN and PULL, then COMMIT),
        ~1-2 ms per query at 100,000 facts. Auto-commit queries are not retried by the driver,
        so a transient error, or a cluster member going away under the query, is retried here
        once, as a managed `read` (which the driver retries and routes anew).
        """
        parameters.check(params or {})
        try:
            with self._translate(name):
                query = cypher.load(name)
                try:
                    with self.session(read=True) as session:
                        return list(session.run(query, dict(params or {})))
                except SessionExpired as exc:
                    raise _RetryAsManaged from exc
        except (TransientError, _RetryAsManaged):
            return self.read(name, params)

    def write(self, name: str, params: Mapping[str, Any] | None = None) -> list[Record]:
        """Run `cypher/<name>.cypher` in a managed (retried) write transaction."""
        parameters.check(params or {})
        with self._translate(name):
            query = cypher.load(name)  # after _translate: it picks the server's generation
            records, _, _ = self.driver.execute_query(
                query,
                parameters_=dict(params or {}),
                database_=self.name,
                routing_=neo4j.RoutingControl.WRITE,
                bookmark_manager_=self.bookmarks,
            )
        bookmarks.note_write()
        return records

    def write_tx(self, work: Callable[[ManagedTransaction], T], label: str = "write_tx") -> T:
        """Run several statements as one retried write transaction: all of them or none.

        `work` may be called more than once on retry, so it must not have side effects outside
        the transaction it is given.
        """
        with self._translate(label), self.session() as session:
            result = session.execute_write(work)
        bookmarks.note_write()
        return result

    def read_tx(self, work: Callable[[ManagedTransaction], T], label: str = "read_tx") -> T:
        with self._translate(label), self.session(read=True) as session:
            return session.execute_read(work)

    def session(self, *, read: bool = False) -> neo4j.Session:
        """A session on this database that waits for the bookmarks of `graph.storage.bookmarks`.

        Every session of the service is opened here (or through `execute_query` with the same
        manager): one opened without it could read, on a cluster, before this process's or
        this request's writes reached the member it was routed to.
        """
        return self.driver.session(
            database=self.name,
            bookmark_manager=self.bookmarks,
            default_access_mode=neo4j.READ_ACCESS if read else neo4j.WRITE_ACCESS,
        )

    @property
    def loaded_signer(self) -> bookmarks.Signer | None:
        """The signer if `signer()` has loaded it (no Neo4j round trip), else None."""
        return self._signer

    def signer(self) -> bookmarks.Signer:
        """What signs and checks the bookmarks clients hold; its key is read (or created, by
        the first replica) in Neo4j once per process: it never changes."""
        if self._signer is None:
            records = self.write(
                "service_secret",
                {"name": bookmarks.SECRET_NAME, "value": secrets.token_hex(32)},
            )
            self._signer = bookmarks.Signer(bytes.fromhex(str(records[0]["value"])))
        return self._signer

    def ping(self) -> str:
        """The server version; raises DatabaseUnavailable at once when Neo4j does not answer.

        An auto-commit query, so it is not retried: a health probe must answer quickly. It
        carries no bookmarks: a probe asks whether a member answers, not whether it caught up.
        """
        with self._translate("ping"), self.driver.session(database=self.name) as session:
            record = session.run(cypher.load("health_ping")).single(strict=True)
        return str(record["version"])


class _RetryAsManaged(Exception):
    """Internal: an auto-commit read lost its cluster member; ask again as a managed read."""


def run(tx: ManagedTransaction, name: str, **params: Any) -> list[Record]:
    """Run a named query inside a transaction function (for multi-statement writes); a span
    of its own inside the transaction's."""
    parameters.check(params)
    with tracing.query_span(name):
        return list(tx.run(cypher.load(name), params))
