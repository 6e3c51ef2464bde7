"""Writing facts for the browsing tests: distinct random vectors, chosen valid times.

Random unit vectors keep the near-duplicate stage from merging short, similar test sentences
("note 1", "note 2"), and skip the model where it does not matter.
"""

from __future__ import annotations

import math
import random
from datetime import UTC, datetime, timedelta
from typing import Any

from graph.memory import Memory

T0 = datetime(2025, 1, 1, 12, 0, tzinfo=UTC)
_rng = random.Random(5)


def vector(dimensions: int = 384) -> list[float]:
    raw = [_rng.gauss(0.0, 1.0) for _ in range(dimensions)]
    norm = math.sqrt(sum(x * x for x in raw))
    return [x / norm for x in raw]


def add(memory: Memory, scope: str, text: str, *, day: int = 0, **fields: Any) -> str:
    """Remember a fact valid from T0 + `day` days and return its id."""
    data: dict[str, Any] = {
        "text": text,
        "valid_from": T0 + timedelta(days=day),
        "embedding": vector(memory.embedder.dimensions),
    }
    data.update(fields)
    return memory.remember(scope, data).id
