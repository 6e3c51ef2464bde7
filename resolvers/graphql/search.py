"""GraphQL `search`: typed options in, explained hits and related facts out.

All ranking lives in `graph.search`; this module converts inputs and outputs and renames the
fields of validation errors to their GraphQL spelling (top_k -> topK).
"""

from __future__ import annotations

import dataclasses
import enum
import re
from datetime import datetime
from typing import Any

import strawberry
from graphql import FieldNode
from strawberry.types import Info

from graph import search as domain
from graph.errors import ValidationError
from resolvers.graphql.types import Fact
from resolvers.http.context import call, memory_for


@strawberry.enum(description="Which candidate lists a search uses.")
class SearchMode(enum.Enum):
    HYBRID = "hybrid"
    FULLTEXT = "fulltext"
    VECTOR = "vector"


@strawberry.enum(
    description="COMBSUM (the default without a fusion input): sum of each list's min-max "
    "normalised scores, times its weight. MODEL: by each candidate's relevance, the relevance "
    "model's chance that it answers the query (docs/search.md). RRF: sum of 1 / (k + rank), "
    "every list weighing 1. WEIGHTED: RRF with the list weights."
)
class SearchFusionMethod(enum.Enum):
    MODEL = "model"
    RRF = "rrf"
    WEIGHTED = "weighted"
    COMBSUM = "combsum"


@strawberry.input(
    description="Fusion of the candidate lists. Without this input a search uses COMBSUM; an "
    "input without a method is RRF, so `{k: 60}` is the reciprocal rank fusion of old."
)
class SearchFusionInput:
    method: SearchFusionMethod = SearchFusionMethod.RRF
    k: int = 60
    fulltext: float = 1.0
    vector: float = 1.0
    graph: float = 1.0
    passage: float = 1.0


@strawberry.input(description="Weights of the composite score (a weighted average).")
class SearchWeightsInput:
    relevance: float = 1.0
    importance: float = 1.0
    recency: float = 1.0


@strawberry.input(description="Multiply scores by strength * exp(-days since last access / tau).")
class SearchDecayInput:
    tau_days: float


