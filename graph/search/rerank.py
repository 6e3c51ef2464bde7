"""The pluggable reranker: one active instance per process, set and read through this module.

A reranker sees the fused candidates (best first) with their fused scores and returns them in
its own order with its own non-negative scores; those become the relevance that the composite
score normalises. The default keeps the fused order, so search works with no model beyond the
embedder.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Protocol

from graph.write.facts import Fact


class Reranker(Protocol):
    name: str

    def rerank(
        self, query: str, candidates: Sequence[tuple[Fact, float]]
    ) -> list[tuple[Fact, float]]: ...


class FusionOrder:
    """The identity reranker: fused order and scores, unchanged."""

    name = "fusion"

    def rerank(
        self, query: str, candidates: Sequence[tuple[Fact, float]]
    ) -> list[tuple[Fact, float]]:
        return list(candidates)


_lock = threading.Lock()
_active: Reranker = FusionOrder()


def get_reranker() -> Reranker:
    return _active


def set_reranker(reranker: Reranker | None) -> Reranker:
    """Make `reranker` active (None restores the default) and return the previous one."""
    global _active
    with _lock:
        previous = _active
        _active = reranker if reranker is not None else FusionOrder()
    return previous
