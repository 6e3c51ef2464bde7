"""What a search returns: hits that explain themselves, and related facts."""

from __future__ import annotations

from dataclasses import dataclass, field

from graph.search.options import Weights
from graph.write.facts import Fact


@dataclass(frozen=True)
class ListRank:
    """Where a hit stood in one candidate list: its 1-based rank and the index's raw score."""

    list: str
    rank: int
    score: float


@dataclass(frozen=True)
class Hit:
    """A ranked fact and every part of its score.

    `score` = composite(share, importance / 10, recency) * decay orders the hits; the `share`
    is the fused (or reranked) score divided by the best one in this search (with the subject
    boost), or the relevance itself under MODEL fusion: with the search's weights, a person
    adds the parts up to the score. `relevance` is the relevance model's chance that the fact
    answers the query, from the fact and the query alone (graph/search/relevance.py), whatever
    the fusion: what `min_score` thresholds. A hit moved up by the newer-first rule
    (graph/search/newer.py) takes the score of the hit it moved above, whose id is `updates`.
    """

    fact: Fact
    score: float
    relevance: float
    fused: float
    share: float
    importance: float
    recency: float
    decay: float
    sources: tuple[ListRank, ...]
    updates: str | None = None


@dataclass(frozen=True)
class Scored:
    """A ranked candidate before its whole fact is at hand: `Hit` without `fact`."""

    id: str
    score: float
    relevance: float
    fused: float
    share: float
    importance: float
    recency: float
    decay: float
    sources: tuple[ListRank, ...]

    def hit(self, fact: Fact) -> Hit:
        return Hit(
            fact=fact,
            score=self.score,
            relevance=self.relevance,
            fused=self.fused,
            share=self.share,
            importance=self.importance,
            recency=self.recency,
            decay=self.decay,
            sources=self.sources,
        )


@dataclass(frozen=True)
class RelatedFact:
    """A fact surfaced beside the hits: `reason` is "turn_window" or "shared_tag"."""

    fact: Fact
    reason: str
    hit_id: str


@dataclass(frozen=True)
class StandingFact:
    """A standing instruction or preference that bears on the query (graph/search/standing.py):
    `similarity` is its vector's to the query's, on the index's scale ((1 + cosine) / 2)."""

    fact: Fact
    similarity: float


@dataclass(frozen=True)
class SearchResult:
    query: str
    hits: list[Hit] = field(default_factory=list)
    related: list[RelatedFact] = field(default_factory=list)
    # The standing instructions and preferences that bear on the query, closest first, apart
    # from the hits: what an agent puts in its prompt (graph/search/standing.py).
    standing: list[StandingFact] = field(default_factory=list)
    lucene: str = ""
    # The composite score's weights this search used: a hit's parts add up to its score.
    weights: Weights = field(default_factory=Weights)
    timings_ms: dict[str, float] = field(default_factory=dict)
    # Whether anything in the scope answers the query (graph/search/answerable.py): the chance
    # that it does, from the search's candidates and hits, and that chance at the documented
    # threshold. False with no hits; "nothing here" when false, whatever the hits.
    answerability: float = 0.0
    answerable: bool = False
