"""Whether anything in the scope answers the query: "nothing here" told from "here it is".

A hit's relevance (graph/search/relevance.py) says how well one fact matches the query, and no
cut of it empties the hits of a question the scope cannot answer: e5's cosines sit in a narrow
band, so in a small scope any fact about the same person clears 0.3, and on BEAM's abstention
questions a `minScore` of 0.8 emptied 2 of 20 while answerable questions lost a quarter of their
evidence hits (issue 63). What tells the two apart is read off the search as a whole: how well
its best hit matches (relevance, cosine), whether the query's words occur in the scope at all
(a word no fact uses is a thing nobody said), how much of the query the hits hold between
them, and whether the facts that hold the question's words belong to the person it names
(LoCoMo's adversarial questions ask one speaker about what the other said).

A logistic model over those features (weights and the default threshold committed as data in
answerable.json, fit by bench/answerable.py leaving whole conversations out) gives each search
an `answerability`, the chance that the scope answers it, and `answerable`, that chance at the
threshold. It reads only what the ranking already has (the candidate lists with their raw
scores and matched query stems, the hits' relevance): no round trip, a fraction of a
millisecond. How far it gets is in bench/README "Nothing here": it falls well short of
catching most unanswerable questions at the default, which keeps 95% of the answerable
questions' evidence hits.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from graph.search.candidates import Candidates
from graph.search.lexical import query_stems, stems
from graph.search.relevance import logistic
from graph.search.subjects import named, subject_key

FEATURES = (
    "top_relevance",
    "top_cosine",
    "unmatched",
    "missing_any",
    "union_coverage",
    "named_below",
    "named_above",
)
# The sign each feature's weight must have (bench/answerable.py `fit`): a better match, more
# of the query found, never lowers the answerability; a word no fact holds never raises it.
SIGNS = (1.0, 1.0, -1.0, -1.0, 1.0, 1.0, 1.0)
MODEL_FILE = Path(__file__).with_name("answerable.json")
# How many hits are read (a thread's 50 as its first 10).
TOP = 10
# Query words whose absence from every candidate says nothing of the scope (`unmatched`): the
# names of months and days (a fact's time is its `validFrom`, seldom its words), and the words
# a request is framed with ("describe", "tell me", "which kind of", "likely"), by their stems.
# Leaving numbers out too moved nothing on the development sets.
_MONTHS = "january february march april may june july august september october november december"
_DAYS = "monday tuesday wednesday thursday friday saturday sunday"
_FRAMING = (
    "describe tell explain mention list give show remind share provide specific kind type sort "
    "exactly besides also ever likely probably approximately thing something anything please"
)
FILLER = frozenset(stems(f"{_MONTHS} {_DAYS} {_FRAMING}".split()))
# The documented default: a search whose answerability is below it answers "nothing here"
# (`answerable` false). answerable.json holds the one in force (bench/answerable.py --write).
DEFAULT_THRESHOLD = 0.5


def features(query: str, found: Candidates, hits: Sequence[tuple[str, float]]) -> list[float]:
    """One search's inputs to the model: `query` as the lists were asked it, `found` the
    candidates ranked, `hits` the returned hits' ids and relevance, best first.

    - `top_relevance`: the best hit's relevance (graph/search/relevance.py);
    - `top_cosine`: the vector list's best cosine. Against the scope's band for this query (its
      z-score among the vector list's candidates, its lead over the tenth) it separated BEAM's
      abstention questions better (AUC 0.83 against 0.64, leaving chats out), but the band of
      a scope of a few facts is nothing like a conversation's, and the model fit on 400-1,200
      facts a scope called every question of an eight-fact scope unanswerable: left out
      (bench/README "Nothing here");
    - `unmatched`: the share of the query's content stems (by length) that no candidate holds,
      and `missing_any`, whether there is one: a word the scope never uses is a thing it was
      never told ("rationale", "criteria" in BEAM's abstention questions);
    - `union_coverage`: the share of the query's stems the hits hold between them;
    - `named_below`, `named_above`: `named_gap` below and above 0, weighed apart (another
      person holding the question's words says more than the named one holding them).
    """
    hits = hits[:TOP]
    top_relevance = max((r for _, r in hits), default=0.0)
    vector = found.lists.get("vector", ())
    top_cosine = 2.0 * vector[0][1] - 1.0 if vector else 0.0
    stems = query_stems(query)
    asked = [i for i, s in enumerate(stems) if s not in FILLER]
    if not stems:
        return [top_relevance, top_cosine, 0.0, 0.0, 0.0, 0.0, 0.0]
    chars = sum(len(s) for s in stems)
    seen: set[int] = set()
    for brief in found.briefs.values():
        seen.update(brief.matched)
    asked_chars = sum(len(stems[i]) for i in asked)
    unmatched = (
        sum(len(stems[i]) for i in asked if i not in seen) / asked_chars if asked_chars else 0.0
    )
    union: set[int] = set()
    for fid, _ in hits:
        hit = found.briefs.get(fid)
        if hit is not None:
            union.update(hit.matched)
    covered = sum(len(s) for i, s in enumerate(stems) if i in union) / chars
    gap = named_gap(query, found, stems)
    return [
        top_relevance,
        top_cosine,
        unmatched,
        1.0 if unmatched > 0 else 0.0,
        covered,
        min(gap, 0.0),
        max(gap, 0.0),
    ]


def named_gap(query: str, found: Candidates, stems: Sequence[str]) -> float:
    """When the query names one subject of the candidates: how much more of the query's other
    words the best-matching fact of that subject holds than the best of anyone else's (by
    length; negative when another person's fact holds them: "what did Caroline realise after
    her charity race?" where Melanie ran it, LoCoMo's adversarial questions). The name's own
    words are left out, since a transcript's facts hold their speaker's name. 0 when the query
    names no subject, or several."""
    names = named(query, {b.subject for b in found.briefs.values()}, asker=False)
    if len(names) != 1:
        return 0.0
    (name,) = names
    words = name.split()
    rest = {i for i, s in enumerate(stems) if not any(w.startswith(s) for w in words)}
    rest_chars = sum(len(stems[i]) for i in rest)
    if not rest_chars:
        return 0.0
    length = {i: len(stems[i]) for i in rest}
    best = {True: 0, False: 0}
    for brief in found.briefs.values():
        if not brief.matched:
            continue
        held = sum(length.get(i, 0) for i in brief.matched)
        own = bool(brief.subject) and subject_key(brief.subject or "") == name
        if held > best[own]:
            best[own] = held
    return (best[True] - best[False]) / rest_chars


@dataclass(frozen=True)
class Answerable:
    """Bias and one weight per feature (FEATURES order), and the threshold of `answerable`."""

    weights: tuple[float, ...]
    threshold: float = DEFAULT_THRESHOLD

    def probability(self, x: Sequence[float]) -> float:
        return logistic(self.weights, x)


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
