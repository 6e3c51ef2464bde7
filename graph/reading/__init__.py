"""The reading of text: what a fact or a query names, is about, and identifies, and whether it
sets a standing instruction or preference, read without a model, by one entry point.

Every write path reads a fact's text here (`read`) and links the fact to one node per term in
its scope (`:Term`, cypher/reading_link.cypher), and search reads a query the same way
(graph/search/graph_list.py), so that a question finds the facts that share its names, topics
and identifiers, and the facts those share theirs with.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from graph.reading.identifiers import key, read_identifiers
from graph.reading.names import names
from graph.reading.standing import Standing, standing
from graph.reading.topics import topics
from graph.write.entities import EntityResolver

__all__ = ["VERSION", "Reading", "Role", "Standing", "Term", "read", "standing", "terms"]

# Stored on each fact read (`read_v`): the backfill (`factgraph read-texts`) reads again the
# facts of an older version, so a change to the reader is applied by bumping it.
VERSION = 1


class Role(enum.StrEnum):
    NAME = "name"
    TOPIC = "topic"
    IDENTIFIER = "identifier"


# How much one mention says of its fact, before the term's specificity in the scope: a name or
# an identifier is what the text is about; a key phrase, less; a single content word, least.
WEIGHTS = {Role.NAME: 1.0, Role.IDENTIFIER: 1.0, Role.TOPIC: 0.7}
SINGLE_WORD_TOPIC = 0.4


@dataclass(frozen=True)
class Term:
    """One thing a text mentions, as its scope keys it (`canonical`) and as first written."""

    canonical: str
    name: str
    role: Role
    weight: float

    def row(self) -> dict[str, object]:
        return {
            "canonical": self.canonical,
            "name": self.name,
            "role": self.role.value,
            "weight": self.weight,
        }


@dataclass(frozen=True)
class Reading:
    """What one text names, is about and identifies, and the standing statement it sets."""

    names: tuple[str, ...]
    topics: tuple[str, ...]
    identifiers: tuple[str, ...]
    standing: Standing | None = None


def read(text: str, subject: str | None = None, *, with_standing: bool = True) -> Reading:
    """Read one text: its names, topics and identifiers, and (unless told not to) whether it
    sets a standing instruction or preference (`subject`: who says it, for the recogniser)."""
    found_identifiers, plain = read_identifiers(text)
    found_names = names(plain)
    name_words = {w.casefold() for n in found_names for w in n.split()}
    found_topics = [t for t in topics(plain) if not set(t.split()) <= name_words]
    return Reading(
        names=tuple(found_names),
        topics=tuple(found_topics),
        identifiers=tuple(found_identifiers),
        standing=standing(text, subject) if with_standing else None,
    )


# No name, topic or identifier is longer: a longer "term" is a run of text with no break the
# reader could cut at (a hostile 9,000-character token became a :Term whose key Neo4j's range
# index refused, a 500 for the write), and a node for it would find nothing.
MAX_TERM_CHARS = 200


def terms(reading: Reading, resolver: EntityResolver) -> list[Term]:
    """The terms to link a fact to: names and topics through the entity resolver (aliases,
    case, plurals), identifiers by their own key; one per canonical key, the first role kept."""
    found = _terms(reading, resolver).values()
    return [t for t in found if max(len(t.canonical), len(t.name)) <= MAX_TERM_CHARS]


def _terms(reading: Reading, resolver: EntityResolver) -> dict[str, Term]:
    out: dict[str, Term] = {}
    for role, values in ((Role.NAME, reading.names), (Role.TOPIC, reading.topics)):
        for value in values:
            resolved = resolver.resolve(value)
            if resolved is None or resolved.canonical in out:
                continue
            weight = WEIGHTS[role]
            if role is Role.TOPIC and " " not in resolved.canonical:
                weight = SINGLE_WORD_TOPIC
            out[resolved.canonical] = Term(resolved.canonical, resolved.name, role, weight)
    for value in reading.identifiers:
        canonical = key(value)
        if canonical not in out:
            out[canonical] = Term(canonical, value, Role.IDENTIFIER, WEIGHTS[Role.IDENTIFIER])
    return out
