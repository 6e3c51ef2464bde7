"""Deep recall over hybrid search: more than one retrieval pass, fused, when it can help.

Every option degrades to plain search: no transformer -> multi-query and HyDE do nothing; no
grader -> the iterative loop makes one pass; a provider that fails or answers nonsense ->
the single-shot result, logged, never an error to the caller.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from graph.config import LLMSettings
from graph.recall.gate import is_hard
from graph.recall.llm import ChatClient, LLMError, LLMGrader, LLMTransformer
from graph.recall.offline import OfflineGrader
from graph.recall.providers import Grade, QueryTransformer, RetrievalGrader
from graph.search import Hit, Mode, SearchOptions, SearchResult, rrf

log = logging.getLogger("factgraph.recall")

MAX_MULTI_QUERY = 5
MIN_ITERATIONS, MAX_ITERATIONS = 1, 5


@dataclass(frozen=True)
class Pass:
    """One retrieval pass of the loop: the query sent, how many hits, and its grade."""

    query: str
    count: int
    grade: Grade | None


@dataclass(frozen=True)
class IterativeResult:
    hits: list[Hit]
    passes: list[Pass]
    abstained: bool
    hard: bool


class Searcher(Protocol):
    """The one thing deep recall needs of the memory service: a plain search pass.

    Taken as a protocol so that recall depends on search alone, never on the service that
    owns it (graph.memory.Memory passes itself in).
    """

    def search(
        self, scope: str, query: str, *, options: SearchOptions | None = None
    ) -> SearchResult: ...


class DeepRecall:
    def __init__(
        self,
        memory: Searcher,
        *,
        transformer: QueryTransformer | None = None,
        grader: RetrievalGrader | None = None,
    ) -> None:
        self.memory = memory
        self.transformer = transformer
        self.grader = grader

    @classmethod
    def from_settings(cls, memory: Searcher, llm: LLMSettings) -> DeepRecall:
        """LLM providers when an endpoint is configured; else the offline grader if enabled."""
        transformer: QueryTransformer | None = None
        grader: RetrievalGrader | None = None
        if llm.configured:
            client = ChatClient(llm)
            transformer, grader = LLMTransformer(client), LLMGrader(client)
        elif llm.offline_grader:
            grader = OfflineGrader()
        return cls(memory, transformer=transformer, grader=grader)

    # -- multi-query and HyDE ---------------------------------------------------------------
    def search(
        self,
        scope: str,
        query: str,
        options: SearchOptions,
        *,
        multi_query: int = 1,
        hyde: bool = False,
    ) -> SearchResult:
        base = self.memory.search(scope, query, options=options)
        if self.transformer is None or (multi_query <= 1 and not hyde):
            return base
        quiet = dataclasses.replace(options, context_id=None, track_access=False)
        lists: list[list[Hit]] = [base.hits]
        if multi_query > 1:
            try:
                variants = self.transformer.variants(query, min(multi_query, MAX_MULTI_QUERY) - 1)
            except LLMError as exc:
                log.warning("multi-query skipped: %s", exc)
                variants = []
            for variant in variants:
                lists.append(self.memory.search(scope, variant, options=quiet).hits)
        if hyde:
            try:
                answer = self.transformer.hypothetical_answer(query)
            except LLMError as exc:
                log.warning("HyDE skipped: %s", exc)
            else:
                vector_only = dataclasses.replace(quiet, mode=Mode.VECTOR)
                lists.append(self.memory.search(scope, answer, options=vector_only).hits)
        if len(lists) == 1:
            return base
        return dataclasses.replace(base, hits=_fuse(lists, options.top_k))

    # -- the gated loop -----------------------------------------------------------------------
    def search_iterative(
        self,
        scope: str,
        query: str,
        options: SearchOptions,
        *,
        max_iterations: int = 3,
        force_hard: bool = False,
    ) -> IterativeResult:
        iterations = min(max(max_iterations, MIN_ITERATIONS), MAX_ITERATIONS)
        first = self.memory.search(scope, query, options=options)
        hard = force_hard or is_hard(query)
        if not hard or self.grader is None:
            return IterativeResult(first.hits, [Pass(query, len(first.hits), None)], False, hard)
        lists = [first.hits]
        passes: list[Pass] = []
        current, hits = query, first.hits
        widened = dataclasses.replace(options, expand_hops=1, context_id=None)
        while True:
            try:
                grade = self.grader.grade(query, [h.fact for h in hits])
            except LLMError as exc:
                log.warning("grading failed, keeping the single-shot result: %s", exc)
                return IterativeResult(
                    first.hits, [Pass(query, len(first.hits), None)], False, hard
                )
            passes.append(Pass(current, len(lists[-1]), grade))
            if grade.sufficient:
                return IterativeResult(hits, passes, False, hard)
            if len(passes) >= iterations:
                return IterativeResult(hits, passes, True, hard)
            current = grade.reformulation or query
            lists.append(self.memory.search(scope, current, options=widened).hits)
            hits = _fuse(lists, options.top_k)


def _fuse(lists: Sequence[Sequence[Hit]], top_k: int) -> list[Hit]:
    """RRF over the passes' rankings; each fact keeps the explanation of its first sighting."""
    first_seen: dict[str, Hit] = {}
    for hits in lists:
        for hit in hits:
            first_seen.setdefault(hit.fact.id, hit)
    fused = rrf([[h.fact.id for h in hits] for hits in lists])
    return [dataclasses.replace(first_seen[i], fused=score) for i, score in fused[:top_k]]
