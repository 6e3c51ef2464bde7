"""Hybrid search: candidates from Neo4j's indexes, fusion, reranking, scoring, expansion.

One Cypher round trip fetches every candidate list (search_candidates.cypher); fusion, the
reranker and the composite score are Python over those few dozen facts; a second round trip
only happens when related facts (turn window, shared tags) are wanted and possible. Access
bookkeeping is queued for a background writer, and the conversation context (if named) is
recorded before returning so that the next call of the agent sees it.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from datetime import datetime
from typing import TypeVar

from graph import tracing
from graph.clock import Clock, system_clock
from graph.db import Database
from graph.embedding import Embedder
from graph.facts import Fact
from graph.search import access
from graph.search.candidates import Candidates, fetch
from graph.search.fusion import weighted_fusion
from graph.search.lucene import to_lucene
from graph.search.options import Mode, SearchOptions, check_query
from graph.search.related import related
from graph.search.rerank import Reranker, get_reranker
from graph.search.scoring import composite, decay_factor, normalise, recency
from graph.search.types import Hit, ListRank, SearchResult
from graph.validation import check_scope

T = TypeVar("T")


def search(
    db: Database,
    embedder: Embedder,
    scope: str,
    query: str,
    options: SearchOptions,
    *,
    clock: Clock = system_clock,
    reranker: Reranker | None = None,
) -> SearchResult:
    check_scope(scope)
    check_query(query)
    if not query.strip():
        return SearchResult(query=query)
    timings: dict[str, float] = {}
    now = clock()
    lucene = to_lucene(query) if options.mode is not Mode.VECTOR else ""
    vector: list[float] | None = None
    if options.mode is not Mode.FULLTEXT:
        vector = _timed(timings, "embed", lambda: list(embedder.embed_query(query.strip())))
    if not lucene and vector is None:
        return SearchResult(query=query, lucene=lucene, timings_ms=timings)
    found = _timed(
        timings,
        "candidates",
        lambda: fetch(db, scope, options, lucene=lucene, vector=vector, now=now),
    )
    hits = rank(query, found, options, now, reranker or get_reranker())
    hits = hits[: options.top_k]
    extra = _timed(timings, "related", lambda: related(db, scope, hits, options, now))
    ids = [h.fact.id for h in hits]
    if options.track_access:
        access.recorder(db).record(scope, ids, now)
    if options.context_id is not None:
        _record_context(db, scope, options.context_id, ids, clock)
    return SearchResult(query=query, hits=hits, related=extra, lucene=lucene, timings_ms=timings)


def rank(
    query: str, found: Candidates, options: SearchOptions, now: datetime, reranker: Reranker
) -> list[Hit]:
    """Fuse the lists, let the reranker reorder, and score each candidate; best first."""
    ranked = {name: [fid for fid, _ in items] for name, items in found.lists.items()}
    fused = weighted_fusion(ranked, options.fusion.weights(), k=options.fusion.k)
    pairs: list[tuple[Fact, float]] = [(found.facts[fid], score) for fid, score in fused]
    reranked = reranker.rerank(query, pairs) if pairs else []
    if not reranked:
        return []
    sources = _sources(found)
    relevances = normalise([score for _, score in reranked])
    tau = options.decay.tau_days if options.decay is not None else options.recency_tau_days
    hits: list[Hit] = []
    for (fact, fused_score), relevance in zip(reranked, relevances, strict=True):
        rec = recency(fact, now, tau)
        factor = (
            decay_factor(fact, now, options.decay.tau_days) if options.decay is not None else 1.0
        )
        score = composite(relevance, fact.importance, rec, options.weights) * factor
        hits.append(
            Hit(
                fact=fact,
                score=score,
                relevance=relevance,
                fused=fused_score,
                importance=fact.importance / 10.0,
                recency=rec,
                decay=factor,
                sources=sources.get(fact.id, ()),
            )
        )
    order = {hit.fact.id: i for i, hit in enumerate(hits)}
    hits.sort(key=lambda h: (-h.score, order[h.fact.id]))
    return hits


def _sources(found: Candidates) -> dict[str, tuple[ListRank, ...]]:
    out: dict[str, list[ListRank]] = {}
    for name, items in found.lists.items():
        for rank_, (fid, raw) in enumerate(items, start=1):
            out.setdefault(fid, []).append(ListRank(name, rank_, raw))
    return {fid: tuple(ranks) for fid, ranks in out.items()}


def _record_context(
    db: Database, scope: str, context_id: str, ids: list[str], clock: Clock
) -> None:
    """Hand the returned ids to the conversation context (graph/contexts.py), if installed."""
    try:
        contexts = importlib.import_module("graph.contexts")
    except ModuleNotFoundError:
        return
    contexts.record_recall(db, scope, context_id, ids, clock=clock)


def _timed(timings: dict[str, float], name: str, work: Callable[[], T]) -> T:
    """Time a stage for the result's `timings_ms`, and trace it (graph/tracing.py)."""
    started = time.perf_counter()
    try:
        with tracing.span(f"search.{name}"):
            return work()
    finally:
        timings[name] = (time.perf_counter() - started) * 1000.0
