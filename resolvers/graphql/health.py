"""Service health as GraphQL sees it (the same report as GET /healthz)."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from graph.observability.health import HealthReport, health_report
from resolvers.http.context import call, memory


@strawberry.type
class IndexHealth:
    name: str
    type: str
    state: str
    population_percent: float


@strawberry.type
class Health:
    ok: bool
    neo4j: str
    neo4j_version: str | None
    embedder: str
    indexes: list[IndexHealth]
    detail: str | None

    @classmethod
    def from_report(cls, report: HealthReport) -> Health:
        return cls(
            ok=report.ok,
            neo4j=report.neo4j,
            neo4j_version=report.neo4j_version,
            embedder=report.embedder,
            indexes=[
                IndexHealth(
                    name=i.name, type=i.type, state=i.state, population_percent=i.population_percent
                )
                for i in report.indexes
            ],
            detail=report.detail,
        )


@strawberry.type
class HealthQuery:
    @strawberry.field(description="Is Neo4j reachable, which version, index states, embedder id.")
    async def health(self, info: Info) -> Health:
        return Health.from_report(await call(health_report, memory(info)))
