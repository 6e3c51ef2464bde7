"""Hybrid search over the facts of a scope (see engine.py for the pipeline)."""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graph.search.access import recorder
    from graph.search.engine import rank, search
    from graph.search.fusion import combsum, rrf, weighted_fusion
    from graph.search.lucene import escape, to_lucene
    from graph.search.options import (
        DEFAULT_CHUNK_DISCOUNT,
        DEFAULT_SUBJECT_BOOST,
        DEFAULT_TEXT_MATCH_CHARS,
        Decay,
        Fusion,
        FusionMethod,
        Mode,
        SearchOptions,
        Weights,
    )
    from graph.search.rerank import FusionOrder, Reranker, get_reranker, set_reranker
    from graph.search.types import Hit, ListRank, RelatedFact, SearchResult

__all__ = [
    "DEFAULT_CHUNK_DISCOUNT",
    "DEFAULT_SUBJECT_BOOST",
    "DEFAULT_TEXT_MATCH_CHARS",
    "Decay",
    "Fusion",
    "FusionMethod",
    "FusionOrder",
    "Hit",
    "ListRank",
    "Mode",
    "RelatedFact",
    "Reranker",
    "SearchOptions",
    "SearchResult",
    "Weights",
    "combsum",
    "escape",
    "get_reranker",
    "rank",
    "recorder",
    "rrf",
    "search",
    "set_reranker",
    "to_lucene",
    "weighted_fusion",
]

# Each name loads its module on first use: the engine loads the tokenizer and the driver,
# and `factgraph mcp` answers tools/list without them.
_HOME = {
    "recorder": "graph.search.access",
    "rank": "graph.search.engine",
    "search": "graph.search.engine",
    "combsum": "graph.search.fusion",
    "rrf": "graph.search.fusion",
    "weighted_fusion": "graph.search.fusion",
    "escape": "graph.search.lucene",
    "to_lucene": "graph.search.lucene",
    "DEFAULT_CHUNK_DISCOUNT": "graph.search.options",
    "DEFAULT_SUBJECT_BOOST": "graph.search.options",
    "DEFAULT_TEXT_MATCH_CHARS": "graph.search.options",
    "Decay": "graph.search.options",
    "Fusion": "graph.search.options",
    "FusionMethod": "graph.search.options",
    "Mode": "graph.search.options",
    "SearchOptions": "graph.search.options",
    "Weights": "graph.search.options",
    "FusionOrder": "graph.search.rerank",
    "Reranker": "graph.search.rerank",
    "get_reranker": "graph.search.rerank",
    "set_reranker": "graph.search.rerank",
    "Hit": "graph.search.types",
    "ListRank": "graph.search.types",
    "RelatedFact": "graph.search.types",
    "SearchResult": "graph.search.types",
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(home), name)
