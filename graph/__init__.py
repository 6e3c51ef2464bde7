"""factgraph: long-term memory for AI agents, kept in Neo4j.

The public Python API. Names listed in `__all__` are locked by a test; change them on purpose.
"""

from graph.config import Settings
from graph.errors import (
    Conflict,
    DatabaseUnavailable,
    FactgraphError,
    NotFound,
    SchemaMismatch,
    ValidationError,
)
from graph.memory import Memory
from graph.write.entities import DefaultEntityResolver, EntityResolver, ResolvedEntity, normalise
from graph.write.facts import Decision, DecisionKind, Fact, FactInput, FactStatus

__all__ = [
    "Conflict",
    "DatabaseUnavailable",
    "Decision",
    "DecisionKind",
    "DefaultEntityResolver",
    "EntityResolver",
    "Fact",
    "FactInput",
    "FactStatus",
    "FactgraphError",
    "Memory",
    "NotFound",
    "ResolvedEntity",
    "SchemaMismatch",
    "Settings",
    "ValidationError",
    "normalise",
]
