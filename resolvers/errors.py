"""Turn exceptions into GraphQL errors a caller can act on, and never leak a stack trace.

Errors factgraph raises on purpose (`graph.errors.FactgraphError`) keep their message and get
`extensions.code` (and `extensions.field` for bad input). Anything else is logged with its
traceback on the server and reaches the caller as "Internal server error".
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

from graphql import GraphQLError
from strawberry.extensions import SchemaExtension

from graph.errors import FactgraphError, ValidationError

log = logging.getLogger("factgraph.graphql")


def shape(error: GraphQLError) -> GraphQLError:
    original = error.original_error
    if original is None:
        return error  # syntax and validation errors from graphql-core: already clear
    if isinstance(original, GraphQLError):
        return original
    extensions: dict[str, object] = {}
    if isinstance(original, FactgraphError):
        extensions["code"] = original.code
        if isinstance(original, ValidationError):
            extensions["field"] = original.field
        message = str(original)
    else:
        log.error("unexpected error in %s", error.path, exc_info=original)
        extensions["code"] = "INTERNAL_SERVER_ERROR"
        message = "Internal server error"
    return GraphQLError(
        message,
        nodes=error.nodes,
        source=error.source,
        positions=error.positions,
        path=error.path,
        extensions=extensions,
    )


class ShapeErrors(SchemaExtension):
    def on_operation(self) -> Iterator[None]:
        yield
        result = self.execution_context.result
        errors = getattr(result, "errors", None) if result is not None else None
        if result is not None and errors:
            result.errors = [shape(e) for e in errors]

    def on_stream_result(self, result: Any) -> Iterator[None]:
        """The same for each result of a subscription, before it is sent on the socket."""
        errors = getattr(result, "errors", None)
        if errors:
            result.errors = [shape(e) for e in errors]
        yield
