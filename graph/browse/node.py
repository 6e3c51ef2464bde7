"""A node by id with references to its direct neighbours, for walking the graph by hand.

A fact's neighbours are the entities it mentions, the facts it supersedes and that supersede
it, and (up to a limit, newest first) active facts sharing an entity with it; an entity's are
the active facts that mention it. Neighbours are references `{id, edge_type, relation}` only:
the caller fetches what it wants. Entity ids are `entity:<canonical>`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graph.browse.common import ENTITY_PREFIX, check_limit, entity_id
from graph.storage.db import Database
from graph.write.facts import Fact, read_time
from graph.write.validation import check_clean, check_scope

DEFAULT_NEIGHBOUR_LIMIT = 25


@dataclass(frozen=True)
class NeighbourRef:
    """One edge to a neighbour. `via` is the shared entity for `shares_entity` references."""

    id: str
    edge_type: str  # MENTIONS or SUPERSEDES, the Neo4j relationship walked
    relation: str  # subject / object (entity role), supersedes, superseded_by, shares_entity
    via: str | None = None


@dataclass(frozen=True)
class EntityView:
    id: str
    canonical: str
    name: str
    aliases: tuple[str, ...]
    type: str | None
    created_at: datetime | None


@dataclass(frozen=True)
class BrowseNode:
    """Exactly one of `fact` and `entity` is set, as `type` says."""

    id: str
    type: str  # "fact" or "entity"
    fact: Fact | None
    entity: EntityView | None
    neighbours: tuple[NeighbourRef, ...]


def get_node(
    db: Database,
    scope: str,
    node_id: str,
    *,
    neighbours: bool = True,
    limit: int = DEFAULT_NEIGHBOUR_LIMIT,
) -> BrowseNode | None:
    """The fact or entity with this id in the scope; None when there is none (or forgotten)."""
    check_scope(scope)
    check_limit(limit, "limit")
    if not isinstance(node_id, str) or not node_id:
        return None
    check_clean("id", node_id)
    params: dict[str, Any] = {"scope": scope, "neighbours": neighbours, "limit": limit}
    records = db.read("browse_node_fact", {**params, "id": node_id})
    if records:
        fact = Fact.from_node(records[0]["fact"])
        return BrowseNode(fact.id, "fact", fact, None, _refs(records[0]["neighbours"]))
    if not node_id.startswith(ENTITY_PREFIX) or len(node_id) == len(ENTITY_PREFIX):
        return None
    canonical = node_id[len(ENTITY_PREFIX) :]
    records = db.read("browse_node_entity", {**params, "canonical": canonical})
    if not records:
        return None
    props = records[0]["entity"]
    entity = EntityView(
        id=entity_id(props["canonical"]),
        canonical=props["canonical"],
        name=props.get("name") or props["canonical"],
        aliases=tuple(props.get("aliases") or ()),
        type=props.get("type"),
        created_at=read_time(props.get("created_at")),
    )
    return BrowseNode(entity.id, "entity", None, entity, _refs(records[0]["neighbours"]))


def _refs(rows: list[dict[str, Any]]) -> tuple[NeighbourRef, ...]:
    return tuple(
        NeighbourRef(id=r["id"], edge_type=r["edge_type"], relation=r["relation"], via=r["via"])
        for r in rows
    )
