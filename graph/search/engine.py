"""Hybrid search: candidates from Neo4j's indexes, fusion, reranking, scoring, expansion.

One Cypher query fetches every candidate list (search_candidates.cypher) with a brief of each
candidate (or its whole fact, when a reranker needs to read it), the passage list by default
as a second, concurrent one (candidates.fetch_overlapped); fusion, the reranker and
the composite score are Python over those few dozen; a second round trip fetches the top-k hits'
whole facts and the related facts (turn window, shared tags) together. Access bookkeeping is
queued for a background writer, and the conversation context (if named) is recorded before
returning so that the next call of the agent sees it.
"""

from __future__ import annotations

import contextvars
import dataclasses
import importlib
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import TypeVar

from graph.clock import Clock, system_clock
from graph.observability import tracing
from graph.platform.embedding import Embedder
from graph.search import access, answerable, newer
from graph.search.candidates import Candidates, fetch, fetch_overlapped, missing_cosines
from graph.search.frames import summary, topic
from graph.search.fusion import combsum, weighted_fusion
from graph.search.graph_list import with_terms
from graph.search.lucene import to_lucene
from graph.search.options import (
    MAX_CANDIDATE_TOP_K,
    THREAD_CANDIDATES,
    FusionMethod,
    Mode,
    SearchOptions,
    check_query,
)
from graph.search.related import finish
from graph.search.relevance import by_relevance, relevances
from graph.search.rerank import FusionOrder, Reranker, get_reranker
from graph.search.scoring import composite, decay_factor, normalise, recency
from graph.search.standing import bearing
from graph.search.subjects import boosted, first_person
from graph.search.types import Hit, ListRank, Scored, SearchResult
from graph.storage.db import Database
from graph.storage.wire import Vector
from graph.write.validation import check_scope

T = TypeVar("T")
# Runs the standing statements' query beside the hits' (search); a worker only waits on Neo4j.
_STANDING = ThreadPoolExecutor(max_workers=32, thread_name_prefix="search-standing")


def search(
    db: Database,
    embedder: Embedder,
    scope: str,
    query: str,
    options: SearchOptions,
    *,
    clock: Clock = system_clock,
    reranker: Reranker | None = None,
    overlap: bool = False,
) -> SearchResult:
    """`overlap`: a search with passages asks the passage list concurrently with the embedding
    and the other lists (candidates.fetch_overlapped); off, one query asks all of them after
    the embedding."""
    check_scope(scope)
    check_query(query)
    if not query.strip():
        return SearchResult(query=query)
    if options.thread:
        options = threaded(options)
    timings: dict[str, float] = {}
    now = clock()
    # What the lists are asked: the query, or its topic when it is framed as an ordering, a
    # summary or a span of conversations (graph/search/frames.py). Ranking reads the query.
    told = topic(query) if options.frames else query
    # Whether the question names its asker (graph/search/subjects.py), told from all of it.
    # A summary wants both sides of the conversation (graph/search/frames.py).
    asker = options.asker and first_person(query) and not (options.frames and summary(query))
    lucene = to_lucene(told) if options.mode is not Mode.VECTOR else ""
    active = reranker or get_reranker()
    full = _reads_facts(active)
    every = reads_every_relevance(options, active)

    embedded: list[list[float]] = []

    def embed() -> list[float] | None:
        if options.mode is Mode.FULLTEXT:
            return None
        vector = _timed(timings, "embed", lambda: Vector(embedder.embed_query(told.strip())))
        embedded.append(vector)
        return vector

    if overlap and lucene and options.passages:
        found = _timed(
            timings,
            "candidates",
            lambda: fetch_overlapped(
                db,
                scope,
                options,
                lucene=lucene,
                embed=embed,
                now=now,
                full=full,
                every_cosine=every,
            ),
        )
        if embedded and every:
            # The passage half was asked before the embedding: its own candidates' cosines,
            # which their relevance reads (graph/search/relevance.py).
            asked, query_vector = found, embedded[0]
            found = _timed(
                timings,
                "cosines",
                lambda: missing_cosines(db, scope, asked, query_vector, options.chunk_discount),
            )
    else:
        vector = embed()
        if not lucene and vector is None:
            return SearchResult(query=query, lucene=lucene, timings_ms=timings)
        found = _timed(
            timings,
            "candidates",
            lambda: fetch(
                db,
                scope,
                options,
                lucene=lucene,
                vector=vector,
                now=now,
                full=full,
                every_cosine=every,
            ),
        )
    if options.fusion.terms > 0:
        before = found
        terms_vector = embedded[0] if embedded else None
        found = _timed(
            timings,
            "terms",
            lambda: with_terms(db, scope, told, before, options, now, lucene, terms_vector),
        )
    top = order(told, found, options, now, active, options.top_k, asker)
    # Without `every`, a hit that the vector list did not find has its vector score read here,
    # and its relevance made again with it (order gave it NO_COSINE's).
    unscored = None if every or not embedded else embedded[0]
    # The standing statements' query needs only the query's vector: asked on a worker while
    # this thread asks for the hits' facts, so its round trip (~1 ms) overlaps theirs.
    standing = (
        _STANDING.submit(
            contextvars.copy_context().run,
            bearing,
            db,
            scope,
            embedded[0],
            now,
            query=query,
            limit=options.standing_limit,
            model=embedder.id,
        )
        if embedded and options.standing_limit
        else None
    )
    try:
        done = _timed(
            timings, "facts", lambda: finish(db, scope, top, found, options, now, unscored)
        )
    finally:
        standing_facts = standing.result() if standing is not None else []
    hits, extra = done.hits, done.related
    if done.cosines:
        hits = rescored(told, found, hits, done.cosines)
    if options.thread:
        hits = sorted(hits, key=said)
    elif options.newer_first:
        hits = newer.first(hits)
    # Whether anything here answers: read off the candidates and hits already at hand.
    chance = answerable.answerability(told, found, [(h.fact.id, h.relevance) for h in hits])
    ids = [h.fact.id for h in hits]
    if options.track_access:
        access.recorder(db).record(scope, ids, now)
    if options.context_id is not None:
        _record_context(db, scope, options.context_id, ids, clock)
    return SearchResult(
        query=query,
        hits=hits,
        related=extra,
        standing=standing_facts,
        lucene=lucene,
        weights=options.weights,
        timings_ms=timings,
        answerability=chance,
        answerable=chance >= answerable.shipped().threshold,
    )


