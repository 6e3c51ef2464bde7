"""The graph list: the candidates the graph of terms finds (graph/reading/), fused with the rest.

The query is read by the reader that read every fact when it was written: its names, topics
and identifiers find the facts that mention them, weighted by how specific each term is in the
scope, and the best hits of every list spread to the facts that share their specific terms
and their turns (cypher/search_terms.cypher). It finds the other messages of one story when
they share its topics but not the question's words. Asked only when `fusion.terms` weighs it
(an extra round trip of its own); see bench/README.md "The graph list" for what it gains.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any

from graph.reading import read, terms
from graph.search.candidates import Brief, Candidates, filter_params, shares
from graph.search.lexical import stems
from graph.search.options import SearchOptions
from graph.storage.db import Database
from graph.write.entities import DefaultEntityResolver

# A term mentioned by more facts than this says little and costs much: skipped.
MAX_DF = 400
# Each term is followed to at most this many facts (its most recent mentions first).
FANOUT = 200
# Seeds: the best SEEDS of the full-text and vector lists each, and of the direct hits.
SEEDS = 5
# What one hop keeps of a seed's activation, and what a neighbouring turn keeps of that.
DECAY = 0.5
TURN_DECAY = 0.3
TURNS = 1

_RESOLVER = DefaultEntityResolver()


def query_terms(query: str) -> list[dict[str, Any]]:
    """The query's names, topics and identifiers, keyed as the facts' were."""
    reading = read(query, with_standing=False)
    return [{"canonical": t.canonical, "weight": t.weight} for t in terms(reading, _RESOLVER)]


def with_terms(
    db: Database,
    scope: str,
    query: str,
    found: Candidates,
    options: SearchOptions,
    now: datetime,
    lucene: str,
    vector: list[float] | None,
) -> Candidates:
    """`found` with the graph list ("terms") added, and the briefs of the facts only it found."""
    wanted = query_terms(query)
    seeds: dict[str, float] = {}
    for name in ("fulltext", "vector"):
        for rank, (fid, _) in enumerate(found.lists.get(name, ())[:SEEDS], start=1):
            seeds[fid] = max(seeds.get(fid, 0.0), 1.0 / rank)
    if not wanted and not seeds:
        return found
    params = filter_params(scope, options, now)
    params.update(
        g={
            "terms": wanted,
            "seeds": [{"id": fid, "a": a} for fid, a in seeds.items()],
            "stems": stems(lucene.split()),
        },
        live=max(shares.share(db, scope).live, 1),
        max_df=MAX_DF,
        fanout=FANOUT,
        seed_count=SEEDS,
        decay=DECAY,
        turn_decay=TURN_DECAY,
        turns=TURNS,
        k=options.candidate_top_k,
        vector=vector,
    )
    record = db.read_fast("search_terms", params)[0]
    listed = [(str(x["id"]), float(x["score"])) for x in record["terms"]]
    if not listed:
        return found
    briefs = dict(found.briefs)
    cosines = dict(found.cosines)
    facts = dict(found.facts)
    for node in record["facts"]:
        fid = str(node["id"])
        if fid not in briefs:
            briefs[fid] = Brief.from_map(node)
        if node.get("cosine") is not None and fid not in cosines:
            cosines[fid] = float(node["cosine"])
    missing = [fid for fid, _ in listed if found.facts and fid not in facts]
    if missing:
        listed = [(fid, score) for fid, score in listed if fid not in missing]
    return dataclasses.replace(
        found, lists={**found.lists, "terms": listed}, briefs=briefs, cosines=cosines
    )
