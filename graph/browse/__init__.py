"""Browsing the memory: cheap, read-only ways to look around a scope besides ranked search.

Lexical search (substring, no embedding), the timeline (a cursor-paged, newest-first list of
facts) and a node with its direct neighbours. None of them writes; conversation contexts (what
an agent already holds, to pass as `exclude_ids`) are in `graph.contexts`.
"""

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