def threaded(options: SearchOptions) -> SearchOptions:
    """A thread's options: a pool deep enough for its many pieces, each list asked for at
    least twice the hits (THREAD_CANDIDATES at least)."""
    depth = max(options.candidate_top_k, THREAD_CANDIDATES, 2 * options.top_k)
    return dataclasses.replace(options, candidate_top_k=min(depth, MAX_CANDIDATE_TOP_K))


def said(hit: Hit) -> tuple[datetime, int, str, int, datetime]:
    """When a hit was said: its validity, then its session (session "9" before "10") and
    turn, then when it was recorded."""
    fact = hit.fact
    session = fact.session_id or ""
    return (
        fact.valid_from,
        int(session) if session.isdigit() else -1,
        session,
        fact.turn if fact.turn is not None else -1,
        fact.recorded_at,
    )


def rank(
    query: str, found: Candidates, options: SearchOptions, now: datetime, reranker: Reranker
) -> list[Hit]:
    """Fuse the lists, let the reranker reorder, and score each candidate; best first.

    Needs the candidates' whole facts: `found` must come from `fetch(..., full=True)`.
    """
    return [s.hit(found.facts[s.id]) for s in order(query, found, options, now, reranker)]


def order(
    query: str,
    found: Candidates,
    options: SearchOptions,
    now: datetime,
    reranker: Reranker,
    limit: int | None = None,
    asker: bool | None = None,
) -> list[Scored]:
    """`rank` without the facts: the default reranker keeps the fused order, so the candidates'
    briefs are enough, and only the hits that are returned need their whole fact.

    Every candidate is scored, since the composite can lift one from far down the fused list;
    only the best `limit` (all, without one) are built into `Scored`, with the lists that found
    them: for a search's ~100 candidates and 10 hits that halves the ranking's time.
    """
    calibrated = options.fusion.method is FusionMethod.MODEL
    thresholded = options.min_score > 0
    # `asker`: whether the question names its asker; None tells from `query` itself.
    asker = asker if options.asker else False
    # A threshold or MODEL fusion reads every candidate's relevance; otherwise only the hits
    # returned report one, made below for them alone (the same value: it depends on nothing
    # else in the pool).
    relevance = relevances(query, found) if thresholded or calibrated else {}
    fused = fuse(query, found, options, relevance)
    if not _reads_facts(reranker):
        reranked = fused
    elif not fused:
        reranked = []
    else:
        if not found.facts:
            raise ValueError(f"reranker {reranker.name!r} reads facts: fetch with full=True")
        pairs = [(found.facts[fid], score) for fid, score in fused]
        reranked = [(fact.id, score) for fact, score in reranker.rerank(query, pairs)]
    if not reranked:
        return []
    briefs = found.briefs
    scores = [score for _, score in reranked]
    # What the composite score orders by: the model's relevance itself under MODEL (and a
    # reranker's score that answers on the same scale), else the fused (or reranked) score as
    # a share of this search's best, with the subject boost. A hit reports its relevance, which
    # depends on nothing else in the pool, whatever orders it.
    if calibrated and all(0.0 <= score <= 1.0 for score in scores):
        standings = scores
    else:
        standings = boosted(
            query,
            [briefs[fid].subject for fid, _ in reranked],
            normalise(scores),
            options.subject_boost,
            asker,
        )
    tau = options.decay.tau_days if options.decay is not None else options.recency_tau_days
    decay = options.decay
    weights = options.weights
    # (-score, place in the reranked order, ...): sorting these tuples is best first, ties kept
    # in reranked order; `place` is unique, so the comparison never reaches the id.
    rows: list[tuple[float, int, str, float, float, float, float]] = []
    for place, ((fid, fused_score), standing) in enumerate(zip(reranked, standings, strict=True)):
        if thresholded and relevance[fid] < options.min_score:
            continue
        brief = briefs[fid]
        rec = recency(brief, now, tau)
        factor = decay_factor(brief, now, decay.tau_days) if decay is not None else 1.0
        score = composite(standing, brief.importance, rec, weights) * factor
        rows.append((-score, place, fid, fused_score, standing, rec, factor))
    rows.sort()
    chosen = rows if limit is None else rows[:limit]
    wanted = {row[2] for row in chosen}
    if not relevance:
        relevance = relevances(query, found, only=wanted)
    sources = _sources(found, wanted)
    return [
        Scored(
            id=fid,
            score=-negated,
            relevance=relevance[fid],
            fused=fused_score,
            share=standing,
            importance=briefs[fid].importance / 10.0,
            recency=rec,
            decay=factor,
            sources=sources.get(fid, ()),
        )
        for negated, _, fid, fused_score, standing, rec, factor in chosen
    ]


