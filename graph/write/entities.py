"""Entity resolution: turning the names agents write into one canonical key per entity.

"Melanie", "melanie " and "Melanie's" must land on the same `(:Entity)` node, and an alias
table can map "NYC" to "new york". Resolution is pluggable: anything with `resolve(name)`
returning a `ResolvedEntity` can replace the default.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

_PUNCT = re.compile(r"[^\w\s]", re.UNICODE)
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class ResolvedEntity:
    canonical: str
    name: str
    type: str | None = None


class EntityResolver(Protocol):
    def resolve(self, name: str) -> ResolvedEntity | None: ...


def _singular(word: str) -> str:
    """Simple English inflection: possessives and regular plurals, nothing clever."""
    if len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ses", "xes", "zes", "ches", "shes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def normalise(name: str) -> str:
    """Case, accents, whitespace, punctuation and simple inflection folded away."""
    text = unicodedata.normalize("NFKC", name).casefold()
    text = text.replace("\u2019", "'")
    text = re.sub(r"'s\b", "", text)
    text = _PUNCT.sub(" ", text)
    words = [_singular(w) for w in _SPACE.split(text.strip()) if w]
    return " ".join(words)


class DefaultEntityResolver:
    """Normalises names and applies an alias table (alias -> canonical name)."""

    def __init__(self, aliases: Mapping[str, str] | None = None) -> None:
        self.aliases = {normalise(k): normalise(v) for k, v in (aliases or {}).items()}

    def resolve(self, name: str) -> ResolvedEntity | None:
        display = _SPACE.sub(" ", name.strip())
        key = normalise(display)
        if not key:
            return None
        return ResolvedEntity(canonical=self.aliases.get(key, key), name=display)
