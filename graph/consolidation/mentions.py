"""The mentions enricher: a fact that names a known entity is linked to it.

A write links a fact to the entities of its subject and object only. "Caroline: I told Melanie
about the adoption" names Melanie without making her a subject, so one-hop expansion from
Melanie's facts never reached it. The consolidator finds the names and aliases of the scope's
known entities in the fact's text (whole words, any case, a possessive 's allowed) and links
the fact to them with `MENTIONS {role: 'mention'}`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

MIN_NAME_CHARS = 3  # shorter names ("Al", "NY") match inside too much ordinary text
MAX_ENTITIES = 20_000  # entities of one scope considered; a scope with more keeps its first


@dataclass(frozen=True)
class KnownEntity:
    canonical: str
    names: tuple[str, ...]


class MentionFinder:
    """One compiled pattern for all the names of a scope's entities."""

    def __init__(self, entities: Iterable[KnownEntity]) -> None:
        self._by_name: dict[str, str] = {}
        for entity in entities:
            for name in entity.names:
                key = " ".join(name.casefold().split())
                if len(key) >= MIN_NAME_CHARS and key not in self._by_name:
                    self._by_name[key] = entity.canonical
        names = sorted(self._by_name, key=len, reverse=True)  # longest first: "New York City"
        self._pattern = (
            re.compile(
                r"(?<!\w)(" + "|".join(re.escape(n).replace(r"\ ", r"\s+") for n in names) + r")"
                r"(?:'s|\u2019s)?(?!\w)",
                re.IGNORECASE,
            )
            if names
            else None
        )

    def find(self, text: str) -> list[str]:
        """Canonical keys of the entities the text names, in order of first mention."""
        if self._pattern is None:
            return []
        out: list[str] = []
        for match in self._pattern.finditer(text):
            canonical = self._by_name.get(" ".join(match.group(1).casefold().split()))
            if canonical is not None and canonical not in out:
                out.append(canonical)
        return out
