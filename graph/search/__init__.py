"""Hybrid search over the facts of a scope (see engine.py for the pipeline)."""

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
