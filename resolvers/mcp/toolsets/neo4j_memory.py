"""The `neo4j-memory` tool set: `mcp-neo4j-memory`'s nine tools, as that server lists them, with
its shapes (entities `{name, type, observations}`, relations `{source, target, relationType}`)
and its answers' texts.

Same knowledge graph as the `memory` tool set (graph/adapters/knowledge_graph/), with this server's
own rules: create_entities merges into an existing entity (its documented behaviour),
create_relations links only entities that exist, and search_memories takes any word of the query,
as its full-text search does. One rule is factgraph's: add_observations on an entity that does not
exist is an error and saves nothing (mcp-neo4j-memory drops it silently; its description says
the entity must exist). Errors name the field in this server's words (`entities.0.type`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from graph.adapters.knowledge_graph.model import Entity, Graph, Relation
from graph.adapters.knowledge_graph.service import KnowledgeGraph
from graph.auth.roles import Role
from graph.errors import ValidationError
from resolvers.mcp.toolset import Caller, NoResources, Runner, Tool, ToolSet, plain

if TYPE_CHECKING:
    from graph.memory import Memory

_NAME_PATTERN = "^[A-Za-z_][A-Za-z0-9_]*$"
# The knowledge-graph service names fields as the reference server does; this server's words.
_WORDS = {"entityType": "type", "from": "source", "to": "target", "contents": "observations"}


def _string(description: str, examples: list[str], *, pattern: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {
        "description": description,
        "examples": examples,
        "minLength": 1,
        "type": "string",
    }
    if pattern:
        out["pattern"] = _NAME_PATTERN
    return out


def _strings(description: str, *, at_least_one: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"description": description, "items": {"type": "string"}}
    if at_least_one:
        out["minItems"] = 1
    out["type"] = "array"
    return out


def _object(
    description: str | None, properties: dict[str, Any], required: list[str]
) -> dict[str, Any]:
    out: dict[str, Any] = {} if description is None else {"description": description}
    return {**out, "properties": properties, "required": required, "type": "object"}


def _list_of(description: str, item: dict[str, Any]) -> dict[str, Any]:
    return {"description": description, "items": item, "type": "array"}


ENTITY = _object(
    "Represents a memory entity in the knowledge graph.\n\nExample:\n{\n"
    '    "name": "John Smith",\n    "type": "person", \n'
    '    "observations": ["Works at Neo4j", "Lives in San Francisco", '
    '"Expert in graph databases"]\n}',
    {
        "name": _string(
            "Unique identifier/name for the entity. Should be descriptive and specific.",
            ["John Smith", "Neo4j Inc", "San Francisco"],
        ),
        "type": _string(
            "Category or classification of the entity. Common types: 'person', 'company', "
            "'location', 'concept', 'event'",
            ["person", "company", "location", "concept", "event"],
            pattern=True,
        ),
        "observations": {
            "description": "List of facts, observations, or notes about this entity. Each "
            "observation should be a complete, standalone fact.",
            "examples": [
                ["Works at Neo4j", "Lives in San Francisco"],
                ["Headquartered in Sweden", "Graph database company"],
            ],
            "items": {"type": "string"},
            "type": "array",
        },
    },
    ["name", "type", "observations"],
)
RELATION = _object(
    "Represents a relationship between two entities in the knowledge graph.\n\nExample:\n{\n"
    '    "source": "John Smith",\n    "target": "Neo4j Inc", \n'
    '    "relationType": "WORKS_AT"\n}',
    {
        "source": _string(
            "Name of the source entity (must match an existing entity name exactly)",
            ["John Smith", "Neo4j Inc"],
        ),
        "target": _string(
            "Name of the target entity (must match an existing entity name exactly)",
            ["Neo4j Inc", "San Francisco"],
        ),
        "relationType": _string(
            "Type of relationship between source and target. Use descriptive, uppercase "
            "names with underscores.",
            ["WORKS_AT", "LIVES_IN", "MANAGES", "COLLABORATES_WITH", "LOCATED_IN"],
            pattern=True,
        ),
    },
    ["source", "target", "relationType"],
)


def _observations(description: str, entity: str, observations: str, example: str) -> dict[str, Any]:
    return _object(
        description + f"\n\nExample:\n{example}",
        {
            "entityName": _string(entity, ["John Smith", "Neo4j Inc"]),
            "observations": _strings(observations, at_least_one=True),
        },
        ["entityName", "observations"],
    )


def _arguments(properties: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"properties": properties}
    if properties:
        out["required"] = list(properties)
    out["type"] = "object"
    return out


# -- shapes ----------------------------------------------------------------------------------
def entity(value: Entity) -> dict[str, Any]:
    return {"name": value.name, "type": value.entity_type, "observations": list(value.observations)}


def relation(value: Relation) -> dict[str, Any]:
    return {"source": value.source, "target": value.target, "relationType": value.relation_type}


def graph(value: Graph) -> dict[str, Any]:
    return {
        "entities": [entity(e) for e in value.entities],
        "relations": [relation(r) for r in value.relations],
    }


def _dumps(result: dict[str, Any]) -> str:
    """A list answer as the server writes it (`json.dumps`, its default spacing and escapes)."""
    return json.dumps(result["result"])


def _message(result: dict[str, Any]) -> str:
    return str(result["result"])


def _compact(result: dict[str, Any]) -> str:
    """A graph answer as the server writes it (pydantic's `model_dump_json`)."""
    return json.dumps(result, ensure_ascii=False, separators=(",", ":"))


def _in_its_words(run: Runner) -> Runner:
    """`run`, with a refused field renamed to this server's word for it."""

    def renamed(memory: Memory, caller: Caller, args: dict[str, Any]) -> dict[str, Any]:
        try:
            return run(memory, caller, args)
        except ValidationError as exc:
            field = ".".join(_WORDS.get(part, part) for part in exc.field.split("."))
            raise ValidationError(field, exc.reason) from None

    return renamed


def _relations_in(args: dict[str, Any]) -> list[Relation]:
    return [Relation(r["source"], r["target"], r["relationType"]) for r in args["relations"]]


# -- runners ---------------------------------------------------------------------------------
def _create_entities(memory: Memory, caller: Caller, args: dict[str, Any]) -> dict[str, Any]:
    given = [Entity(e["name"], e["type"], tuple(e["observations"])) for e in args["entities"]]
    made = KnowledgeGraph(memory).create_entities(
        caller.scope, given, actor=caller.actor, merge=True
    )
    return {"result": [entity(e) for e in made]}


def _create_relations(memory: Memory, caller: Caller, args: dict[str, Any]) -> dict[str, Any]:
    made = KnowledgeGraph(memory).create_relations(
        caller.scope, _relations_in(args), actor=caller.actor, between_members=True
    )
    return {"result": [relation(r) for r in made]}


def _add_observations(memory: Memory, caller: Caller, args: dict[str, Any]) -> dict[str, Any]:
    additions = [(o["entityName"], o["observations"]) for o in args["observations"]]
    added = KnowledgeGraph(memory).add_observations(caller.scope, additions, actor=caller.actor)
    return {
        "result": [
            {"entityName": a.entity_name, "addedObservations": a.observations} for a in added
        ]
    }


def _delete_entities(memory: Memory, caller: Caller, args: dict[str, Any]) -> dict[str, Any]:
    KnowledgeGraph(memory).delete_entities(caller.scope, args["entityNames"], actor=caller.actor)
    return {"result": "Entities deleted successfully"}


def _delete_observations(memory: Memory, caller: Caller, args: dict[str, Any]) -> dict[str, Any]:
    deletions = [(d["entityName"], d["observations"]) for d in args["deletions"]]
    KnowledgeGraph(memory).delete_observations(caller.scope, deletions, actor=caller.actor)
    return {"result": "Observations deleted successfully"}


def _delete_relations(memory: Memory, caller: Caller, args: dict[str, Any]) -> dict[str, Any]:
    KnowledgeGraph(memory).delete_relations(caller.scope, _relations_in(args), actor=caller.actor)
    return {"result": "Relations deleted successfully"}


def _read_graph(memory: Memory, caller: Caller, args: dict[str, Any]) -> dict[str, Any]:
    return graph(KnowledgeGraph(memory).read_graph(caller.scope))


def _search_memories(memory: Memory, caller: Caller, args: dict[str, Any]) -> dict[str, Any]:
    return graph(KnowledgeGraph(memory).search_nodes(caller.scope, args["query"]))


def _find_memories_by_name(memory: Memory, caller: Caller, args: dict[str, Any]) -> dict[str, Any]:
    return graph(KnowledgeGraph(memory).open_nodes(caller.scope, args["names"]))


def _tool(
    name: str,
    title: str,
    description: str,
    schema: dict[str, Any],
    run: Runner,
    text: Callable[[dict[str, Any]], str],
    *,
    writes: bool = False,
    destructive: bool = False,
) -> Tool:
    return Tool(
        name=name,
        title=title,
        description=description.strip(),
        schema=schema,
        role=Role.WRITER if writes else Role.READER,
        run=_in_its_words(run),
        read_only=not writes,
        destructive=destructive,
        idempotent=True,
        open_world=True,
        text=text,
    )


READ_GRAPH = """
Read the entire knowledge graph with all entities and relationships.

Returns the complete memory graph including all stored entities and their relationships.
Use this to get a full overview of stored knowledge.

Returns:
    KnowledgeGraph: Complete graph with all entities and relations

Example response:
{
    "entities": [
        {"name": "John Smith", "type": "person", "observations": ["Works at Neo4j"]},
        {"name": "Neo4j Inc", "type": "company", "observations": ["Graph database company"]}
    ],
    "relations": [
        {"source": "John Smith", "target": "Neo4j Inc", "relationType": "WORKS_AT"}
    ]
}
"""
CREATE_ENTITIES = """
Create multiple new entities in the knowledge graph.

Creates new memory entities with their associated observations. If an entity with the same name
already exists, this operation will merge the observations with existing ones.


Returns:
    list[Entity]: The created entities with their final state

Example call:
{
    "entities": [
        {
            "name": "Alice Johnson",
            "type": "person",
            "observations": ["Software engineer", "Lives in Seattle", "Enjoys hiking"]
        },
        {
            "name": "Microsoft",
            "type": "company",
            "observations": ["Technology company", "Headquartered in Redmond, WA"]
        }
    ]
}
"""
CREATE_RELATIONS = """
Create multiple new relationships between existing entities in the knowledge graph.

Creates directed relationships between entities that already exist. Both source and target
entities must already be present in the graph. Use descriptive relationship types.

Returns:
    list[Relation]: The created relationships

Example call:
{
    "relations": [
        {
            "source": "Alice Johnson",
            "target": "Microsoft",
            "relationType": "WORKS_AT"
        },
        {
            "source": "Alice Johnson",
            "target": "Seattle",
            "relationType": "LIVES_IN"
        }
    ]
}
"""
ADD_OBSERVATIONS = """
Add new observations/facts to existing entities in the knowledge graph.

Appends new observations to entities that already exist. The entity must be present
in the graph before adding observations. Each observation should be a distinct fact.

Returns:
    list[dict]: Details about the added observations including entity name and new facts

Example call:
{
    "observations": [
        {
            "entityName": "Alice Johnson",
            "observations": ["Promoted to Senior Engineer", "Completed AWS certification"]
        },
        {
            "entityName": "Microsoft",
            "observations": ["Launched new AI products", "Stock price increased 15%"]
        }
    ]
}
"""
DELETE_ENTITIES = """
Delete entities and all their associated relationships from the knowledge graph.

Permanently removes entities from the graph along with all relationships they participate in.
This is a destructive operation that cannot be undone. Entity names must match exactly.

Returns:
    str: Success confirmation message

Example call:
{
    "entityNames": ["Old Company", "Outdated Person"]
}

Warning: This will delete the entities and ALL relationships they're involved in.
"""
DELETE_OBSERVATIONS = """
Delete specific observations from existing entities in the knowledge graph.

Removes specific observation texts from entities. The observation text must match exactly
what is stored. The entity will remain but the specified observations will be deleted.

Returns:
    str: Success confirmation message

Example call:
{
    "deletions": [
        {
            "entityName": "Alice Johnson",
            "observations": ["Old job title", "Outdated phone number"]
        },
        {
            "entityName": "Microsoft",
            "observations": ["Former CEO information"]
        }
    ]
}

Note: Observation text must match exactly (case-sensitive) to be deleted.
"""
DELETE_RELATIONS = """
Delete specific relationships between entities in the knowledge graph.

Removes relationships while keeping the entities themselves. The source, target, and
relationship type must match exactly for deletion. This only affects the relationships,
not the entities they connect.

Returns:
    str: Success confirmation message

Example call:
{
    "relations": [
        {
            "source": "Alice Johnson",
            "target": "Old Company",
            "relationType": "WORKS_AT"
        },
        {
            "source": "John Smith",
            "target": "Former City",
            "relationType": "LIVES_IN"
        }
    ]
}

Note: All fields (source, target, relationType) must match exactly for deletion.
"""
SEARCH_MEMORIES = """
Search for entities in the knowledge graph using fulltext search.

Searches across entity names, types, and observations using Neo4j's fulltext index.
Returns matching entities and their related connections. Supports partial matches
and multiple search terms.

Returns:
    KnowledgeGraph: Subgraph containing matching entities and their relationships

Example call:
{
    "query": "engineer software"
}

This searches for entities containing "engineer" or "software" in their name, type, or observations.
"""
FIND_MEMORIES_BY_NAME = """
Find specific entities by their exact names.

Retrieves entities that exactly match the provided names, along with all their
relationships and connected entities. Use this when you know the exact entity names.

Returns:
    KnowledgeGraph: Subgraph containing the specified entities and their relationships

Example call:
{
    "names": ["Alice Johnson", "Microsoft", "Seattle"]
}

This retrieves the entities with exactly those names plus their connections.
"""

TOOLS: tuple[Tool, ...] = (
    _tool("read_graph", "Read Graph", READ_GRAPH, _arguments({}), _read_graph, _compact),
    _tool(
        "create_entities",
        "Create Entities",
        CREATE_ENTITIES,
        _arguments(
            {
                "entities": _list_of(
                    "List of entities to create with name, type, and observations", ENTITY
                )
            }
        ),
        _create_entities,
        _dumps,
        writes=True,
    ),
    _tool(
        "create_relations",
        "Create Relations",
        CREATE_RELATIONS,
        _arguments(
            {
                "relations": _list_of(
                    "List of relations to create between existing entities", RELATION
                )
            }
        ),
        _create_relations,
        _dumps,
        writes=True,
    ),
    _tool(
        "add_observations",
        "Add Observations",
        ADD_OBSERVATIONS,
        _arguments(
            {
                "observations": _list_of(
                    "List of observations to add to existing entities",
                    _observations(
                        "Request to add new observations to an existing entity.",
                        "Exact name of the existing entity to add observations to",
                        "New observations/facts to add to the entity. Each should be unique "
                        "and informative.",
                        '{\n    "entityName": "John Smith",\n    "observations": ["Recently '
                        'promoted to Senior Engineer", "Speaks fluent German"]\n}',
                    ),
                )
            }
        ),
        _add_observations,
        _dumps,
        writes=True,
    ),
    _tool(
        "delete_entities",
        "Delete Entities",
        DELETE_ENTITIES,
        _arguments({"entityNames": _strings("List of exact entity names to delete permanently")}),
        _delete_entities,
        _message,
        writes=True,
        destructive=True,
    ),
    _tool(
        "delete_observations",
        "Delete Observations",
        DELETE_OBSERVATIONS,
        _arguments(
            {
                "deletions": _list_of(
                    "List of specific observations to remove from entities",
                    _observations(
                        "Request to delete specific observations from an existing entity.",
                        "Exact name of the existing entity to remove observations from",
                        "Exact observation texts to delete from the entity (must match "
                        "existing observations exactly)",
                        '{\n    "entityName": "John Smith", \n    "observations": ["Old job '
                        'title", "Outdated contact info"]\n}',
                    ),
                )
            }
        ),
        _delete_observations,
        _message,
        writes=True,
        destructive=True,
    ),
    _tool(
        "delete_relations",
        "Delete Relations",
        DELETE_RELATIONS,
        _arguments(
            {
                "relations": _list_of(
                    "List of specific relationships to delete from the graph", RELATION
                )
            }
        ),
        _delete_relations,
        _message,
        writes=True,
        destructive=True,
    ),
    _tool(
        "search_memories",
        "Search Memories",
        SEARCH_MEMORIES,
        _arguments(
            {
                "query": {
                    "description": "Fulltext search query to find entities by name, type, or "
                    "observations",
                    "type": "string",
                }
            }
        ),
        _search_memories,
        _compact,
    ),
    _tool(
        "find_memories_by_name",
        "Find Memories by Name",
        FIND_MEMORIES_BY_NAME,
        _arguments({"names": _strings("List of exact entity names to retrieve")}),
        _find_memories_by_name,
        _compact,
    ),
)

NEO4J_MEMORY = ToolSet(
    name="neo4j-memory",
    title="factgraph memory (the knowledge-graph tools of mcp-neo4j-memory)",
    tools=TOOLS,
    resources=NoResources(),
    error_text=plain,
)