@strawberry.input(description="Everything a search can be asked; every field has a default.")
class SearchOptionsInput:
    top_k: int = strawberry.field(default=10, description="Hits returned, 1..100.")
    candidate_top_k: int = strawberry.field(default=60, description="Candidates per list.")
    mode: SearchMode = SearchMode.HYBRID
    fusion: SearchFusionInput | None = None
    weights: SearchWeightsInput | None = None
    decay: SearchDecayInput | None = None
    partitions: list[str] | None = None
    tags: list[str] | None = strawberry.field(default=None, description="Facts must carry all.")
    include_quarantined: bool = False
    as_of: datetime | None = strawberry.field(
        default=None, description="Facts valid then (superseded ones included)."
    )
    exclude_ids: list[strawberry.ID] | None = None
    expand_hops: int = strawberry.field(default=0, description="1: fuse in entity neighbours.")
    prev_turns: int = 0
    next_turns: int = 0
    related_limit: int = strawberry.field(default=10, description="Facts sharing tags, at most.")
    context_id: str | None = strawberry.field(
        default=None, description="Remember the returned ids as this context's recall."
    )
    passages: bool = strawberry.field(
        default=True, description="Also rank each turn with its neighbours (a passage list)."
    )
    subject_boost: float = strawberry.field(
        default=domain.DEFAULT_SUBJECT_BOOST,
        description="COMBSUM, RRF and WEIGHTED: added to the relevance of facts whose subject "
        "the query names (0: off). MODEL weighs the subject itself.",
    )
    chunk_discount: float = strawberry.field(
        default=domain.DEFAULT_CHUNK_DISCOUNT,
        description="Subtracted from a later window's vector score of a long text before it "
        "competes with the text's first window (0..1; 0: the best window counts as it is).",
    )
    text_match_chars: int = strawberry.field(
        default=domain.DEFAULT_TEXT_MATCH_CHARS,
        description="COMBSUM: a full-text or passage match counts in full for a fact of up "
        "to this many characters, and in proportion beyond (0: every match in full).",
    )
    newer_first: bool = strawberry.field(
        default=True,
        description="Among the hits, a newer statement (session date, then turn) of the same "
        "subject that says what changed ranks above an older one, when both answer the query.",
    )
    min_score: float = strawberry.field(
        default=0.0,
        description="Leave out hits whose relevance is below this (0..1; 0 keeps all).",
    )
    standing_limit: int = strawberry.field(
        default=5,
        description="At most this many standing instructions and preferences that bear on "
        "the query come back in `standing` (0..20; 0: none).",
    )
    asker: bool = strawberry.field(
        default=True,
        description="A question in the first person (I, my, me) names its asker: in a "
        "transcript stored with speaker roles, the `user`'s messages get the subject boost "
        "over the assistant's replies.",
    )
    frames: bool = strawberry.field(
        default=True,
        description="A question framed as an ordering, a summary or a span of conversations "
        '("list the order in which I brought up ... across our conversations") asks the '
        "full-text and vector lists with its topic alone.",
    )
    thread: bool = strawberry.field(
        default=False,
        description="Return the thread of the query's topic: the topK facts that bear on it "
        "most, from a deeper pool, in the order they were said (valid from, session, turn).",
    )

    def to_domain(self) -> domain.SearchOptions:
        values: dict[str, Any] = {
            "top_k": self.top_k,
            "candidate_top_k": self.candidate_top_k,
            "mode": self.mode.value,
            "partitions": self.partitions,
            "tags": self.tags,
            "include_quarantined": self.include_quarantined,
            "as_of": self.as_of,
            "exclude_ids": [str(i) for i in self.exclude_ids] if self.exclude_ids else None,
            "expand_hops": self.expand_hops,
            "prev_turns": self.prev_turns,
            "next_turns": self.next_turns,
            "related_limit": self.related_limit,
            "context_id": self.context_id,
            "passages": self.passages,
            "subject_boost": self.subject_boost,
            "chunk_discount": self.chunk_discount,
            "text_match_chars": self.text_match_chars,
            "newer_first": self.newer_first,
            "min_score": self.min_score,
            "standing_limit": self.standing_limit,
            "thread": self.thread,
            "asker": self.asker,
            "frames": self.frames,
        }
        if self.fusion is not None:
            f = self.fusion
            values["fusion"] = {
                "method": f.method.value,
                "k": f.k,
                "fulltext": f.fulltext,
                "vector": f.vector,
                "graph": f.graph,
                "passage": f.passage,
            }
        if self.weights is not None:
            w = self.weights
            values["weights"] = {
                "relevance": w.relevance,
                "importance": w.importance,
                "recency": w.recency,
            }
        if self.decay is not None:
            values["decay"] = {"tau_days": self.decay.tau_days}
        return domain.SearchOptions.build(**values)


@strawberry.type(description="A hit's place in one candidate list.")
class SearchListRank:
    list: str = strawberry.field(description="fulltext, passage, vector or graph.")
    rank: int
    score: float = strawberry.field(description="The index's raw score.")


@strawberry.type(description="A ranked fact and why: score = composite * decay.")
class SearchHit:
    fact: Fact
    score: float = strawberry.field(
        description="What the hits are ordered by: the fused score's share of the best (the "
        "relevance under MODEL) weighed with importance and recency, times decay."
    )
    relevance: float = strawberry.field(
        description="The relevance model's chance, 0..1, that the fact answers the query, from "
        "the fact and the query alone (whatever the fusion; MODEL orders by it). minScore "
        "compares it."
    )
    fused: float = strawberry.field(
        description="The fused (or reranked) score of the candidate lists, on their own scale."
    )
    share: float = strawberry.field(
        description="What the composite weighs beside importance and recency: fused as a share "
        "of the best in this search, with the subject boost (the relevance under MODEL). "
        "score = (weights.relevance * share + weights.importance * importance + "
        "weights.recency * recency) / (sum of the weights) * decay, unless `updates` is set."
    )
    importance: float = strawberry.field(description="importance / 10.")
    recency: float = strawberry.field(
        description="exp(-days since last access / tau): 1 for a fact used just now."
    )
    decay: float = strawberry.field(description="strength * recency with a decay input; else 1.")
    sources: list[SearchListRank]
    updates: strawberry.ID | None = strawberry.field(
        description="Newer-first: the older hit this one updates (same subject, says what "
        "changed), moved above it with that hit's score; null when its own parts make its score."
    )

    @classmethod
    def from_domain(cls, hit: domain.Hit) -> SearchHit:
        return cls(
            fact=Fact.from_domain(hit.fact),
            score=hit.score,
            relevance=hit.relevance,
            fused=hit.fused,
            share=hit.share,
            importance=hit.importance,
            recency=hit.recency,
            decay=hit.decay,
            sources=[SearchListRank(list=s.list, rank=s.rank, score=s.score) for s in hit.sources],
            updates=strawberry.ID(hit.updates) if hit.updates is not None else None,
        )


