"""Limits on what one GraphQL document may ask for, so no request can make the server dig deep.

Depth stops nested selections from fanning out (fact -> matched -> ...); aliases stop one
request from repeating an expensive field hundreds of times; tokens bound the parser's work
before any of that is even looked at. The request body itself is bounded by
`resolvers.observe.BodyLimit` (FACTGRAPH_MAX_BODY_BYTES).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

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
