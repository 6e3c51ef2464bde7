"""A hit's relevance: the chance that it answers the query, from what the indexes say of it alone.

A logistic model over one candidate's own signals (its vector score, its full-text and passage
BM25 scores, whether the query names its subject) trained on both development sets by
bench/ranker.py and shipped as relevance.json beside this module. Nothing in it depends on the
other candidates of the search, so a caller can threshold it (`minScore`): min-max normalised
fusion gave the last candidate of every list 0.0, however good a match.

It is what every hit reports as `relevance`, whatever the fusion; the default fusion (COMBSUM)
still orders the hits, since each list's min-max standing says how clear a winner is within one
query, which no score of one candidate can: ordered by this model alone, BEAM dev lost two
points of hit@10 (bench/README.md "Recall on both development sets"). MODEL fusion orders by
it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from graph.search.candidates import Candidates
from graph.search.lucene import terms
from graph.search.subjects import named, subject_key

FEATURES = (
    "cosine",
    "log_fulltext",
    "log_passage",
    "fulltext_per_term",
    "passage_per_term",
    "subject",
    "cosine_squared",
    "fulltext_x_passage",
)
# A candidate the query was not embedded for (a FULLTEXT search) counts as orthogonal to it.
NO_COSINE = 0.5
MODEL_FILE = Path(__file__).with_name("relevance.json")


def features(
    *, cosine: float, fulltext: float, passage: float, query_terms: int, subject: bool
) -> list[float]:
    """The model's inputs for one candidate.

    `cosine` is on the vector index's scale, (1 + cos) / 2, as search reads it (a long text's
    best window, graph/search/options.py DEFAULT_CHUNK_DISCOUNT); a BM25 score is 0 where the
    index did not match the fact. BM25 grows with the number of query terms matched, so its
    share per term is given too: a long question's sum is not a better match than a short
    one's. More BM25 never lowers the relevance (tests/test_search_units.py): fits with
    indicators of "matched at all", or products of the cosine and a BM25, gave a faint word
    match, or any match of a near-identical text, a lower relevance than none, and a LangGraph
    store item holding the query word fell below one that did not. Without them the AUCs and
    newer-first stayed as they were (bench/results/ranker.txt). `subject`: the query names
    this fact's subject (graph/search/subjects.py).
    """
    terms_ = max(1, query_terms)
    cos = 2.0 * cosine - 1.0
    ft = math.log1p(max(0.0, fulltext))
    ps = math.log1p(max(0.0, passage))
    return [
        cos,
        ft,
        ps,
        max(0.0, fulltext) / terms_,
        max(0.0, passage) / terms_,
        1.0 if subject else 0.0,
        cos * cos,
        ft * ps,
    ]


def relevances(
    query: str,
    found: Candidates,
    model: Relevance | None = None,
    only: Collection[str] | None = None,
) -> dict[str, float]:
    """Every candidate's relevance, in the order candidates were first seen; with `only`, of
    those candidates alone (a search's ~300 candidates cost ~1 ms, and without a threshold
    only its ~10 hits report one: graph/search/engine.py)."""
    active = model or shipped()
    n_terms = len(terms(query))
    fulltext = dict(found.lists.get("fulltext", ()))
    passage = dict(found.lists.get("passage", ()))
    wanted = found.briefs if only is None else only
    # Which subjects the query names, asked once: each candidate's answer is its own.
    names = named(query, {found.briefs[fid].subject for fid in wanted})
    out: dict[str, float] = {}
    for items in found.lists.values():
        for fid, _ in items:
            if fid in out or (only is not None and fid not in only):
                continue
            subject = found.briefs[fid].subject
            x = features(
                cosine=found.cosines.get(fid, NO_COSINE),
                fulltext=fulltext.get(fid, 0.0),
                passage=passage.get(fid, 0.0),
                query_terms=n_terms,
                subject=bool(subject) and subject_key(subject or "") in names,
            )
            out[fid] = active.probability(x)
    return out


def by_relevance(relevance: Mapping[str, float]) -> list[tuple[str, float]]:
    """Candidates best first by relevance; ties keep the order they were first seen in, as the
    other fusions do (MODEL fusion)."""
    place = {fid: i for i, fid in enumerate(relevance)}
    return sorted(relevance.items(), key=lambda pair: (-pair[1], place[pair[0]]))


@dataclass(frozen=True)
class Relevance:
    """Bias and one weight per feature (FEATURES order)."""

    weights: tuple[float, ...]

    @classmethod
    def of(cls, coefficients: Sequence[float]) -> Relevance:
        if len(coefficients) != len(FEATURES) + 1:
            raise ValueError(f"expected {len(FEATURES) + 1} coefficients, got {len(coefficients)}")
        return cls(tuple(float(c) for c in coefficients))

    def probability(self, x: Sequence[float]) -> float:
        z = self.weights[0] + sum(w * v for w, v in zip(self.weights[1:], x, strict=True))
        if z >= 0:
            return 1.0 / (1.0 + math.exp(-z))
        e = math.exp(z)
        return e / (1.0 + e)

    def to_json(self, **about: Any) -> str:
        return json.dumps(
            {"features": list(FEATURES), "coefficients": list(self.weights), **about}, indent=1
        )


@cache
def shipped() -> Relevance:
    """The model trained on both development sets (relevance.json, bench/ranker.py --write)."""
    raw = json.loads(MODEL_FILE.read_text(encoding="utf-8"))
    if list(raw["features"]) != list(FEATURES):
        raise ValueError(f"{MODEL_FILE.name} was trained on other features: {raw['features']}")
    return Relevance.of(raw["coefficients"])
