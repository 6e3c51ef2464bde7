"""Turn exceptions into GraphQL errors a caller can act on, and never leak a stack trace.

Errors factgraph raises on purpose (`graph.errors.FactgraphError`) keep their message and get
`extensions.code` (and `extensions.field` for bad input). graphql-core's own get a code by the
stage that raised them: GRAPHQL_PARSE_FAILED (syntax), GRAPHQL_VALIDATION_FAILED (the document
against the schema, literal arguments included) and BAD_USER_INPUT (variable values that do not
coerce to their declared types: a null for `String!`, a number for a string). Anything else
is logged with its traceback on the server and reaches the caller as "Internal server error".

Logging is `log_errors`, in place of strawberry's, which wrote every error at ERROR: a
client's typo (a syntax error, an empty scope) is the request's one INFO access-log line with
its code (`resolvers.http.observe.note_error`); ERROR is kept for the service's own faults.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

from graphql import GraphQLError, GraphQLSyntaxError
from strawberry.extensions import SchemaExtension

from graph.errors import FactgraphError, ValidationError
from resolvers.http.observe import note_error

log = logging.getLogger("factgraph.graphql")


def is_fault(error: GraphQLError) -> bool:
    """Whether the service got this wrong: an exception nobody raised on purpose. Syntax,
    validation and coercion errors (graphql-core's and strawberry's) and FactgraphErrors are
    the caller's to fix, or say that the service is unavailable."""
    original = error.original_error
    return original is not None and not isinstance(original, FactgraphError | GraphQLError)


def code_of(error: GraphQLError) -> str:
    """The code a caller or an operator knows this error by (`extensions.code` once shaped)."""
    original = error.original_error
    if isinstance(original, FactgraphError):
        return original.code
    code = (error.extensions or {}).get("code")
    if isinstance(code, str):
        return code
    if is_fault(error):
        return "INTERNAL_SERVER_ERROR"
    if isinstance(error, GraphQLSyntaxError):
        return "GRAPHQL_PARSE_FAILED"
    if original is None and not error.nodes and not error.path:
        # graphql-core's variable coercion: the only errors that point at no place in the
        # document (validation points at the node, execution at the path).
        return "BAD_USER_INPUT"
    return "GRAPHQL_VALIDATION_FAILED"


def log_errors(errors: list[GraphQLError]) -> None:
    """Each fault once at ERROR with its traceback; the request's first error noted (code and
    message) for its access-log line."""
    for error in errors:
        if is_fault(error):
            log.error("unexpected error in %s", error.path, exc_info=error.original_error)
    if errors:
        note_error(code_of(errors[0]), errors[0].message)


def label(errors: list[GraphQLError]) -> None:
    """Give graphql-core's own errors their code in place: a parse error reaches the caller
    without passing `ShapeErrors` (strawberry answers it before the operation's hooks end)."""
    for error in errors:
        if error.original_error is None and not isinstance(
            (error.extensions or {}).get("code"), str
        ):
            error.extensions = {**(error.extensions or {}), "code": code_of(error)}


def shape(error: GraphQLError) -> GraphQLError:
    original = error.original_error
    if isinstance(original, GraphQLError):
        return shape(original)
    if original is None:  # syntax, validation and coercion errors from graphql-core
        if isinstance((error.extensions or {}).get("code"), str):
            return error
        return GraphQLError(
            error.message,
            nodes=error.nodes,
            source=error.source,
            positions=error.positions,
            path=error.path,
            extensions={**(error.extensions or {}), "code": code_of(error)},
        )
    extensions: dict[str, object] = {}
    if isinstance(original, FactgraphError):
        extensions["code"] = original.code
        if isinstance(original, ValidationError):
            extensions["field"] = original.field
        message = str(original)
    else:  # logged by log_errors, before the errors were shaped
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
