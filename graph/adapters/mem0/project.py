"""A mem0 project on factgraph: the service behind the mem0-compatible routes (resolvers/mem0/).

`Project(memory, namespace, caller)` offers mem0's operations (add, get, update, delete,
history, a filtered list and search, entities, batches, feedback) over the scopes of one
namespace, checking the caller's access to each scope it touches. How mem0's ids map onto
scopes and tags: graph/adapters/mem0/entities.py; the filter grammar:
graph/adapters/mem0/filters.py.
"""

from __future__ import annotations

from graph.adapters.mem0 import store
from graph.adapters.mem0.entities import namespace_of_scope
from graph.adapters.mem0.writing import Writing
from graph.memory import Memory
from graph.write.validation import check_clean


class Project(Writing):
    """mem0's reads (graph/adapters/mem0/reading.py) and writes (graph/adapters/mem0/writing.py) on
    one project."""


def locate(memory: Memory, memory_id: str) -> str | None:
    """The project holding a memory, found by its id alone (a unique-id seek), for calls that
    name no project: mem0's clients send none with feedback and batches. None when no project
    holds it; the caller's access is checked by the Project it then builds."""
    if not isinstance(memory_id, str) or not memory_id.strip():
        return None
    check_clean("memory_id", memory_id)
    scope = store.fact_scope(memory.db, "", memory_id)
    return namespace_of_scope(scope) if scope is not None else None
