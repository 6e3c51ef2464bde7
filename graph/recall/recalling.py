"""Deep recall from the memory service: query variants, HyDE and the iterative loop
(`graph.recall.engine`), over the service's own plain search."""

from __future__ import annotations

from typing import Any

from graph.recall.engine import DeepRecall, IterativeResult
from graph.search.options import SearchOptions
from graph.search.searching import Searching
from graph.search.types import SearchResult
from graph.write.validation import check_scope


class Recalling(Searching):
    """`Memory`'s deep recall: the engine (replaceable), deep_search and search_iterative."""

    _recall: DeepRecall | None

    @property
    def recall(self) -> DeepRecall:
        """Deep recall with the providers the settings configure (none: plain search)."""
        if self._recall is None:
            self._recall = DeepRecall.from_settings(self, self.settings.llm)
        return self._recall

    @recall.setter
    def recall(self, engine: DeepRecall) -> None:
        self._recall = engine

    def deep_search(
        self,
        scope: str,
        query: str,
        *,
        multi_query: int = 1,
        hyde: bool = False,
        options: SearchOptions | None = None,
        **kwargs: Any,
    ) -> SearchResult:
        """Search with query variants and / or a hypothetical answer fused in (RRF)."""
        check_scope(scope)
        built = options.validated() if options is not None else SearchOptions.build(**kwargs)
        return self.recall.search(scope, query, built, multi_query=multi_query, hyde=hyde)

    def search_iterative(
        self,
        scope: str,
        query: str,
        *,
        max_iterations: int = 3,
        force_hard: bool = False,
        options: SearchOptions | None = None,
        **kwargs: Any,
    ) -> IterativeResult:
        """Gated grade-then-reformulate loop; `abstained` when still insufficient at the end."""
        check_scope(scope)
        built = options.validated() if options is not None else SearchOptions.build(**kwargs)
        return self.recall.search_iterative(
            scope, query, built, max_iterations=max_iterations, force_hard=force_hard
        )
