"""mem0's entity routes: the users, agents, apps and runs holding memories, and deleting one
with all its memories (they are forgotten: their history stays)."""

from __future__ import annotations

from typing import Literal

from starlette.requests import Request
from starlette.responses import Response

from graph.adapters.mem0.entities import KINDS, EntityIds, checked_id
from graph.adapters.mem0.filters import equalities
from graph.adapters.mem0.reading import Entity
from graph.errors import ValidationError
from resolvers.http.context import call
from resolvers.http.openapi import Identifier, Param, Reply
from resolvers.mem0.bodies import (
    MAX_PAGE,
    MAX_PAGE_SIZE,
    PAGE_PARAMS,
    PROJECT_PARAMS,
    query_names,
)
from resolvers.mem0.http import answer, mem0_described, project_of, route
from resolvers.mem0.memories import QUERY
from resolvers.mem0.requests import integer, known
from resolvers.mem0.shapes import Mem0Deleted, Mem0Entities, entity_record

# graph.adapters.mem0.entities.KINDS, as the document's enum.
EntityType = Literal["user", "agent", "app", "run"]
ENTITY_PARAMS = (
    *PROJECT_PARAMS,
    Param("entity_type", "path", f"One of {', '.join(KINDS)}.", EntityType, required=True),
    Param(
        "entity_id",
        "path",
        "The id (`alice`); it may hold `/` (`team/alice`, or `team%2Falice` decoded once).",
        Identifier,
        required=True,
    ),
)


@mem0_described(
    "List users, agents, apps and runs",
    operation_id="entities_list",
    params=(*PROJECT_PARAMS, *PAGE_PARAMS),
    replies={200: Reply("Every one, with the count of its live memories.", Mem0Entities)},
    description="Every id with live memories the key may read (one page: `page` and "
    "`page_size` are accepted). Needs the `reader` role.",
)
@route
async def listed(request: Request) -> Response:
    """`GET /v1/entities/`: every id with live memories the key may read, with their count."""
    known(request.query_params, query_names((*PROJECT_PARAMS, *PAGE_PARAMS)))
    integer(request.query_params, "page", 1, 1, MAX_PAGE)  # one page: checked, then all
    integer(request.query_params, "page_size", MAX_PAGE_SIZE, 1, MAX_PAGE_SIZE)
    project = project_of(request)
    found: list[Entity] = await call(project.entities)
    records = [entity_record(e, project.namespace) for e in found]
    totals = {kind: sum(1 for e in found if e.kind == kind) for kind in KINDS}
    response: Mem0Entities = {
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


@mem0_described(
    "Delete a user, agent, app or run",
    operation_id="entities_delete",
    params=ENTITY_PARAMS,
    replies={200: Reply("Forgotten: `deleted` says how many were live.", Mem0Deleted)},
    description="Forgets every memory carrying the id (idempotent; their history stays). "
    "Needs the `writer` role.",
)
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
    return answer(Mem0Deleted(message="Entity deleted successfully!", deleted=deleted))
