"""mem0's entity routes: the users, agents, apps and runs holding memories, and deleting one
with all its memories (they are forgotten: their history stays)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from graph.errors import ValidationError
from graph.mem0.entities import KINDS, EntityIds, checked_id
from graph.mem0.filters import equalities
from graph.mem0.reading import Entity
from resolvers.context import call
from resolvers.mem0.http import answer, project_of, route
from resolvers.mem0.memories import QUERY
from resolvers.mem0.requests import known
from resolvers.mem0.shapes import Deleted, EntitiesResponse, entity_record


@route
async def listed(request: Request) -> Response:
    """`GET /v1/entities/`: every id with live memories the key may read, with their count."""
    known(request.query_params, (*QUERY, "page", "page_size"))
    project = project_of(request)
    found: list[Entity] = await call(project.entities)
    records = [entity_record(e, project.namespace) for e in found]
    totals = {kind: sum(1 for e in found if e.kind == kind) for kind in KINDS}
    response: EntitiesResponse = {
        "count": len(records),
        "next": None,
        "previous": None,
        "results": records,
        "total_users": totals["user"],
        "total_agents": totals["agent"],
        "total_apps": totals["app"],
        "total_runs": totals["run"],
    }
    return answer(response)


@route
async def delete(request: Request) -> Response:
    """`DELETE /v2/entities/{entity_type}/{entity_id}/`: forgets every memory carrying the id
    (idempotent: `deleted` says how many were live)."""
    known(request.query_params, QUERY)
    kind = request.path_params["entity_type"]
    if kind not in KINDS:
        raise ValidationError("entity_type", f"must be one of {', '.join(KINDS)}")
    name = checked_id(f"{kind}_id", request.path_params["entity_id"])
    project = project_of(request)
    deleted: int = await call(project.delete_where, equalities(EntityIds(**{kind: name})))
    return answer(Deleted(message="Entity deleted successfully!", deleted=deleted))
