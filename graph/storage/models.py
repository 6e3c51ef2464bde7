"""The graph model as neomodel classes: the documented shape of what factgraph stores.

The service itself reads and writes through parameterised Cypher files (atomic managed
transactions, index-backed search); these classes are for people exploring a memory from
Python (a notebook, a migration script) with an object mapper, and they double as an
executable description of labels, properties and relationship types. `bind(db)` points
neomodel at factgraph's own driver so no second connection is configured. neomodel reserves
the name `id`, so the `id` property is `uid` here (stored as `id`).
"""

from __future__ import annotations

from typing import Any

from neomodel import (
    ArrayProperty,
    DateTimeNeo4jFormatProperty,
    FloatProperty,
    IntegerProperty,
    RelationshipTo,
    StringProperty,
    StructuredNode,
    StructuredRel,
    db,
)

from graph.storage import vector_shards
from graph.storage.db import Database


class Mentions(StructuredRel):
    role = StringProperty()


class Supersedes(StructuredRel):
    reason = StringProperty()
    at = DateTimeNeo4jFormatProperty()


class Entity(StructuredNode):
    __label__ = "Entity"
    scope = StringProperty(required=True)
    canonical = StringProperty(required=True)
    name = StringProperty()
    aliases = ArrayProperty(StringProperty())
    type = StringProperty()
    # Set while the entity is in the scope's knowledge graph (graph/adapters/knowledge_graph/).
    kg_created_at = DateTimeNeo4jFormatProperty()
    kg_deleted_at = DateTimeNeo4jFormatProperty()


class Tag(StructuredNode):
    __label__ = "Tag"
    scope = StringProperty(required=True)
    name = StringProperty(required=True)


class Fact(StructuredNode):
    __label__ = "Fact"
    uid = StringProperty(db_property="id", required=True)
    scope = StringProperty(required=True)
    partition = StringProperty()
    text = StringProperty(required=True)
    index_text = StringProperty()
    subject = StringProperty()
    predicate = StringProperty()
    object = StringProperty()
    tags = ArrayProperty(StringProperty())
    importance = FloatProperty()
    source = StringProperty()
    metadata = StringProperty()
    session_id = StringProperty()
    turn = IntegerProperty()
    content_hash = StringProperty()
    embedder = StringProperty()
    status = StringProperty()
    strength = FloatProperty()
    access_count = IntegerProperty()
    last_accessed_at = DateTimeNeo4jFormatProperty()
    expires_at = DateTimeNeo4jFormatProperty()
    valid_from = DateTimeNeo4jFormatProperty()
    valid_to = DateTimeNeo4jFormatProperty()
    recorded_at = DateTimeNeo4jFormatProperty()
    expired_at = DateTimeNeo4jFormatProperty()

    entities = RelationshipTo(Entity, "MENTIONS", model=Mentions)
    tagged = RelationshipTo(Tag, "TAGGED")
    supersedes = RelationshipTo("Fact", "SUPERSEDES", model=Supersedes)


# Each fact also carries a label mirroring its status (for the Neo4j Browser's style sheet);
# neomodel resolves a node by its whole label set, so each combination needs its class.
class ActiveFact(Fact):
    __label__ = "Active"


class QuarantinedFact(Fact):
    __label__ = "Quarantined"


class SupersededFact(Fact):
    __label__ = "Superseded"


class ForgottenFact(Fact):
    __label__ = "Forgotten"


# ... and the label of the vector index that holds its vector (graph/storage/vector_shards.py): a
# class
# for each of those classes and each shard, named like `ActiveFactVectorShard07`, made here
# rather than written out eighty times. `SHARD_CLASSES[(ActiveFact, 7)]` is one of them.
SHARD_CLASSES: dict[tuple[type[Fact], int], type[Fact]] = {
    (base, n): type(
        f"{base.__name__}{label}", (base,), {"__label__": label, "__module__": __name__}
    )
    for base in (Fact, ActiveFact, QuarantinedFact, SupersededFact, ForgottenFact)
    for n, label in enumerate(vector_shards.LABELS)
}


class Chunk(StructuredNode):
    """A window of a long fact's text after its first, with a vector of its own
    (graph/write/chunks.py): `start` / `end` are character offsets in the fact's text."""

    __label__ = "Chunk"
    fact_id = StringProperty(required=True)
    scope = StringProperty(required=True)
    ord = IntegerProperty()
    start = IntegerProperty()
    end = IntegerProperty()

    fact = RelationshipTo(Fact, "CHUNK_OF")


# A chunk's label of its chunk vector index, as the facts' shard classes above.
CHUNK_SHARD_CLASSES: dict[int, type[Chunk]] = {
    n: type(f"Chunk{label}", (Chunk,), {"__label__": label, "__module__": __name__})
    for n, label in enumerate(vector_shards.CHUNK_LABELS)
}


class AuditEvent(StructuredNode):
    __label__ = "AuditEvent"
    uid = StringProperty(db_property="id", required=True)
    scope = StringProperty(required=True)
    fact_id = StringProperty()
    kind = StringProperty()
    actor = StringProperty()
    reason = StringProperty()
    at = DateTimeNeo4jFormatProperty()


def bind(database: Database) -> Any:
    """Let neomodel use factgraph's driver (and database) instead of its own settings."""
    from neomodel import get_config

    get_config().database_name = database.name
    db.set_connection(driver=database.driver)
    return db
