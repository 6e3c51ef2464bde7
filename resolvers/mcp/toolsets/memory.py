"""The `memory` tool set: `@modelcontextprotocol/server-memory`'s nine tools, as that server lists
them (names, descriptions, input and output schemas, hints) and with its answers' texts.

The knowledge graph is factgraph's (graph/adapters/knowledge_graph/): entities are Entity nodes,
observations and relations are facts, and a delete forgets. Its `memory://knowledge-graph` resource
is here too. Schemas are the reference's own: no limits and no `additionalProperties`, since it
takes unknown keys and ignores them; what factgraph refuses (an empty name or observation, a name
over 512 characters) comes back as a tool error naming the field.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import mcp_types as types

from graph.adapters.knowledge_graph.model import Entity, Graph, Relation
from graph.adapters.knowledge_graph.service import KnowledgeGraph
from graph.auth.roles import Role
from graph.errors import NotFound
from resolvers.mcp.toolset import Caller, Tool, ToolSet, plain

if TYPE_CHECKING:
    from graph.memory import Memory

GRAPH_URI = "memory://knowledge-graph"
_DRAFT_07 = "http://json-schema.org/draft-07/schema#"

_ENTITY = {
    "name": {"type": "string", "description": "The name of the entity"},
    "entityType": {"type": "string", "description": "The type of the entity"},
    "observations": {
        "type": "array",
        "items": {"type": "string"},
        "description": "An array of observation contents associated with the entity",
    },
}
_RELATION = {
    "from": {"type": "string", "description": "The name of the entity where the relation starts"},
    "to": {"type": "string", "description": "The name of the entity where the relation ends"},
    "relationType": {"type": "string", "description": "The type of the relation"},
}


def _object(properties: dict[str, Any], *, closed: bool) -> dict[str, Any]:
    """An object schema as the reference lists it: inputs open, outputs closed."""
    out: dict[str, Any] = {"type": "object", "properties": properties, "required": list(properties)}
    if closed:
        out["additionalProperties"] = False
    return out


def _schema(properties: dict[str, Any], *, closed: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"$schema": _DRAFT_07, **_object(properties, closed=closed)}
    if not properties:
        del out["required"]
    return out


def _described(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {**schema, "description": description}


ENTITY_IN = _object(_ENTITY, closed=False)
RELATION_IN = _object(_RELATION, closed=False)
ENTITY_OUT = _object(_ENTITY, closed=True)
RELATION_OUT = _object(_RELATION, closed=True)
GRAPH_OUT = _schema(
    {
        "entities": {"type": "array", "items": ENTITY_OUT},
        "relations": {"type": "array", "items": RELATION_OUT},
    },
    closed=True,
)
DONE_OUT = _schema({"success": {"type": "boolean"}, "message": {"type": "string"}}, closed=True)


# -- shapes ----------------------------------------------------------------------------------
def entity(value: Entity) -> dict[str, Any]:
    return {
        "name": value.name,
        "entityType": value.entity_type,
        "observations": list(value.observations),
    }


def relation(value: Relation) -> dict[str, Any]:
    return {"from": value.source, "to": value.target, "relationType": value.relation_type}


def graph(value: Graph) -> dict[str, Any]:
    return {
        "entities": [entity(e) for e in value.entities],
        "relations": [relation(r) for r in value.relations],
    }


def pretty(payload: Any) -> str:
    """JSON as the reference writes it (`JSON.stringify(value, null, 2)`)."""
    return json.dumps(payload, ensure_ascii=False, indent=2)


def _done(message: str) -> dict[str, Any]:
    return {"success": True, "message": message}


def _entities_in(args: dict[str, Any]) -> list[Entity]:
    return [Entity(e["name"], e["entityType"], tuple(e["observations"])) for e in args["entities"]]


def _relations_in(args: dict[str, Any]) -> list[Relation]:
    return [Relation(r["from"], r["to"], r["relationType"]) for r in args["relations"]]


# -- runners ---------------------------------------------------------------------------------
def _create_entities(memory: Memory, caller: Caller, args: dict[str, Any]) -> dict[str, Any]:
    made = KnowledgeGraph(memory).create_entities(
        caller.scope, _entities_in(args), actor=caller.actor
    )
    return {"entities": [entity(e) for e in made]}


def _create_relations(memory: Memory, caller: Caller, args: dict[str, Any]) -> dict[str, Any]:
    made = KnowledgeGraph(memory).create_relations(
        caller.scope, _relations_in(args), actor=caller.actor
    )
    return {"relations": [relation(r) for r in made]}


def _add_observations(memory: Memory, caller: Caller, args: dict[str, Any]) -> dict[str, Any]:
    additions = [(o["entityName"], o["contents"]) for o in args["observations"]]
    added = KnowledgeGraph(memory).add_observations(caller.scope, additions, actor=caller.actor)
    return {
        "results": [
            {"entityName": a.entity_name, "addedObservations": a.observations} for a in added
        ]
    }


def _delete_entities(memory: Memory, caller: Caller, args: dict[str, Any]) -> dict[str, Any]:
    KnowledgeGraph(memory).delete_entities(caller.scope, args["entityNames"], actor=caller.actor)
    return _done("Entities deleted successfully")


def _delete_observations(memory: Memory, caller: Caller, args: dict[str, Any]) -> dict[str, Any]:
    deletions = [(d["entityName"], d["observations"]) for d in args["deletions"]]
    KnowledgeGraph(memory).delete_observations(caller.scope, deletions, actor=caller.actor)
    return _done("Observations deleted successfully")


def _delete_relations(memory: Memory, caller: Caller, args: dict[str, Any]) -> dict[str, Any]:
    KnowledgeGraph(memory).delete_relations(caller.scope, _relations_in(args), actor=caller.actor)
    return _done("Relations deleted successfully")


def _read_graph(memory: Memory, caller: Caller, args: dict[str, Any]) -> dict[str, Any]:
    return graph(KnowledgeGraph(memory).read_graph(caller.scope))


def _search_nodes(memory: Memory, caller: Caller, args: dict[str, Any]) -> dict[str, Any]:
    return graph(KnowledgeGraph(memory).search_nodes(caller.scope, args["query"]))


def _open_nodes(memory: Memory, caller: Caller, args: dict[str, Any]) -> dict[str, Any]:
    return graph(KnowledgeGraph(memory).open_nodes(caller.scope, args["names"]))


def _message(result: dict[str, Any]) -> str:
    return str(result["message"])


TOOLS: tuple[Tool, ...] = (
    Tool(
        name="create_entities",
        title="Create Entities",
        description="Create multiple new entities in the knowledge graph",
        schema=_schema({"entities": {"type": "array", "items": ENTITY_IN}}),
        output_schema=_schema({"entities": {"type": "array", "items": ENTITY_OUT}}, closed=True),
        role=Role.WRITER,
        run=_create_entities,
        read_only=False,
        idempotent=False,
        text=lambda result: pretty(result["entities"]),
    ),
    Tool(
        name="create_relations",
        title="Create Relations",
        description=(
            "Create multiple new relations between entities in the knowledge graph. "
            "Relations should be in active voice"
        ),
        schema=_schema({"relations": {"type": "array", "items": RELATION_IN}}),
        output_schema=_schema({"relations": {"type": "array", "items": RELATION_OUT}}, closed=True),
        role=Role.WRITER,
        run=_create_relations,
        read_only=False,
        idempotent=False,
        text=lambda result: pretty(result["relations"]),
    ),
    Tool(
        name="add_observations",
        title="Add Observations",
        description="Add new observations to existing entities in the knowledge graph",
        schema=_schema(
            {
                "observations": {
                    "type": "array",
                    "items": _object(
                        {
                            "entityName": {
                                "type": "string",
                                "description": "The name of the entity to add the observations to",
                            },
                            "contents": {
                                "type": "array",
                                "items": {"type": "string"},
                                "description": "An array of observation contents to add",
                            },
                        },
                        closed=False,
                    ),
                }
            }
        ),
        output_schema=_schema(
            {
                "results": {
                    "type": "array",
                    "items": _object(
                        {
                            "entityName": {"type": "string"},
                            "addedObservations": {"type": "array", "items": {"type": "string"}},
                        },
                        closed=True,
                    ),
                }
            },
            closed=True,
        ),
        role=Role.WRITER,
        run=_add_observations,
        read_only=False,
        idempotent=False,
        text=lambda result: pretty(result["results"]),
    ),
    Tool(
        name="delete_entities",
        title="Delete Entities",
        description=(
            "Delete multiple entities and their associated relations from the knowledge graph"
        ),
        schema=_schema(
            {
                "entityNames": _described(
                    {"type": "array", "items": {"type": "string"}},
                    "An array of entity names to delete",
                )
            }
        ),
        output_schema=DONE_OUT,
        role=Role.WRITER,
        run=_delete_entities,
        read_only=False,
        destructive=True,
        idempotent=True,
        text=_message,
    ),
    Tool(
        name="delete_observations",
        title="Delete Observations",
        description="Delete specific observations from entities in the knowledge graph",
        schema=_schema(
            {
                "deletions": {
                    "type": "array",
                    "items": _object(
                        {
                            "entityName": {
                                "type": "string",
                                "description": "The name of the entity containing the observations",
                            },
                            "observations": {
                                "type": "array",
                                "items": {"type": "string"},
                                "description": "An array of observations to delete",
                            },
                        },
                        closed=False,
                    ),
                }
            }
        ),
        output_schema=DONE_OUT,
        role=Role.WRITER,
        run=_delete_observations,
        read_only=False,
        destructive=True,
        idempotent=True,
        text=_message,
    ),
    Tool(
        name="delete_relations",
        title="Delete Relations",
        description="Delete multiple relations from the knowledge graph",
        schema=_schema(
            {
                "relations": _described(
                    {"type": "array", "items": RELATION_IN}, "An array of relations to delete"
                )
            }
        ),
        output_schema=DONE_OUT,
        role=Role.WRITER,
        run=_delete_relations,
        read_only=False,
        destructive=True,
        idempotent=True,
        text=_message,
    ),
    Tool(
        name="read_graph",
        title="Read Graph",
        description="Read the entire knowledge graph",
        schema=_schema({}),
        output_schema=GRAPH_OUT,
        role=Role.READER,
        run=_read_graph,
        text=pretty,
    ),
    Tool(
        name="search_nodes",
        title="Search Nodes",
        description="Search for nodes in the knowledge graph based on a query",
        schema=_schema(
            {
                "query": {
                    "type": "string",
                    "description": (
                        "The search query to match against entity names, types, and "
                        "observation content"
                    ),
                }
            }
        ),
        output_schema=GRAPH_OUT,
        role=Role.READER,
        run=_search_nodes,
        text=pretty,
    ),
    Tool(
        name="open_nodes",
        title="Open Nodes",
        description="Open specific nodes in the knowledge graph by their names",
        schema=_schema(
            {
                "names": _described(
                    {"type": "array", "items": {"type": "string"}},
                    "An array of entity names to retrieve",
                )
            }
        ),
        output_schema=GRAPH_OUT,
        role=Role.READER,
        run=_open_nodes,
        text=pretty,
    ),
)


class GraphResource:
    """`memory://knowledge-graph`: the whole graph, as read_graph answers it."""

    def listed(self, caller: Caller) -> list[types.Resource]:
        return [
            types.Resource(
                name="knowledge-graph",
                title="Knowledge Graph",
                uri=GRAPH_URI,
                description="The full knowledge graph with all entities and relations",
                mime_type="application/json",
            )
        ]

    def templates(self, caller: Caller) -> list[types.ResourceTemplate]:
        return []

    def read(self, memory: Memory, caller: Caller, uri: str) -> str:
        if uri != GRAPH_URI:
            raise NotFound(f"unknown resource {uri!r}")
        return pretty(graph(KnowledgeGraph(memory).read_graph(caller.scope)))


MEMORY = ToolSet(
    name="memory",
    title="factgraph memory (the knowledge-graph tools of @modelcontextprotocol/server-memory)",
    tools=TOOLS,
    resources=GraphResource(),
    error_text=plain,
)
