"""The answers Starlette's router gives itself, 404 and 405, in the shape of every other error.

Starlette answers a path that no route serves with a plain-text 404, and a method that the path
does not serve with a plain-text 405 whose `Allow` names the methods of the first route on that
path only: `/v1/memories/` is three routes (GET, POST, DELETE), and a PUT was told `Allow:
POST`. Here both are JSON (GraphQL-shaped on /graphql, with mem0's `detail` on its routes), and
`Allow` lists every method some route serves on the path.
"""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Match, Route

from resolvers.http.observe import error_body, note_error


def allowed_methods(request: Request) -> list[str]:
    """Every method a route of the app serves on the request's path, sorted."""
    methods: set[str] = set()
    for route in request.app.routes:
        if isinstance(route, Route) and route.methods:
            match, _ = route.matches({**request.scope, "method": "OPTIONS", "type": "http"})
            if match is not Match.NONE:
                methods |= route.methods
    return sorted(methods)


async def not_found(request: Request, exc: Exception) -> Response:
    """Starlette's 404, from its router or a route (which may say more than "Not Found")."""
    detail = exc.detail if isinstance(exc, HTTPException) else ""
    if not detail or detail == "Not Found":
        detail = f"no route serves {request.url.path}"
    return _answer(request, 404, "NOT_FOUND", detail)


async def method_not_allowed(request: Request, exc: Exception) -> Response:
    allowed = allowed_methods(request)
    message = f"{request.method} is not served on {request.url.path}; it serves " + ", ".join(
        allowed
    )
    return _answer(request, 405, "METHOD_NOT_ALLOWED", message, {"Allow": ", ".join(allowed)})


def _answer(
    request: Request, status: int, code: str, message: str, headers: dict[str, str] | None = None
) -> Response:
    note_error(code, message)
    body = error_body(request.url.path, code, message, request.scope.get("factgraph.request_id"))
    return Response(body, status_code=status, media_type="application/json", headers=headers)
