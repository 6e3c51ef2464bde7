"""What every mem0 route shares: the project a request works on, the caller's access, reading
the body, and answering errors the way mem0's clients read them.

The project (mem0's `project_id`) is a namespace of scopes, `<project>/user:alice`, ...
(graph/adapters/mem0/entities.py). A request names it with the `X-Scope` header or `?scope=` (as
every REST call may), or with mem0's `project_id` (the 1.x client sends the one /v1/ping/ told it);
else it is the key's: a key bound to `acme/*` alone works on project `acme`; else
FACTGRAPH_DEFAULT_SCOPE (`default`), which a key-less loopback caller gets. Each scope the
request touches is then checked against the key (`resolvers.http.context.authorize`), so a key
bound to `acme/*` (or `*`) reaches every user of the project.

Errors answer `{"detail": message, "error": {code, message, field, reason}}`: mem0's clients
raise with `detail`; the status is 400 for bad input (nothing was written), 401, 403, 404,
409 or 503.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from graph.adapters.mem0 import Caller, Project, locate
from graph.adapters.mem0.base import ACTOR
from graph.adapters.mem0.entities import namespace_prefix, owner_scope
from graph.auth.roles import (
    ANY_SCOPE,
    PREFIX_GRANT,
    SCOPE_FORBIDDEN,
    ApiKey,
    Forbidden,
    granted_covers,
)
from graph.errors import Conflict, DatabaseUnavailable, FactgraphError, NotFound, ValidationError
from resolvers.http.context import authorize, call, memory_of, principal_of
from resolvers.http.observe import note_error
from resolvers.http.openapi import Param, Reply, described
from resolvers.mem0.bodies import PROJECT_PARAMS
from resolvers.mem0.shapes import Mem0ErrorBody

log = logging.getLogger("factgraph.mem0")

Handler = Callable[[Request], Awaitable[Response]]
TAG = "mem0"
BAD_INPUT = Reply(
    "Bad input: `error.field` names the field as it was sent (`filters.AND[1].colour`) and "
    "`error.reason` what is wrong with it; `detail` says both. Nothing was written.",
    Mem0ErrorBody,
)
NOT_FOUND = Reply("No memory with this id in the project, or it was deleted.", Mem0ErrorBody)

_STATUS: tuple[tuple[type[FactgraphError], int], ...] = (
    (ValidationError, 400),
    (NotFound, 404),
    (Conflict, 409),
    (DatabaseUnavailable, 503),
)


def named_project(request: Request, body: Mapping[str, Any] | None = None) -> Any:
    """The project the request names itself (header, query or body), if any."""
    return (
        request.headers.get("x-scope")
        or request.query_params.get("scope")
        or request.query_params.get("project_id")
        or (body or {}).get("project_id")
    )


def project_name(request: Request, body: Mapping[str, Any] | None = None) -> str:
    """The project a request works on (see the module's docstring)."""
    named = named_project(request, body)
    if named is not None:
        if not isinstance(named, str) or not named.strip():
            raise ValidationError("project_id", "must be a non-empty string")
        return named
    key = principal_of(request)
    if key is not None and len(key.scopes) == 1 and key.scopes[0] != ANY_SCOPE:
        granted = key.scopes[0]
        return granted.removesuffix(PREFIX_GRANT)
    default: str = request.app.state.default_scope
    return default


def project_of(
    request: Request, body: Mapping[str, Any] | None = None, *, name: str | None = None
) -> Project:
    """The caller's project; Unauthenticated first when the request may not be served at all,
    and Forbidden, before anything is looked up, for a key that reaches none of its scopes (so
    that nothing is learnt of another project's memories, not even that an id exists)."""
    authorize(request, None, "reader")
    key = principal_of(request)
    name = name or project_name(request, body)
    if key is not None and not reaches(key, name):
        raise Forbidden(SCOPE_FORBIDDEN)
    return Project(
        memory_of(request),
        name,
        Caller(
            lambda scope, role: authorize(request, scope, role),
            actor=key.id if key is not None else ACTOR,
        ),
    )


async def project_of_memory(
    request: Request, memory_id: Any, body: Mapping[str, Any] | None = None
) -> Project:
    """The project of a call on a memory by id. A call that names no project works on the
    project holding the memory, when the key reaches it: mem0's clients send no `project_id`
    with feedback and batches, whichever project they were made for. Otherwise (or when no
    reachable project holds it) as `project_of`, where the memory is then not found."""
    authorize(request, None, "reader")
    if named_project(request, body) is None:
        found: str | None = await call(locate, memory_of(request), memory_id)
        key = principal_of(request)
        if found is not None and (key is None or reaches(key, found)):
            return project_of(request, body, name=found)
    return project_of(request, body)


def reaches(key: ApiKey, project: str) -> bool:
    """Whether the key may use some scope of the project (all of them, or some owners')."""
    prefix = namespace_prefix(project)
    return any(
        granted_covers(granted, owner_scope(project, "user", "*")) or granted.startswith(prefix)
        for granted in key.scopes
    )


async def json_body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if not raw.strip():
        return {}
    try:
        body = await request.json()
    except ValueError:
        raise ValidationError("body", "is not valid JSON") from None
    if not isinstance(body, dict):
        raise ValidationError("body", "must be a JSON object")
    return body


def answer(data: Any, status: int = 200) -> Response:
    return JSONResponse(data, status_code=status)


def error_response(exc: FactgraphError) -> Response:
    """mem0's error answer; the code is noted for the request's access-log line (INFO), and
    only an error with no status of its own is logged at ERROR."""
    status = getattr(exc, "http_status", None) or next(
        (code for kind, code in _STATUS if isinstance(exc, kind)), 500
    )
    message = str(exc) if status != 500 else "Internal server error"
    if status == 500:
        log.error("unexpected %s", type(exc).__name__, exc_info=exc)
    note_error(exc.code, str(exc))
    error: dict[str, Any] = {"code": exc.code, "message": message}
    if isinstance(exc, ValidationError):
        error.update(field=exc.field, reason=exc.reason)
    headers = {"Retry-After": "5"} if status == 503 else None
    return JSONResponse({"detail": message, "error": error}, status_code=status, headers=headers)


def mem0_described(
    summary: str,
    *,
    operation_id: str,
    replies: Mapping[int, Reply],
    body: Any = None,
    params: Iterable[Param] = PROJECT_PARAMS,
    description: str | None = None,
) -> Callable[[Handler], Handler]:
    """`described` for a mem0 route: every one may answer 400, and errors carry `detail`.
    `operation_id` is the one mem0's own OpenAPI document gives the route."""
    return described(
        summary,
        tag=TAG,
        body=body,
        params=params,
        replies={400: BAD_INPUT, **replies},
        description=description,
        operation_id=operation_id,
        errors=Mem0ErrorBody,
    )


def route(work: Handler) -> Handler:
    """A handler whose FactgraphError becomes mem0's error answer."""

    async def handle(request: Request) -> Response:
        try:
            return await work(request)
        except FactgraphError as exc:
            return error_response(exc)

    handle.__name__ = work.__name__
    handle.__doc__ = work.__doc__
    return handle
