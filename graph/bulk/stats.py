"""`factgraph stats`: what the database holds, per scope, and whether its indexes are usable.

An operator checks this after an import or before a migration: facts per scope and status (first),
entities and tags per scope, which models the vectors come from (and how many facts still lack
one), and the state of every index with the vector index's dimension.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

from graph.storage.db import Database
from graph.storage.schema import IndexState, index_states, vector_dimensions


@dataclass
class Stats:
    facts: dict[str, dict[str, int]] = field(default_factory=dict)
    entities: dict[str, int] = field(default_factory=dict)
    tags: dict[str, int] = field(default_factory=dict)
    embedders: dict[str, int] = field(default_factory=dict)
    without_vector: int = 0
    vector_dimensions: int | None = None
    indexes: list[IndexState] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["indexes"] = [asdict(i) for i in self.indexes]
        return data

    def render(self, *, indexes: bool = False) -> str:
        """What a person asks first (facts per scope and status) first; the indexes in one
        line unless `indexes` (`factgraph stats --indexes`): with a vector index per shard and
        scope, they are sixty lines and more. An index that is not ONLINE is always listed."""
        lines = ["facts per scope and status:"]
        if not self.facts:
            lines.append("  (none)")
        for scope, by_status in sorted(self.facts.items()):
            detail = ", ".join(f"{status} {n}" for status, n in sorted(by_status.items()))
            lines.append(f"  {scope:32} {sum(by_status.values()):>9}  ({detail})")
        lines.append("entities and tags per scope:")
        for scope in sorted(set(self.entities) | set(self.tags)):
            lines.append(
                f"  {scope:32} {self.entities.get(scope, 0):>9} entities  "
                f"{self.tags.get(scope, 0):>7} tags"
            )
        lines.append("vectors by model:")
        for name, n in sorted(self.embedders.items()):
            lines.append(f"  {name:32} {n:>9}")
        if self.without_vector:
            lines.append(f"  {'(none: run embed --missing)':32} {self.without_vector:>9}")
        states = Counter(index.state for index in self.indexes)
        summary = ", ".join(f"{n} {state}" for state, n in sorted(states.items()))
        lines.append(
            f"indexes: {summary or 'none'} (vector index: {self.vector_dimensions} dimensions)"
            + ("" if indexes else "; --indexes lists them")
        )
        for index in self.indexes:
            if not indexes and index.state == "ONLINE":
                continue
            lines.append(
                f"  {index.name:32} {index.type:10} {index.state:10} "
                f"{index.population_percent:.0f}%"
            )
        return "\n".join(lines)


def collect(db: Database, scopes: list[str] | None = None) -> Stats:
    params = {"scopes": scopes}
    stats = Stats()
    for record in db.read("stats_facts", params):
        stats.facts.setdefault(str(record["scope"]), {})[str(record["status"])] = int(record["n"])
    for record in db.read("stats_entities", params):
        target = stats.entities if record["kind"] == "entities" else stats.tags
        target[str(record["scope"])] = int(record["n"])
    for record in db.read("stats_embeddings", params):
        if record["embedder"] is None:
            stats.without_vector = int(record["n"])
        else:
            stats.embedders[str(record["embedder"])] = int(record["n"])
    stats.vector_dimensions = vector_dimensions(db)
    stats.indexes = index_states(db)
    return stats
