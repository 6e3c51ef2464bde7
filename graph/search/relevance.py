"""A hit's relevance: the chance that it answers the query, from what the indexes say of it alone.

A logistic model over one candidate's own signals (its vector's cosine to the query's, its
full-text and passage BM25 scores, the query's number of content words) trained on both
development sets by bench/ranker.py and shipped as relevance.json beside this module. It
replaces min-max normalised fusion for two reasons measured there: a score that depends only on
the fact and the query can be thresholded (min-max gave the last candidate of every list 0.0,
however good a match), and one fixed model did not lose to the best single list on either set,
where COMBSUM lost to the vector list on BEAM's long technical messages.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
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
    "fulltext_standing",
    "vector_standing",
    "passage_standing",
)
# A candidate the query was not embedded for (a FULLTEXT search) counts as orthogonal to it.
NO_COSINE = 0.5
MODEL_FILE = Path(__file__).with_name("relevance.json")


def features(
    *,
    cosine: float,
    fulltext: float,
    passage: float,
    query_terms: int,
    subject: bool,
    standing: Sequence[float] = (0.0, 0.0, 0.0),
) -> list[float]:
    """The model's inputs for one candidate.

    `cosine` is on the vector index's scale, (1 + cos) / 2; a BM25 score is 0 where the index
    did not match the fact. BM25 grows with the number of query terms matched, so its share
    per term is given too: a long question's sum is not a better match than a short one's.
    `subject`: the query names this fact's subject, and no other candidate's
    (graph/search/subjects.py): on LoCoMo 96% of such questions' evidence is that subject's.
    `standing`: where the candidate stands in the full-text, vector and passage lists, min-max
    (1 for a list's best, 0 for its last or where it is absent), as COMBSUM reads them. The
    scores alone do not say how clear a winner is across queries: without these the model lost
    to COMBSUM on both development sets, and shares of the best instead of min-max lost about a
    point on each (bench/README.md "Recall on both development sets"). This is what makes a
    hit's relevance depend on the other candidates of its lists.
    """
    terms_ = max(1, query_terms)
    return [
        2.0 * cosine - 1.0,
        math.log1p(max(0.0, fulltext)),
        math.log1p(max(0.0, passage)),
        max(0.0, fulltext) / terms_,
        max(0.0, passage) / terms_,
        1.0 if subject else 0.0,
        *standing,
    ]


STANDING_LISTS = ("fulltext", "vector", "passage")


def standings(lists: Mapping[str, Sequence[tuple[str, float]]]) -> dict[str, list[float]]:
    """Each candidate's min-max standing in each of STANDING_LISTS (0 where absent)."""
    out: dict[str, list[float]] = {}
    for i, name in enumerate(STANDING_LISTS):
        items = lists.get(name, ())
        if not items:
            continue
        values = [score for _, score in items]
        low, high = min(values), max(values)
        for fid, score in items:
            row = out.setdefault(fid, [0.0, 0.0, 0.0])
            row[i] = max(row[i], 1.0 if high <= low else (score - low) / (high - low))
    return out


def scored(
    query: str, found: Candidates, model: Relevance | None = None
) -> list[tuple[str, float]]:
    """Every candidate with its relevance, best first; ties keep the order candidates were first
    seen in (list order, then rank), as the other fusions do."""
    active = model or shipped()
    n_terms = len(terms(query))
    fulltext = dict(found.lists.get("fulltext", ()))
    passage = dict(found.lists.get("passage", ()))
    order: dict[str, None] = {}
    for items in found.lists.values():
        order.update((fid, None) for fid, _ in items)
    names = named(query, (found.briefs[fid].subject for fid in order))
    the_one = next(iter(names)) if len(names) == 1 else None
    stand = standings(found.lists)
    out = []
    for fid in order:
        subject = found.briefs[fid].subject
        x = features(
            cosine=found.cosines.get(fid, NO_COSINE),
            fulltext=fulltext.get(fid, 0.0),
            passage=passage.get(fid, 0.0),
            query_terms=n_terms,
            subject=the_one is not None and subject is not None and subject_key(subject) == the_one,
            standing=stand.get(fid, (0.0, 0.0, 0.0)),
        )
        out.append((fid, active.probability(x)))
    place = {fid: i for i, fid in enumerate(order)}
    return sorted(out, key=lambda pair: (-pair[1], place[pair[0]]))


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
