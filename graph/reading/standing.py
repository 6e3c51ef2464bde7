"""The standing recogniser as the reader calls it: today's patterns (graph/write/standing.py),
behind one function that a recogniser of its own here can replace."""

from __future__ import annotations

from graph.write.standing import Standing, recognise

__all__ = ["Standing", "standing"]


def standing(text: str, subject: str | None = None) -> Standing | None:
    """Whether a text sets a standing instruction or preference, and which."""
    return recognise(text, subject)
