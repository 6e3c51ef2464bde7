"""Hybrid search from the memory service; the pipeline is `graph.search.engine`."""

from __future__ import annotations

from typing import Any

from graph.search.engine import search as hybrid_search
from graph.search.options import SearchOptions
from graph.search.types import SearchResult
from graph.state import MemoryState


class Searching(MemoryState):
    """`Memory`'s hybrid search, which deep recall (`Recalling`) builds on."""

    def search(
        self,
        scope: str,
        query: str,
        *,
        options: SearchOptions | None = None,
        **kwargs: Any,
    ) -> SearchResult:
        """Hybrid search: keyword options as in `SearchOptions` (or a built `options=`)."""
        built = options.validated() if options is not None else SearchOptions.build(**kwargs)
        return hybrid_search(
            self.db,
            self.embedder,
            scope,
            query,
            built,
            clock=self.clock,
            overlap=self.settings.search_overlap,
        )
