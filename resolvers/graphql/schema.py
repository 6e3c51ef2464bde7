"""The GraphQL schema, assembled from one Query / Mutation class per concern.

`schema.graphql` at the repository root is printed from this object (`factgraph schema print`)
and a test fails when the two differ.
"""

from __future__ import annotations

import strawberry
from graphql import GraphQLError
from strawberry.tools import merge_types
from strawberry.types import ExecutionContext

from resolvers.graphql.access import AccessQuery
from resolvers.graphql.bookmarks import BookmarkExtension
from resolvers.graphql.browse import BrowseMutation, BrowseQuery
from resolvers.graphql.consolidation import ConsolidationMutation, ConsolidationQuery
from resolvers.graphql.errors import ShapeErrors, label, log_errors
from resolvers.graphql.facts import FactMutation, FactQuery
from resolvers.graphql.health import HealthQuery
from resolvers.graphql.keyed import KeyedMutation, KeyedQuery
from resolvers.graphql.limits import graphql_limits
from resolvers.graphql.observe import HttpStatus, observe_top_level
from resolvers.graphql.recall import RecallQuery
from resolvers.graphql.search import SearchQuery
from resolvers.graphql.subscriptions import Subscription

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
    """strawberry's schema, logging errors as `resolvers.graphql.errors.log_errors` says (strawberry
    logs each at ERROR, a client's typo included)."""

    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        label(errors)
        log_errors(errors)


schema = Schema(
    query=Query,
    mutation=Mutation,
    subscription=Subscription,
    extensions=[*graphql_limits(), ShapeErrors, HttpStatus, BookmarkExtension],
)


def print_schema() -> str:
    return schema.as_str() + "\n"
