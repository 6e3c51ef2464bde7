"""A memory as mem0 shows it: the current version of a supersede chain, named by the chain.

factgraph never overwrites a text: an update writes a new fact superseding the old one. A mem0
client keeps the id `add` answered and expects it, and `created_at`, to stay across updates, so
the id and creation time mem0 shows are those of the chain's first version, carried along it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from graph.write.facts import Fact


@dataclass(frozen=True)
class Origin:
    """The first version of a fact's supersede chain: mem0's id and `created_at`."""

    id: str
    created_at: datetime

    @classmethod
    def of(cls, fact: Fact) -> Origin:
        """A fact that supersedes nothing is its own origin."""
        return cls(fact.id, fact.recorded_at)


@dataclass(frozen=True)
class Held:
    """A memory: its current version, and the origin whose id and time mem0 shows."""

    fact: Fact
    origin: Origin

    @property
    def id(self) -> str:
        return self.origin.id

    @property
    def created_at(self) -> datetime:
        return self.origin.created_at
