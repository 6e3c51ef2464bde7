"""Whether anything in the scope answers the query: "nothing here" told from "here it is".

A hit's relevance (graph/search/relevance.py) says how well one fact matches the query, and no
cut of it empties the hits of a question the scope cannot answer: e5's cosines sit in a narrow
band, so in a small scope any fact about the same person clears 0.3, and on BEAM's abstention
questions a `minScore` of 0.8 emptied 2 of 20 while answerable questions lost a quarter of their
evidence hits (issue 63). What tells the two apart is the question's hits as a whole, against
the scope's own band: whether the best hit stands out from the other candidates the vector index
found (the scope's typical cosine for this query), whether the query's words and names occur in
the scope at all, whether the hit that matches the question's words belongs to the person the
question names (LoCoMo's adversarial questions ask one speaker about what the other said), and
whether the lists agree.

A logistic model over those features (weights and the default threshold committed as data in
answerable.json, fit by bench/answerable.py leaving whole conversations out) gives each search
an `answerability`, the chance that the scope answers it, and `answerable`, that chance at the
threshold. It reads only what the ranking already has (the candidate lists with their raw
scores and matched query stems, the hits' relevance): no round trip, a few microseconds.
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from graph.search.candidates import Candidates
from graph.search.lexical import query_stems
from graph.search.subjects import named, subject_key

FEATURES = (
    "top_relevance",
    "top3_relevance",
    "top_cosine",
    "cosine_z",
    "cosine_gap",
    "unmatched",
    "best_coverage",
    "union_coverage",
    "named_gap",
    "agreement",
    "named_cos_gap",
    "named_rel_gap",
    "named_text_top",
)
MODEL_FILE = Path(__file__).with_name("answerable.json")
# How many of the vector list's best a band is read over, and of each list's best the
# agreement compares.
TOP = 10
# The documented default: a search whose answerability is below it answers "nothing here"
# (`answerable` false). Overridden by the threshold answerable.json was written with.
DEFAULT_THRESHOLD = 0.5


def features(query: str, found: Candidates, hits: Sequence[tuple[str, float]]) -> list[float]:
    """One search's inputs to the model: `query` as the lists were asked it, `found` the
    candidates ranked, `hits` the returned hits' ids and relevance, best first."""
    hits = hits[:TOP]  # a thread's 50 hits are read as its first 10
    relevance = sorted((r for _, r in hits), reverse=True)
    top_relevance = relevance[0] if relevance else 0.0
    top3 = sum(relevance[:3]) / 3.0
    band = [2.0 * s - 1.0 for _, s in found.lists.get("vector", ())]
    top_cosine = band[0] if band else 0.0
    if len(band) >= 5:
        spread = statistics.pstdev(band) or 1e-3
        cosine_z = (band[0] - statistics.fmean(band)) / spread
        cosine_gap = band[0] - band[min(TOP, len(band)) - 1]
    else:
        cosine_z = cosine_gap = 0.0
    stems = query_stems(query)
    chars = sum(len(s) for s in stems) or 1
    seen: set[int] = set()
    for brief in found.briefs.values():
        seen.update(brief.matched)
    unmatched = sum(len(s) for i, s in enumerate(stems) if i not in seen) / chars if stems else 0.0
    best_coverage = 0.0
    union: set[int] = set()
    for fid, _ in hits:
        hit = found.briefs.get(fid)
        if hit is None:
            continue
        held = {i for i in hit.matched if 0 <= i < len(stems)}
        union |= held
        best_coverage = max(best_coverage, sum(len(stems[i]) for i in held) / chars)
    union_coverage = sum(len(stems[i]) for i in union) / chars if stems else 0.0
    return [
        top_relevance,
        top3,
        top_cosine,
        cosine_z,
        cosine_gap,
        unmatched,
        best_coverage if stems else 0.0,
        union_coverage,
        named_gap(query, found, stems, chars),
        agreement(found),
        *named_more(query, found, hits),
    ]


