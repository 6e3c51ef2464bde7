"""`GET /v1/ping/`: what mem0's clients call when they are constructed, to check the key and
learn the project it works on (`project_id`), which the 1.x client then sends with every call.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from graph.adapters.mem0.entities import namespace_prefix, owner_scope
from graph.auth.roles import Forbidden
from resolvers.http.context import authorize, principal_of
from resolvers.http.openapi import Reply
from resolvers.mem0.http import answer, mem0_described, project_name, reaches, route
from resolvers.mem0.memories import QUERY
from resolvers.mem0.requests import known
from resolvers.mem0.shapes import Mem0Ping

ORGANISATION = "factgraph"


@mem0_described(
    "Check the key",
    operation_id="ping_read",
    replies={200: Reply("The key works: the project it works on.", Mem0Ping)},
    description="What mem0's clients call when constructed. A key that reaches no scope of "
    "the project answers 403 with the `factgraph keys create` line that would make one.",
)
@route
async def ping(request: Request) -> Response:
    known(request.query_params, QUERY)
    authorize(request, None, "reader")
    project = project_name(request)
    key = principal_of(request)
    if key is not None and not reaches(key, project):
        raise Forbidden(
            f"this API key reaches no scope of project {project!r}, whose users live in scopes "
            f"{owner_scope(project, 'user', '<id>')!r}: create one with "
            f"`factgraph keys create --scope '{namespace_prefix(project)}*'`"
        )
    label = key.label if key is not None else None
    email = label if label is not None and "@" in label else None
    return answer(
        Mem0Ping(
            status="ok",
            message=f"factgraph serves mem0's API for project {project!r}",
            org_id=ORGANISATION,
            project_id=project,
            user_email=email,
        )
    )
