"""How well a candidate's words match the query's, from the scope's own candidates alone.

Lucene's BM25 weighs a word by its rarity in the whole full-text index, every scope's facts
together: importing 1,120 messages into another scope moved "what sport does Alice play" from
relevance 0.53 to 0.83 in a scope of three facts, so a threshold meant nothing and one tenant's
writes could be read off another's scores. The relevance model (graph/search/relevance.py)
reads this instead: which of the query's word stems each candidate holds (the candidate query
tests them against the fact's lowercased text, cypher/search_candidates.cypher `matched`), each
stem weighed by its rarity among the search's candidates (BM25's IDF over that pool). The pool
is the scope's own: other scopes' facts never enter it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from graph.search.lucene import terms

# A stem shorter than this is the whole word: "art" must not match "start" nor "article"'s
# "ar" anything.
MIN_STEM = 3
_SUFFIXES = ("ies", "ing", "ed", "es", "s")


def stem(word: str) -> str:
    """A light English stem: "plays", "played", "playing" -> "play" (a prefix the candidate
    query looks for at a word's start, so "play" also finds "player")."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= MIN_STEM:
            return word[: -len(suffix)]
    return word


def stems(words: Iterable[str]) -> list[str]:
    """The stems of a query's content words, each once, in order."""
    out: dict[str, None] = {}
    for word in words:
        out.setdefault(stem(word), None)
    return list(out)


def query_stems(query: str) -> list[str]:
    return stems(terms(query))


def scores(
    query_terms: Sequence[str], matched: Mapping[str, Sequence[int]]
) -> dict[str, tuple[float, float]]:
    """Each candidate's (lexical score, coverage): the summed pool IDF of the query stems it
    holds, and that sum's share of all the query stems' IDF. `matched`: candidate -> the
    indices (in `query_terms`) of the stems its text holds."""
    n = len(matched)
    df = [0] * len(query_terms)
    for held in matched.values():
        for i in held:
            df[i] += 1
    idf = [math.log1p((n - d + 0.5) / (d + 0.5)) for d in df]
    total = sum(idf)
    out: dict[str, tuple[float, float]] = {}
    for fid, held in matched.items():
        score = sum(idf[i] for i in set(held))
        out[fid] = (score, score / total if total > 0 else 0.0)
    return out
