"""How well a candidate's words match the query's, from the candidate and the query alone.

Lucene's BM25 weighs a word by its rarity in the whole full-text index, every scope's facts
together: importing 1,120 messages into another scope moved "what sport does Alice play" from
relevance 0.53 to 0.83 in a scope of three facts, so a threshold meant nothing and one tenant's
writes could be read off another's scores. The relevance model (graph/search/relevance.py)
reads this instead: which of the query's word stems the candidate's text holds (the candidate
query tests them against the fact's lowercased text, cypher/search_candidates.cypher `matched`),
as a count and as shares of the query's stems, by number and by length (a long word says more
than a short one). No statistics of any collection enter it, neither the database's nor the
search's other candidates': a fact's match to a query is the same in every store and in every
pool. Weighing the stems by their rarity among the search's own candidates (BM25's IDF over the
pool) was the other way to keep other scopes out; it made a hit's relevance move when the
options changed the pool (excludeIds, candidateTopK).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

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


def scores(query_terms: Sequence[str], matched: Sequence[int]) -> tuple[int, float, float]:
    """A candidate's match: how many of the query's stems its text holds, their share of the
    query's stems, and their share of the stems' characters. `matched`: the indices (in
    `query_terms`) of the stems the text holds."""
    held = {i for i in matched if 0 <= i < len(query_terms)}
    if not query_terms:
        return 0, 0.0, 0.0
    chars = sum(len(t) for t in query_terms)
    return (
        len(held),
        len(held) / len(query_terms),
        sum(len(query_terms[i]) for i in held) / chars,
    )