@strawberry.type(description="A fact beside the hits: turn_window or shared_tag.")
class SearchRelatedFact:
    fact: Fact
    reason: str
    hit_id: strawberry.ID


@strawberry.type(
    description="A standing instruction or preference that bears on the query: put it in the "
    "agent's prompt."
)
class SearchStanding:
    fact: Fact
    similarity: float = strawberry.field(
        description="Its vector's similarity to the query's, (1 + cosine) / 2."
    )


@strawberry.type(description="The composite score's weights a search used.")
class SearchWeights:
    relevance: float = strawberry.field(description="Weighs each hit's share.")
    importance: float
    recency: float


@strawberry.type
class SearchResult:
    hits: list[SearchHit]
    related: list[SearchRelatedFact]
    standing: list[SearchStanding] = strawberry.field(
        description="The scope's standing instructions and preferences closest to the query "
        "(at most standingLimit, above a similarity floor), whatever the hits: a request that "
        "should honour one seldom shares its words."
    )
    lucene: str = strawberry.field(description="The full-text query actually sent.")
    weights: SearchWeights = strawberry.field(
        description="The composite score's weights: with them a hit's share, importance, "
        "recency and decay add up to its score."
    )
    answerable: bool = strawberry.field(
        description='Whether anything in the scope answers the query: false says "nothing '
        'here", whatever the hits (answerability below the documented threshold; false with '
        "no hits)."
    )
    answerability: float = strawberry.field(
        description="0..1: the chance that the scope answers the query, from the search's "
        'candidates and hits as a whole (docs/search.md "Nothing here").'
    )

    @classmethod
    def from_domain(cls, result: domain.SearchResult) -> SearchResult:
        return cls(
            hits=[SearchHit.from_domain(h) for h in result.hits],
            related=[
                SearchRelatedFact(
                    fact=Fact.from_domain(r.fact), reason=r.reason, hit_id=strawberry.ID(r.hit_id)
                )
                for r in result.related
            ],
            standing=[
                SearchStanding(fact=Fact.from_domain(s.fact), similarity=s.similarity)
                for s in result.standing
            ],
            lucene=result.lucene,
            weights=SearchWeights(
                relevance=result.weights.relevance,
                importance=result.weights.importance,
                recency=result.weights.recency,
            ),
            answerable=result.answerable,
            answerability=result.answerability,
        )


@strawberry.type
class SearchQuery:
    @strawberry.field(description="Hybrid search over a scope's facts (full-text + vector).")
    async def search(
        self,
        info: Info,
        scope: str,
        query: str,
        options: SearchOptionsInput | None = None,
    ) -> SearchResult:
        service = memory_for(info, scope)
        try:
            built = (options or SearchOptionsInput()).to_domain()
            if not _selects(info, "related"):
                # Nothing to show them in: spare the round trip that finds related facts.
                built = dataclasses.replace(built, related_limit=0, prev_turns=0, next_turns=0)
            if not _selects(info, "standing"):
                built = dataclasses.replace(built, standing_limit=0)
            result = await call(service.search, scope, query, options=built)
        except ValidationError as exc:
            raise ValidationError(camel(exc.field), exc.reason) from None
        return SearchResult.from_domain(result)


def _selects(info: Info, name: str) -> bool:
    """Whether the document selects `name` under this field (a fragment counts as yes).

    Reads the field's own selections in the document: `info.selected_fields` would convert
    the whole selection tree (every hit field, ~20 nodes) on every request to look at one level.
    """
    for node in info._raw_info.field_nodes:
        selections = node.selection_set.selections if node.selection_set is not None else ()
        for selection in selections:
            if not isinstance(selection, FieldNode) or selection.name.value == name:
                return True
    return False


def camel(field: str) -> str:
    """top_k -> topK, decay.tau_days -> decay.tauDays: errors name the field as sent."""
    return re.sub(r"_([a-z])", lambda m: m.group(1).upper(), field)
