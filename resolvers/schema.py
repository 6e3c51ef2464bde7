"""The GraphQL schema, assembled from one Query / Mutation class per concern.

`schema.graphql` at the repository root is printed from this object (`factgraph schema print`)
and a test fails when the two differ.
"""

from __future__ import annotations

import strawberry
from graphql import GraphQLError
from strawberry.tools import merge_types
from strawberry.types import ExecutionContext

from resolvers.access import AccessQuery
from resolvers.bookmarks import BookmarkExtension
from resolvers.browse import BrowseMutation, BrowseQuery
from resolvers.consolidation import ConsolidationMutation, ConsolidationQuery
from resolvers.errors import ShapeErrors, log_errors
from resolvers.facts import FactMutation, FactQuery
from resolvers.health import HealthQuery
from resolvers.keyed import KeyedMutation, KeyedQuery
from resolvers.limits import graphql_limits
from resolvers.observe import HttpStatus, observe_top_level
from resolvers.recall import RecallQuery
from resolvers.search import SearchQuery
from resolvers.subscriptions import Subscription

Query = merge_types(
    "Query",
    (
        HealthQuery,
        AccessQuery,
        FactQuery,
        SearchQuery,
        RecallQuery,
        BrowseQuery,
        ConsolidationQuery,
        KeyedQuery,
    ),
)
Mutation = merge_types(
    "Mutation", (FactMutation, BrowseMutation, ConsolidationMutation, KeyedMutation)
)
observe_top_level(Query, Mutation)


class Schema(strawberry.Schema):
    """strawberry's schema, logging errors as `resolvers.errors.log_errors` says (strawberry
    logs each at ERROR, a client's typo included)."""

    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        log_errors(errors)


schema = Schema(
    query=Query,
    mutation=Mutation,
    subscription=Subscription,
    extensions=[*graphql_limits(), ShapeErrors, HttpStatus, BookmarkExtension],
)


def print_schema() -> str:
    return schema.as_str() + "\n"
