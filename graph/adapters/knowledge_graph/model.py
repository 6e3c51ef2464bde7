"""How the knowledge-graph tools' entities, observations and relations are held in factgraph.

An entity is the `(:Entity)` node facts link to, made a member of the scope's knowledge graph
(`kg_created_at`) with its type. An observation is a fact about it: subject the entity, text
"<name>: <observation>" (so two entities' identical observations stay two facts, and a search
hit reads on its own). A relation is a fact linking two entities: subject and object the
entities, predicate the relation type, text "<from> <type> <to>". All of them live in the
partition `knowledge-graph`, so the scope's other facts stay out of the graph and factgraph's
own tools can still find them. Names are folded as factgraph folds them ("Alice" and "alice"
are one entity); observations and relation types compare with case and spacing folded, as
factgraph's exact-duplicate key does.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field

PARTITION = "knowledge-graph"


@dataclass(frozen=True)
class Entity:
    name: str
    entity_type: str
    observations: tuple[str, ...] = ()


@dataclass(frozen=True)
class Relation:
    source: str
    target: str
    relation_type: str


@dataclass(frozen=True)
class Graph:
    """A knowledge graph or a part of it: entities, and the relations touching them."""

    entities: list[Entity] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)


@dataclass(frozen=True)
class Added:
    """What add_observations added to one entity: the observations it did not hold yet."""

    entity_name: str
    observations: list[str]


def observation_text(subject: str, observation: str) -> str:
    """The fact text of an observation; knowledge_*.cypher strip the "<subject>: " again."""
    return f"{subject}: {observation}"


def relation_text(source: str, relation_type: str, target: str) -> str:
    return f"{source} {relation_type} {target}"


def fold(text: str) -> str:
    """Case and spacing folded, as factgraph's exact-duplicate key folds a fact's text."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())
