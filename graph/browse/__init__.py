"""Browsing the memory: cheap, read-only ways to look around a scope besides ranked search.

Lexical search (substring, no embedding), the timeline (a cursor-paged, newest-first list of
facts) and a node with its direct neighbours. None of them writes; conversation contexts (what
an agent already holds, to pass as `exclude_ids`) are in `graph.contexts`.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graph.browse.common import ENTITY_PREFIX, entity_id
    from graph.browse.lexical import LexicalHit, lexical_search
    from graph.browse.node import BrowseNode, EntityView, NeighbourRef, get_node
    from graph.browse.paging import DEFAULT_PAGE, TimelineEdge, TimelinePage, timeline

__all__ = [
    "DEFAULT_PAGE",
    "ENTITY_PREFIX",
    "BrowseNode",
    "EntityView",
    "LexicalHit",
    "NeighbourRef",
    "TimelineEdge",
    "TimelinePage",
    "entity_id",
    "get_node",
    "lexical_search",
    "timeline",
]

# Each name loads its module on first use: the readers load the driver, and `factgraph mcp`
# answers tools/list without it.
_HOME = {
    "ENTITY_PREFIX": "graph.browse.common",
    "entity_id": "graph.browse.common",
    "LexicalHit": "graph.browse.lexical",
    "lexical_search": "graph.browse.lexical",
    "BrowseNode": "graph.browse.node",
    "EntityView": "graph.browse.node",
    "NeighbourRef": "graph.browse.node",
    "get_node": "graph.browse.node",
    "DEFAULT_PAGE": "graph.browse.paging",
    "TimelineEdge": "graph.browse.paging",
    "TimelinePage": "graph.browse.paging",
    "timeline": "graph.browse.paging",
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(home), name)
