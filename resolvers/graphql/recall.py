"""GraphQL for deep recall: multi-query / HyDE search and the gated iterative loop."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from graph import recall as domain
from graph.errors import ValidationError
from graph.search import SearchOptions
from resolvers.graphql.search import SearchHit, SearchOptionsInput, SearchResult, camel
from resolvers.http.context import call, memory_for


@strawberry.type(description="A grader's verdict on one pass.")
class RecallGrade:
    sufficient: bool
    score: float
    reason: str
    reformulation: str | None


@strawberry.type(description="One retrieval pass: the query sent, its hit count, its grade.")
class RecallPass:
    query: str
    count: int
    grade: RecallGrade | None

    @classmethod
    def from_domain(cls, p: domain.Pass) -> RecallPass:
        grade = None
        if p.grade is not None:
            g = p.grade
            grade = RecallGrade(
                sufficient=g.sufficient,
                score=g.score,
                reason=g.reason,
                reformulation=g.reformulation,
            )
        return cls(query=p.query, count=p.count, grade=grade)


@strawberry.type(description="Hits of the loop; abstained: the evidence stayed insufficient.")
class IterativeSearchResult:
    hits: list[SearchHit]
    passes: list[RecallPass]
    abstained: bool
    hard: bool = strawberry.field(description="Whether the gate (or forceHard) chose the loop.")


@strawberry.type
class RecallQuery:
    @strawberry.field(
        description="Search with up to multiQuery-1 reworded variants and / or a hypothetical "
        "answer (hyde) fused in by RRF. Without a configured LLM both are no-ops."
    )
    async def deep_search(
        self,
        info: Info,
        scope: str,
        query: str,
        options: SearchOptionsInput | None = None,
        multi_query: int = 1,
        hyde: bool = False,
    ) -> SearchResult:
        service = memory_for(info, scope)
        built = _options(options)
        result = await call(
            service.deep_search, scope, query, options=built, multi_query=multi_query, hyde=hyde
        )
        return SearchResult.from_domain(result)

    @strawberry.field(
        description="Gated grade-then-reformulate loop: simple lookups take one pass; hard "
        "queries are graded and retried (widening to one-hop entity expansion) up to "
        "maxIterations (clamped to 1..5)."
    )
    async def search_iterative(
        self,
        info: Info,
        scope: str,
        query: str,
        options: SearchOptionsInput | None = None,
        max_iterations: int = 3,
        force_hard: bool = False,
    ) -> IterativeSearchResult:
        service = memory_for(info, scope)
        built = _options(options)
        result = await call(
            service.search_iterative,
            scope,
            query,
            options=built,
            max_iterations=max_iterations,
            force_hard=force_hard,
        )
        return IterativeSearchResult(
            hits=[SearchHit.from_domain(h) for h in result.hits],
            passes=[RecallPass.from_domain(p) for p in result.passes],
            abstained=result.abstained,
            hard=result.hard,
        )


def _options(options: SearchOptionsInput | None) -> SearchOptions:
    """Validated search options, errors naming the GraphQL (camelCase) field."""
    try:
        return (options or SearchOptionsInput()).to_domain()
    except ValidationError as exc:
        raise ValidationError(camel(exc.field), exc.reason) from None
