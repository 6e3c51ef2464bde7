"""The one way factgraph talks to Neo4j: named Cypher files, parameters, managed transactions.

Managed transactions (`execute_read` / `execute_write`) are retried by the driver on transient
errors, which is what makes a write all-or-nothing even when Neo4j hiccups. Connection loss is
translated into `DatabaseUnavailable` so callers can answer 503 instead of crashing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeVar

import neo4j
from neo4j import ManagedTransaction, Record
from neo4j.exceptions import ServiceUnavailable, SessionExpired

from graph import cypher
from graph.config import Settings
from graph.errors import DatabaseUnavailable

T = TypeVar("T")

QueryHook = Callable[[str, float], None]


class Database:
    """A driver, a database name, and helpers that run named queries from `cypher/`."""

    def __init__(self, settings: Settings, *, max_pool: int = 64) -> None:
        self.settings = settings
        self.name = settings.neo4j_database
        self.driver = neo4j.GraphDatabase.driver(
            settings.bolt_uri,
            auth=(settings.neo4j_user, settings.neo4j_password),
            max_connection_pool_size=max_pool,
            connection_acquisition_timeout=10.0,
            connection_timeout=5.0,
            max_transaction_retry_time=15.0,
            liveness_check_timeout=5.0,
        )
        self.query_hooks: list[QueryHook] = []

    def close(self) -> None:
        self.driver.close()

    @contextmanager
    def _translate(self, what: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        except (ServiceUnavailable, SessionExpired, OSError) as exc:
            raise DatabaseUnavailable(
                f"Neo4j at {self.settings.bolt_uri} is unavailable ({type(exc).__name__}); "
                "retry when it is back"
            ) from exc
        finally:
            elapsed = time.perf_counter() - started
            for hook in self.query_hooks:
                hook(what, elapsed)

    def read(self, name: str, params: Mapping[str, Any] | None = None) -> list[Record]:
        """Run `cypher/<name>.cypher` in a managed read transaction and return all records."""
        query = cypher.load(name)
        with self._translate(name):
            records, _, _ = self.driver.execute_query(
                query,
                parameters_=dict(params or {}),
                database_=self.name,
                routing_=neo4j.RoutingControl.READ,
            )
        return records

    def write(self, name: str, params: Mapping[str, Any] | None = None) -> list[Record]:
        """Run `cypher/<name>.cypher` in a managed (retried) write transaction."""
        query = cypher.load(name)
        with self._translate(name):
            records, _, _ = self.driver.execute_query(
                query,
                parameters_=dict(params or {}),
                database_=self.name,
                routing_=neo4j.RoutingControl.WRITE,
            )
        return records

    def write_tx(self, work: Callable[[ManagedTransaction], T], label: str = "write_tx") -> T:
        """Run several statements as one retried write transaction: all of them or none.

        `work` may be called more than once on retry, so it must not have side effects outside
        the transaction it is given.
        """
        with self._translate(label), self.driver.session(database=self.name) as session:
            return session.execute_write(work)

    def read_tx(self, work: Callable[[ManagedTransaction], T], label: str = "read_tx") -> T:
        with self._translate(label), self.driver.session(database=self.name) as session:
            return session.execute_read(work)

    def ping(self) -> str:
        """The server version; raises DatabaseUnavailable when Neo4j does not answer."""
        with self._translate("ping"):
            records, _, _ = self.driver.execute_query(
                "CALL dbms.components() YIELD versions RETURN versions[0] AS version",
                database_=self.name,
                routing_=neo4j.RoutingControl.READ,
            )
        return str(records[0]["version"])


def run(tx: ManagedTransaction, name: str, **params: Any) -> list[Record]:
    """Run a named query inside a transaction function (for multi-statement writes)."""
    return list(tx.run(cypher.load(name), params))
