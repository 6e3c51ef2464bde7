"""mem0's platform API on factgraph's memory service: ids, filters, reads and writes.

The HTTP routes are in resolvers/mem0/; docs/mem0.md says how mem0's ids and filters map.
"""

from graph.adapters.mem0.base import Caller
from graph.adapters.mem0.project import Project, locate

__all__ = ["Caller", "Project", "locate"]
