"""A hit's relevance: the chance that it answers the query, from what the indexes say of it alone.

A logistic model over one candidate's own signals (its vector score, how well its words match
the query's, whether the query names its subject) trained on both development sets by
bench/ranker.py and shipped as relevance.json beside this module. It reads nothing but the
candidate and the query: the word match is the share of the query's stems the fact holds
(graph/search/lexical.py), not Lucene's BM25, whose word weights come from the whole database.
So whatever other tenants write, and whichever other candidates the search has, a fact's
relevance to a query stays the same (tests/test_relevance_scope.py), and a caller can threshold
it (`minScore`): min-max normalised fusion gave the last candidate of every list 0.0, however
good a match.

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
from graph.search.lexical import query_stems, scores
from graph.search.subjects import named, subject_key

FEATURES = (
    "cosine",
    "log_matched",
    "coverage",
    "char_coverage",
    "subject",
    "cosine_squared",
)
# A candidate the query was not embedded for (a FULLTEXT search) counts as orthogonal to it.
NO_COSINE = 0.5
MODEL_FILE = Path(__file__).with_name("relevance.json")


def features(
    *, cosine: float, matched: int, coverage: float, char_coverage: float, subject: bool
) -> list[float]:
    """The model's inputs for one candidate.

    `cosine` is on the vector index's scale, (1 + cos) / 2, as search reads it (a long text's
    best window, graph/search/options.py DEFAULT_CHUNK_DISCOUNT). `matched`: how many of the
    query's word stems the fact holds, `coverage` and `char_coverage` their share of the
    query's stems by number and by length (graph/search/lexical.py): read of the fact and the
    query alone, where Lucene's BM25 weighed each word by every scope's facts and moved one
    scope's relevance with another's writes. More words matched never lower the relevance
    (tests/test_search_units.py): no product with the cosine, which gave a faint word match a
    lower relevance than none. `subject`: the query names this fact's subject
    (graph/search/subjects.py).
    """
    cos = 2.0 * cosine - 1.0
    return [
        cos,
        math.log1p(max(0, matched)),
        max(0.0, coverage),
        max(0.0, char_coverage),
        1.0 if subject else 0.0,
        cos * cos,
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
    query_terms = query_stems(query)
    wanted = found.briefs if only is None else only
    # Which subjects the query names, asked once: each candidate's answer is its own.
    # Only the subjects the query names by name: the relevance model was fit on that feature
    # (a question's asker weighs in the ranking's subject boost alone, graph/search/subjects.py).
    names = named(query, {found.briefs[fid].subject for fid in wanted}, asker=False)
    out: dict[str, float] = {}
    for items in found.lists.values():
        for fid, _ in items:
            if fid in out or (only is not None and fid not in only):
                continue
            brief = found.briefs[fid]
            held, coverage, char_coverage = scores(query_terms, brief.matched)
            x = features(
                cosine=found.cosines.get(fid, NO_COSINE),
                matched=held,
                coverage=coverage,
                char_coverage=char_coverage,
                subject=bool(brief.subject) and subject_key(brief.subject or "") in names,
            )
            out[fid] = active.probability(x)
    return out


def by_relevance(relevance: Mapping[str, float]) -> list[tuple[str, float]]:
    """Candidates best first by relevance; ties keep the order they were first seen in, as the
    other fusions do (MODEL fusion)."""
    place = {fid: i for i, fid in enumerate(relevance)}
    return sorted(relevance.items(), key=lambda pair: (-pair[1], place[pair[0]]))


def logistic(weights: Sequence[float], x: Sequence[float]) -> float:
    """A logistic model's probability: `weights` is the intercept, then one per feature of `x`
    (computed without overflow on either side)."""
    z = weights[0] + sum(w * v for w, v in zip(weights[1:], x, strict=True))
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


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
        return logistic(self.weights, x)

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
