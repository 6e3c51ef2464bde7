"""A list of floats that prints short, to keep the Neo4j driver fast on batches of vectors.

The driver formats every RUN message for its debug log eagerly, whether debug logging is on or
not, by calling repr() on the parameters. For a batch of 1,000 facts with 384-dimension vectors
that repr alone costs about a second, more than writing the batch. A list subclass is packed
exactly like a list (it is one), but its repr is a few characters.
"""

from __future__ import annotations


class Vector(list[float]):
    __slots__ = ()

    def __repr__(self) -> str:
        return f"<vector of {len(self)} floats>"
