"""Limits on what one GraphQL document may ask for, so no request can make the server dig deep.

Depth stops nested selections from fanning out (fact -> matched -> ...); aliases stop one
request from repeating an expensive field hundreds of times; tokens bound the parser's work
before any of that is even looked at. The request body itself is bounded by
`resolvers.observe.BodyLimit` (FACTGRAPH_MAX_BODY_BYTES).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from cross_web import HTTPException
from strawberry.asgi import GraphQL
from strawberry.extensions import (
    MaxAliasesLimiter,
    MaxTokensLimiter,
    QueryDepthLimiter,
    SchemaExtension,
)

MAX_DEPTH = 10
MAX_ALIASES = 30
MAX_TOKENS = 5_000


def graphql_limits() -> list[Callable[[], SchemaExtension]]:
    return [
        partial(MaxTokensLimiter, max_token_count=MAX_TOKENS),
        partial(QueryDepthLimiter, max_depth=MAX_DEPTH),
        partial(MaxAliasesLimiter, max_alias_count=MAX_ALIASES),
    ]


class GuardedGraphQL(GraphQL[Any, Any]):
    """strawberry's ASGI view, answering 400 (not 500) to JSON bodies that are not objects.

    strawberry assumes a parsed body is an object or a batch list; `null`, `5` or `"x"` made it
    raise AttributeError deep inside. Anything the parser cannot take is a client error.
    """

    async def parse_http_body(self, request: Any) -> Any:
        try:
            return await super().parse_http_body(request)
        except (AttributeError, TypeError, KeyError) as exc:
            raise HTTPException(
                400, "the request body must be a JSON object with a `query` string"
            ) from exc
