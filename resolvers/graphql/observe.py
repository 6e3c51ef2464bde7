"""GraphQL's part of request observation: `Observe` traces each top-level field and counts
pipeline decisions; `HttpStatus` turns access and availability errors into 401 / 403 / 503
instead of a 200 carrying an error. The ASGI middlewares are in `resolvers.http.observe`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from graphql import GraphQLError
from starlette.responses import Response
from strawberry.extensions import FieldExtension, SchemaExtension
from strawberry.types import Info, get_object_definition

from graph.auth.roles import Forbidden, Unauthenticated
from graph.errors import DatabaseUnavailable, FactgraphError
from graph.observability import metrics, tracing
from resolvers.graphql.types import RememberResult

RETRY_AFTER = "5"
_STATUS_OF_CODE = {
    DatabaseUnavailable.code: 503,
    Unauthenticated.code: 401,
    Forbidden.code: 403,
}


def _code(error: GraphQLError) -> str | None:
    original = error.original_error
    if isinstance(original, FactgraphError):
        return original.code
    code = (error.extensions or {}).get("code")
    return code if isinstance(code, str) else None


class HttpStatus(SchemaExtension):
    """401 / 403 / 503 for a GraphQL answer whose errors say so (worst first), else 200."""

    def on_operation(self) -> Iterator[None]:
        yield
        result = self.execution_context.result
        errors = getattr(result, "errors", None) if result is not None else None
        if not errors:
            return
        codes = {_code(e) for e in errors}
        for code, status in sorted(_STATUS_OF_CODE.items(), key=lambda item: -item[1]):
            if code in codes:
                if code in (Unauthenticated.code, Forbidden.code):
                    metrics.AUTH_FAILURES.labels(code).inc()
                response = self.execution_context.context.get("response")
                if isinstance(response, Response):  # not a subscription's WebSocket
                    response.status_code = status
                    if status == 503:  # when to come back, as every interface says it
                        response.headers["Retry-After"] = RETRY_AFTER
                return


def _count_decisions(result: object) -> None:
    if isinstance(result, RememberResult):
        metrics.record_decision(str(result.kind.value))
    elif isinstance(result, list):
        for item in result:
            if isinstance(item, RememberResult):
                metrics.record_decision(str(item.kind.value))


class Observe(FieldExtension):
    """A `graphql.<field>` span around a top-level field; counts pipeline decisions.

    A field extension on the Query and Mutation fields only (`observe_top_level`), not a schema
    extension's `resolve` hook: that hook runs for every field of every result, ~160 of them
    for a search page, where only the top level is traced.
    """

    def resolve(
        self, next_: Callable[..., object], source: object, info: Info, **kwargs: Any
    ) -> object:
        with tracing.span(f"graphql.{info.field_name}"):
            result = next_(source, info, **kwargs)
        _count_decisions(result)
        return result

    async def resolve_async(
        self, next_: Callable[..., Awaitable[object]], source: object, info: Info, **kwargs: Any
    ) -> object:
        with tracing.span(f"graphql.{info.field_name}"):
            result = await next_(source, info, **kwargs)
        _count_decisions(result)
        return result


def observe_top_level(*types: type) -> None:
    """Attach `Observe` to every field of these (Query, Mutation) types, before the schema is
    built from them."""
    for kind in types:
        for field in get_object_definition(kind, strict=True).fields:
            if not any(isinstance(e, Observe) for e in field.extensions):
                field.extensions.append(Observe())
