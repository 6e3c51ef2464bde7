"""factgraph: long-term memory for AI agents, kept in Neo4j.

The public Python API. Names listed in `__all__` are locked by a test; change them on purpose.
`Memory` (the Neo4j driver, the model runtime) loads on first use of the name, so commands that
need only the settings, such as `factgraph mcp` answering `tools/list`, start without it.
"""

from typing import TYPE_CHECKING, Any

from graph.config import Settings
from graph.errors import (
    Conflict,
    DatabaseUnavailable,
    FactgraphError,
    NotFound,
    SchemaMismatch,
    ValidationError,
)
from graph.write.entities import DefaultEntityResolver, EntityResolver, ResolvedEntity, normalise
from graph.write.facts import Decision, DecisionKind, Fact, FactInput, FactStatus

if TYPE_CHECKING:
    from graph.memory import Memory

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


def __getattr__(name: str) -> Any:
    if name == "Memory":
        from graph.memory import Memory

        return Memory
    raise AttributeError(f"module 'graph' has no attribute {name!r}")