def named_more(query: str, found: Candidates, hits: Sequence[tuple[str, float]]) -> list[float]:
    subjects = {b.subject for b in found.briefs.values()}
    names = named(query, subjects, asker=False)
    if len(names) != 1:
        return [0.0, 0.0, 0.0]
    (name,) = names

    def own(fid: str) -> bool:
        b = found.briefs[fid]
        return bool(b.subject) and subject_key(b.subject or "") == name

    cos = {True: 0.0, False: 0.0}
    for fid, c in found.lists.get("vector", ()):
        cos[own(fid)] = max(cos[own(fid)], 2 * c - 1)
    rel = {True: 0.0, False: 0.0}
    for fid, r in hits:
        rel[own(fid)] = max(rel[own(fid)], r)
    text = found.lists.get("fulltext", ())
    top = (1.0 if own(text[0][0]) else -1.0) if text else 0.0
    return [cos[True] - cos[False], rel[True] - rel[False], top]


def named_gap(query: str, found: Candidates, stems: Sequence[str], chars: int) -> float:
    """When the query names one subject of the candidates: how much better the best word match
    among that subject's candidates is than among the others' (negative when another person's
    fact holds the question's words: "what did Caroline realise after her charity race?" in a
    conversation where Melanie ran it). 0 when the query names no subject, or several."""
    subjects = {b.subject for b in found.briefs.values()}
    names = named(query, subjects, asker=False)
    if len(names) != 1 or not stems:
        return 0.0
    (name,) = names
    # The name's own words are left out: a transcript's facts hold their speaker's name.
    named_words = set(name.split())
    rest = {i for i, s in enumerate(stems) if not any(w.startswith(s) for w in named_words)}
    rest_chars = sum(len(stems[i]) for i in rest)
    if not rest_chars:
        return 0.0
    best = {True: 0.0, False: 0.0}
    for brief in found.briefs.values():
        own = bool(brief.subject) and subject_key(brief.subject or "") == name
        held = rest.intersection(brief.matched)
        best[own] = max(best[own], sum(len(stems[i]) for i in held) / rest_chars)
    return best[True] - best[False]


def agreement(found: Candidates) -> float:
    """The share of the vector list's best TOP that the full-text list's best TOP also holds."""
    vector = [fid for fid, _ in found.lists.get("vector", ())[:TOP]]
    text = {fid for fid, _ in found.lists.get("fulltext", ())[:TOP]}
    return sum(fid in text for fid in vector) / TOP if vector else 0.0


@dataclass(frozen=True)
class Answerable:
    """Bias and one weight per feature (FEATURES order), and the threshold of `answerable`."""

    weights: tuple[float, ...]
    threshold: float = DEFAULT_THRESHOLD

    def probability(self, x: Sequence[float]) -> float:
        z = self.weights[0] + sum(w * v for w, v in zip(self.weights[1:], x, strict=True))
        if z >= 0:
            return 1.0 / (1.0 + math.exp(-z))
        e = math.exp(z)
        return e / (1.0 + e)


@cache
def shipped() -> Answerable:
    """The model fit on the development sets (answerable.json, bench/answerable.py --write)."""
    raw = json.loads(MODEL_FILE.read_text(encoding="utf-8"))
    if list(raw["features"]) != list(FEATURES):
        raise ValueError(f"{MODEL_FILE.name} was fit on other features: {raw['features']}")
    coefficients = tuple(float(c) for c in raw["coefficients"])
    if len(coefficients) != len(FEATURES) + 1:
        raise ValueError(f"{MODEL_FILE.name}: expected {len(FEATURES) + 1} coefficients")
    return Answerable(coefficients, float(raw.get("threshold", DEFAULT_THRESHOLD)))


def answerability(
    query: str,
    found: Candidates,
    hits: Sequence[tuple[str, float]],
    model: Answerable | None = None,
) -> float:
    """The chance that the scope answers the query, from one search's candidates and hits. A
    search with no hits at all answers nothing: 0."""
    if not hits:
        return 0.0
    active = model or shipped()
    return round(active.probability(features(query, found, hits)), 4)