def reads_every_relevance(options: SearchOptions, reranker: Reranker) -> bool:
    """Whether a search reads the relevance of every candidate, not only of the hits it
    returns: a threshold (`min_score`) drops candidates by it and MODEL fusion orders by it; a
    reranker that reads the facts has them all at hand. Otherwise only the returned hits
    report one, and the vector scores it needs are read for them alone (~8 ms p50 less at
    100,000 facts, bench/README "Recall on both development sets")."""
    return (
        options.min_score > 0
        or options.fusion.method is FusionMethod.MODEL
        or _reads_facts(reranker)
    )


def rescored(
    query: str,
    found: Candidates,
    hits: list[Hit],
    cosines: dict[str, float],
) -> list[Hit]:
    """The hits whose vector score came after ordering (`cosines`), with their relevance made
    with it: what the relevance would have been had every candidate's score been read."""
    relevance = relevances(
        query,
        dataclasses.replace(found, cosines={**found.cosines, **cosines}),
        only=cosines,
    )
    return [
        dataclasses.replace(hit, relevance=relevance[hit.fact.id])
        if hit.fact.id in cosines
        else hit
        for hit in hits
    ]


def fuse(
    query: str, found: Candidates, options: SearchOptions, relevance: dict[str, float]
) -> list[tuple[str, float]]:
    """The candidate lists fused as the options say, best first (MODEL: by `relevance`)."""
    fusion = options.fusion
    if fusion.method is FusionMethod.MODEL:
        return by_relevance(relevance)
    if fusion.method is FusionMethod.COMBSUM:
        return combsum(found.lists, fusion.weights(), text_factors(found, options.text_match_chars))
    ids = {name: [fid for fid, _ in items] for name, items in found.lists.items()}
    return weighted_fusion(ids, fusion.weights(), k=fusion.k)


def text_factors(found: Candidates, chars: int) -> dict[str, dict[str, float]]:
    """The full-text and passage lists' terms of facts longer than `chars`, scaled by
    chars / length: a long message holds many words by chance, and its match stood as high in
    a list as a short message's that holds the answer (options.DEFAULT_TEXT_MATCH_CHARS)."""
    if chars <= 0:
        return {}
    out: dict[str, dict[str, float]] = {}
    for name in ("fulltext", "passage"):
        long = {
            fid: chars / found.briefs[fid].chars
            for fid, _ in found.lists.get(name, ())
            if found.briefs[fid].chars > chars
        }
        if long:
            out[name] = long
    return out


def _reads_facts(reranker: Reranker) -> bool:
    """Every reranker but the default reads the candidates' facts (their text, at least)."""
    return type(reranker) is not FusionOrder


def _sources(found: Candidates, wanted: set[str]) -> dict[str, tuple[ListRank, ...]]:
    """Where each `wanted` candidate stood in each list that found it."""
    out: dict[str, list[ListRank]] = {}
    for name, items in found.lists.items():
        for rank_, (fid, raw) in enumerate(items, start=1):
            if fid in wanted:
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
    """Time a stage for the result's `timings_ms`, and trace it (graph/observability/tracing.py)."""
    started = time.perf_counter()
    try:
        with tracing.span(f"search.{name}"):
            return work()
    finally:
        timings[name] = (time.perf_counter() - started) * 1000.0
