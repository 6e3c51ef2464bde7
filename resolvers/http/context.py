"""How a resolver reaches the memory service, who may use it, and running blocking calls.

`Memory` is synchronous (it is also a plain Python library); resolvers are async and hand each
call to Starlette's thread pool so one slow query never stalls the server.

Access control lives here and only here: GraphQL resolvers call `memory_for(info, scope, role)`,
REST handlers call `authorize_request(request, scope, role)`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, ParamSpec, TypeVar

from starlette.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection, Request
from starlette.types import Scope

from graph.auth.apikeys import KeyStore
from graph.auth.roles import ApiKey, Role, Unauthenticated, check, is_loopback

if TYPE_CHECKING:  # strawberry and the memory are not imported for MCP on stdio before it
    # answers tools/list, and this module is
    from strawberry.types import Info

    from graph.memory import Memory

P = ParamSpec("P")
T = TypeVar("T")


def memory_of(request: HTTPConnection) -> Memory:
    memory: Memory = request.app.state.memory
    return memory


def memory(info: Info) -> Memory:
    return memory_of(info.context["request"])


def memory_for(info: Info, scope: str, role: str = "reader") -> Memory:
    """The memory service, once the caller may act on `scope` with `role`.

    Every resolver that touches a scope goes through here, so access control (API keys bound
    to scopes and a role: reader < writer < admin) is enforced in exactly one place.
    """
    authorize(info.context["request"], scope, role)
    return memory(info)


@dataclass
class Gate:
    """The access-control state of one app: is a key required, and where keys are verified."""

    required: bool
    keys: KeyStore | None = None


def principal_of(request: HTTPConnection) -> ApiKey | None:
    """The verified API key of this request (`request.state.principal`), if any."""
    key: ApiKey | None = getattr(request.state, "principal", None)
    return key


def set_principal(scope: Scope, key: ApiKey) -> None:
    """Store a verified key where `principal_of` (and `request.state.principal`) find it."""
    scope.setdefault("state", {})["principal"] = key


def api_key_of(request: HTTPConnection) -> str | None:
    """The key a caller sent: `Authorization: Bearer <key>`, `Authorization: Token <key>`
    (what mem0's clients send, resolvers/mem0/) or `X-API-Key: <key>`."""
    header = request.headers.get("authorization")
    if header:
        scheme, _, token = header.partition(" ")
        if scheme.lower() in ("bearer", "token"):
            return token.strip() or None
    return request.headers.get("x-api-key") or None


def from_loopback(request: HTTPConnection) -> bool:
    return request.client is not None and is_loopback(request.client.host)


def authorize(request: HTTPConnection, scope: str | None, role: str | Role = "reader") -> None:
    """Raise Unauthenticated (401) or Forbidden (403) unless the caller may use `scope` as `role`.

    The key itself was verified (off the event loop) by `resolvers.http.observe.AuthMiddleware`
    before the request reached any route; this check is pure and costs nothing. With auth off
    (only allowed on a loopback bind) every local caller may do everything, and callers from any
    other address are refused even if the bind address was misreported.
    """
    gate: Gate = request.app.state.gate
    if not gate.required:
        if not from_loopback(request):
            raise Unauthenticated("this server runs without API keys and only answers localhost")
        return
    key = principal_of(request)
    if key is None:
        raise Unauthenticated(
            "an API key is required: send 'Authorization: Bearer <key>' or 'X-API-Key'"
        )
    check(key, scope, role)


def rest_scope(request: Request) -> str:
    """The scope a REST request acts on, so the documented calls (which name none) just work.

    In order: the `X-Scope` header or `?scope=`; else the API key's scope when the key is bound
    to exactly one; else the configured default (`FACTGRAPH_DEFAULT_SCOPE`), which is what a
    key-less loopback caller gets. `authorize` still checks the key may use the scope chosen.
    """
    named = request.headers.get("x-scope") or request.query_params.get("scope")
    if named:
        return named
    key = principal_of(request)
    if key is not None and key.only_scope is not None:
        return key.only_scope
    default: str = request.app.state.default_scope
    return default


def authorize_request(request: Request, scope: str | None, role: str | Role = "reader") -> None:
    """REST's access check: call first thing in a REST handler, before touching `scope`.

    Raises `graph.auth.roles.Unauthenticated` / `Forbidden`; the app's exception handlers turn
    them into 401 / 403 JSON answers (as they turn DatabaseUnavailable into 503), so a handler
    needs no try/except: `authorize_request(request, scope, "writer")`.
    """
    authorize(request, scope, role)


async def call(func: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    return await run_in_threadpool(func, *args, **kwargs)
