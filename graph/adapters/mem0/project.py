"""A mem0 project on factgraph: the service behind the mem0-compatible routes (resolvers/mem0/).

`Project(memory, namespace, caller)` offers mem0's operations (add, get, update, delete,
history, a filtered list and search, entities, batches, feedback) over the scopes of one
namespace, checking the caller's access to each scope it touches. How mem0's ids map onto
scopes and tags: graph/adapters/mem0/entities.py; the filter grammar:
graph/adapters/mem0/filters.py.
"""

from __future__ import annotations

from graph.adapters.mem0.writing import Writing


class Project(Writing):
    """mem0's reads (graph/adapters/mem0/reading.py) and writes (graph/adapters/mem0/writing.py) on
    one project."""
