"""What deep recall asks of a language model, as two small protocols.

Anything with these methods can be plugged in (a local model, a rules engine); the one real
implementation talks to an OpenAI-compatible endpoint (graph/recall/llm.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from graph.write.facts import Fact


@dataclass(frozen=True)
class Grade:
    """Whether a retrieved set answers the query, and a better query when it does not."""

    sufficient: bool
    score: float
    reason: str = ""
    reformulation: str | None = None


class QueryTransformer(Protocol):
    def variants(self, query: str, n: int) -> list[str]:
        """Up to n rewordings of the query (one model call)."""
        ...

    def hypothetical_answer(self, query: str) -> str:
        """A plausible answer, embedded to find facts phrased like answers (HyDE)."""
        ...


class RetrievalGrader(Protocol):
    def grade(self, query: str, facts: Sequence[Fact]) -> Grade: ...
