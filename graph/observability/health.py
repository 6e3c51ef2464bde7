"""What /healthz reports: Neo4j reachable, its version, index states, the embedder id."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

# typing's TypedDict is not enough for pydantic before Python 3.12, which derives the JSON
# Schema of /healthz from these (resolvers/http/openapi.py).
from typing_extensions import TypedDict

from graph.consolidation.worker import WorkerJson, WorkerState, worker_of
from graph.errors import DatabaseUnavailable
from graph.storage.schema import IndexState, index_states

if TYPE_CHECKING:
    from graph.memory import Memory


class IndexJson(TypedDict):
    """A Neo4j index factgraph uses, and whether it is online."""

    name: str
    type: str
    state: str
    population_percent: float


class HealthJson(TypedDict):
    """The service's health: `ok` is false (and the status 503) when Neo4j is unreachable or
    an index is not online."""

    ok: bool
    neo4j: str
    neo4j_version: str | None
    embedder: str
    indexes: list[IndexJson]
    detail: str | None
    consolidation: WorkerJson | None


@dataclass(frozen=True)
class HealthReport:
    ok: bool
    neo4j: str
    neo4j_version: str | None
    embedder: str
    indexes: list[IndexState] = field(default_factory=list)
    detail: str | None = None
    # The background consolidator of this process (None: not running here, e.g. the CLI).
    # A stalled worker is reported here and in `detail`, but leaves `ok` alone: the service
    # still answers, and a restart by a load balancer would not be the remedy.
    consolidation: WorkerState | None = None

    def as_json(self) -> HealthJson:
        return {
            "ok": self.ok,
            "neo4j": self.neo4j,
            "neo4j_version": self.neo4j_version,
            "embedder": self.embedder,
            "indexes": [
                {
                    "name": i.name,
                    "type": i.type,
                    "state": i.state,
                    "population_percent": i.population_percent,
                }
                for i in self.indexes
            ],
            "detail": self.detail,
            "consolidation": self.consolidation.as_json() if self.consolidation else None,
        }


def health_report(memory: Memory) -> HealthReport:
    try:
        version = memory.db.ping()
        indexes = index_states(memory.db)
    except DatabaseUnavailable as exc:
        return HealthReport(False, "down", None, memory.embedder.id, [], str(exc))
    offline = [i.name for i in indexes if i.state != "ONLINE"]
    problems = [f"indexes not online: {', '.join(offline)}"] if offline else []
    worker = worker_of(memory)
    state = worker.state() if worker is not None else None
    if state is not None and state.stalled:
        problems.append(f"consolidator stalled ({state.queued} facts queued)")
    detail = "; ".join(problems) or None
    return HealthReport(not offline, "up", version, memory.embedder.id, indexes, detail, state)


def unreachable(memory: Memory, within: float) -> HealthReport:
    """The report when Neo4j is known down or did not answer within `within` seconds: made
    without asking it."""
    detail = memory.db.unavailable_detail() or f"Neo4j did not answer within {within:g}s"
    return HealthReport(False, "down", None, memory.embedder.id, [], detail)
