"""The errors factgraph raises on purpose, each carrying a message fit for a user.

The GraphQL and REST layers turn these into clear responses; anything else is a bug and is
reported as an internal error without details.
"""

from __future__ import annotations


class FactgraphError(Exception):
    """Base of the errors whose message is safe and useful to show a caller."""

    code = "FACTGRAPH_ERROR"


class ValidationError(FactgraphError):
    """Input was refused before anything was written; `field` names the culprit."""

    code = "BAD_USER_INPUT"

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


class NotFound(FactgraphError):
    code = "NOT_FOUND"


class Conflict(FactgraphError):
    """The operation does not apply to the fact's current state (e.g. validating an active fact)."""

    code = "CONFLICT"


class DatabaseUnavailable(FactgraphError):
    """Neo4j cannot be reached; the service answers 503 and recovers when it returns."""

    code = "DATABASE_UNAVAILABLE"


class SchemaMismatch(FactgraphError):
    """The stored schema does not fit this build (e.g. the embedding model changed)."""

    code = "SCHEMA_MISMATCH"
