"""mem0's open-source server API (mem0ai/mem0 `server/main.py`): `/memories`, `/search`,
`/reset`, with the key in `X-API-Key`, so that agents and tools built against a self-hosted
mem0 switch by URL.

The routes act on the same mem0 project as the platform routes (resolvers/mem0/http.py: the
`X-Scope` header, the key's project, else FACTGRAPH_DEFAULT_SCOPE) through the same service
(graph/adapters/mem0/); they answer in the server's shapes (resolvers/mem0/oss_shapes.py).
docs/mem0.md says where they differ from it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field
from starlette.requests import Request
from starlette.responses import Response

from graph.adapters.mem0 import Project
from graph.adapters.mem0.entities import KINDS, EntityIds, checked_id, entity_ids
from graph.adapters.mem0.filters import ANY, Filter, all_of, equalities, parse
from graph.adapters.mem0.held import Held
from graph.adapters.mem0.reading import MAX_SEARCH_TOP_K, Entity, HistoryEvent, Scored
from graph.adapters.mem0.writing import STORED_ROLES, Added, Change
from graph.errors import NotFound, ValidationError
from graph.search.options import MAX_QUERY_CHARS
from resolvers.http.context import call
from resolvers.http.openapi import Identifier, Param, Reply, described
from resolvers.mem0 import requests
from resolvers.mem0.bodies import PROJECT_PARAMS, fields_of, query_names
from resolvers.mem0.http import answer, json_body, project_of, project_of_memory, route
from resolvers.mem0.oss_shapes import (
    DEFAULT_OSS_THRESHOLD,
    DEFAULT_OSS_TOP_K,
    MAX_OSS_LIST,
    OssAddResponse,
    OssEntity,
    OssError,
    OssHistoryEntry,
    OssHits,
    OssMemories,
    OssMemory,
    OssMemoryCreate,
    OssMemoryUpdate,
    OssMessageResponse,
    OssSearchRequest,
    oss_added,
    oss_entity,
    oss_history,
    oss_memory,
    oss_scored,
)
from resolvers.mem0.requests import boolean, integer, known, number

TAG = "mem0 server"
IDS = ("user_id", "agent_id", "run_id")
HEADER_ONLY = tuple(p for p in PROJECT_PARAMS if p.location == "header")
MEMORY_ID = Param("memory_id", "path", "Any version's id of the memory.", Identifier, required=True)
BAD = Reply("Bad input: `detail` names the field and what is wrong. Nothing was written.", OssError)
NOT_FOUND = Reply("No memory with this id in the project, or it was deleted.", OssError)
_ID_PARAMS = tuple(
    Param(name, "query", f"Only memories carrying this {name[:-3]} id (empty: any).")
    for name in IDS
)
LIST_PARAMS = (
    *HEADER_ONLY,
    *_ID_PARAMS,
    Param(
        "top_k",
        "query",
        f"How many at most (20 with ids; 0 to {MAX_OSS_LIST}).",
        Annotated[int, Field(ge=0, le=MAX_OSS_LIST)],
    ),
    Param("show_expired", "query", "`true`: also list expired memories.", bool),
)


def oss_described(
    summary: str,
    *,
    operation_id: str,
    replies: dict[int, Reply],
    body: Any = None,
    params: tuple[Param, ...] = HEADER_ONLY,
    description: str | None = None,
) -> Any:
    """`described` for a route of mem0's server, under mem0's own (FastAPI's) operation id."""
    return described(
        summary,
        tag=TAG,
        body=body,
        params=params,
        replies={400: BAD, **replies},
        description=description,
        operation_id=operation_id,
        errors=OssError,
    )


@oss_described(
    "Create memories",
    operation_id="add_memory_memories_post",
    body=OssMemoryCreate,
    replies={200: Reply("What became of each stored message.", OssAddResponse)},
    description="Each user or assistant message becomes a memory of its owner (the user, "
    "else the agent, else the run); system and tool messages are not stored. Needs the "
    "`writer` role.",
)
@route
async def add(request: Request) -> Response:
    """`POST /memories`."""
    body = await json_body(request)
    known(body, fields_of(OssMemoryCreate))
    known(request.query_params, ())
    ids = entity_ids({k: v for k, v in body.items() if k in IDS})
    if ids.owner is None:
        raise ValidationError(
            "user_id", "At least one identifier (user_id, agent_id, run_id) is required."
        )
    said = requests.messages(body.get("messages"))
    infer = body.get("infer")
    project = project_of(request)
    added: Added = await call(
        project.add,
        said,
        ids,
        metadata=requests.metadata(body.get("metadata")),
        infer=True if infer is None else boolean(body, "infer", True),
        expires_at=requests.expiration("expiration_date", body.get("expiration_date")),
    )
    roles = [m.role for m in said if m.role in STORED_ROLES]
    results = [oss_added(stored, role) for stored, role in zip(added.results, roles, strict=True)]
    return answer(OssAddResponse(results=results))


@oss_described(
    "Get memories",
    operation_id="get_all_memories_memories_get",
    params=LIST_PARAMS,
    replies={200: Reply("The memories, newest first.", OssMemories)},
    description="The live memories carrying every id given (at most `top_k`, 20 unless "
    "given); without ids, every memory of the project (at most 1,000), which needs the "
    "`admin` role. Needs the `reader` role.",
)
@route
async def listed(request: Request) -> Response:
    """`GET /memories?user_id=...`."""
    values = dict(request.query_params)
    known(values, query_names(LIST_PARAMS))
    given = {k: values[k] for k in IDS if values.get(k)}
    top_k = integer(values, "top_k", DEFAULT_OSS_TOP_K if given else MAX_OSS_LIST, 0, MAX_OSS_LIST)
    show_expired = boolean(values, "show_expired", False)
    project = project_of(request)
    if given:
        where = all_of([parse({k: v}, where="") for k, v in given.items()])
    else:
        where = _everything()
        project.caller.check(_project_scope(project), "admin")
    helds: list[Held] = await call(project.select, where, show_expired=show_expired)
    shown = [oss_memory(h, project.ids(h.fact)) for h in helds[:top_k]]
    return answer(OssMemories(results=shown))


@oss_described(
    "Get a memory",
    operation_id="get_memory_memories__memory_id__get",
    params=(*HEADER_ONLY, MEMORY_ID),
    replies={
        200: Reply("The memory, or null when there is none (as mem0 answers).", OssMemory | None)
    },
    description="Needs the `reader` role.",
)
@route
async def get(request: Request) -> Response:
    """`GET /memories/{memory_id}`: null (200) for an unknown or deleted memory, as mem0's
    server answers."""
    known(request.query_params, ())
    memory_id = request.path_params["memory_id"]
    project = await project_of_memory(request, memory_id)
    held: Held | None = await call(_get_or_none, project, memory_id)
    return answer(oss_memory(held, project.ids(held.fact)) if held is not None else None)


def _get_or_none(project: Project, memory_id: str) -> Held | None:
    try:
        return project.get(memory_id)
    except NotFound:
        return None


@oss_described(
    "Search memories",
    operation_id="search_memories_search_post",
    body=OssSearchRequest,
    replies={200: Reply("The hits, best first.", OssHits)},
    description="factgraph's hybrid search in every scope the filter reaches, by relevance "
    "(`score`, 0..1); `threshold` is 0.1 unless given, `top_k` 20. Needs the `reader` role.",
)
@route
async def search(request: Request) -> Response:
    """`POST /search`."""
    body = await json_body(request)
    known(body, fields_of(OssSearchRequest))
    known(request.query_params, ())
    query = body.get("query")
    if not isinstance(query, str) or not query.strip():
        raise ValidationError("query", "is required: a non-empty string")
    if len(query) > MAX_QUERY_CHARS:
        raise ValidationError("query", f"longer than {MAX_QUERY_CHARS} characters")
    top_k = integer(body, "top_k", DEFAULT_OSS_TOP_K, 1, MAX_SEARCH_TOP_K)
    threshold = number(body, "threshold")
    threshold = DEFAULT_OSS_THRESHOLD if threshold is None else threshold
    if not 0.0 <= threshold <= 1.0:
        raise ValidationError("threshold", f"must be between 0 and 1, got {threshold}")
    raw = body.get("filters") or {}
    if not isinstance(raw, dict):
        raise ValidationError("filters", "must be a JSON object")
    for k in IDS:  # a 5-minute contract fuzz sent `"run_id": {}`, which was taken as absent
        if body.get(k) is not None and (not isinstance(body[k], str) or not body[k].strip()):
            raise ValidationError(k, "must be a non-empty string")
    merged = oss_filters({**raw, **{k: body[k] for k in IDS if body.get(k)}})
    if not any(k in merged for k in (*IDS, "AND", "OR", "NOT")):
        raise ValidationError(
            "filters",
            "filters must contain at least one of: user_id, agent_id, run_id. "
            "Example: filters={'user_id': 'u1'}",
        )
    boolean(body, "explain", False)  # ignored, as the document says, once it is a flag
    project = project_of(request)
    hits: list[Scored] = await call(
        project.search,
        query.strip(),
        all_of([parse(merged)]),
        top_k=top_k,
        threshold=threshold,
        show_expired=boolean(body, "show_expired", False),
    )
    found = [oss_scored(h.held, project.ids(h.held.fact), h.relevance) for h in hits]
    return answer(OssHits(results=found))


@oss_described(
    "Update a memory",
    operation_id="update_memory_memories__memory_id__put",
    body=OssMemoryUpdate,
    params=(*HEADER_ONLY, MEMORY_ID),
    replies={200: Reply("Updated.", OssMessageResponse), 404: NOT_FOUND},
    description="A new text supersedes the memory's current version (its history keeps both; "
    "the memory keeps its id); metadata or an expiration date alone change it in place. Needs "
    "the `writer` role.",
)
@route
async def update(request: Request) -> Response:
    """`PUT /memories/{memory_id}`."""
    body = await json_body(request)
    known(body, fields_of(OssMemoryUpdate))
    known(request.query_params, ())
    wanted = requests.update_request({k: v for k, v in body.items() if v is not None})
    if "expiration_date" in body and body["expiration_date"] is None:
        wanted["expiration"] = None
    change = Change(
        text=wanted.get("text"),
        metadata=wanted.get("metadata"),
        set_expires="expiration" in wanted,
        expires_at=wanted.get("expiration"),
    )
    if change.empty:
        raise ValidationError(
            "text", "At least one of text, metadata, or expiration_date must be provided."
        )
    memory_id = request.path_params["memory_id"]
    project = await project_of_memory(request, memory_id)
    await call(project.update, memory_id, change)
    return answer(OssMessageResponse(message="Memory updated successfully!"))


@oss_described(
    "Get memory history",
    operation_id="memory_history_memories__memory_id__history_get",
    params=(*HEADER_ONLY, MEMORY_ID),
    replies={200: Reply("ADD, UPDATE per new text, DELETE.", list[OssHistoryEntry])},
    description="Every change, oldest first, each with the memory's id; an unknown memory has "
    "none. Needs the `reader` role.",
)
@route
async def history(request: Request) -> Response:
    """`GET /memories/{memory_id}/history`: `[]` for an unknown memory, as mem0's server."""
    known(request.query_params, ())
    memory_id = request.path_params["memory_id"]
    project = await project_of_memory(request, memory_id)
    events: list[HistoryEvent] = await call(_history_or_none, project, memory_id)
    return answer([oss_history(e) for e in events])


def _history_or_none(project: Project, memory_id: str) -> list[HistoryEvent]:
    try:
        return project.history(memory_id)
    except NotFound:
        return []


@oss_described(
    "Delete a memory",
    operation_id="delete_memory_memories__memory_id__delete",
    params=(*HEADER_ONLY, MEMORY_ID),
    replies={200: Reply("Forgotten.", OssMessageResponse), 404: NOT_FOUND},
    description="Forgets the memory: it leaves every read, its history stays. Needs the "
    "`writer` role.",
)
@route
async def delete(request: Request) -> Response:
    """`DELETE /memories/{memory_id}`."""
    known(request.query_params, ())
    memory_id = request.path_params["memory_id"]
    project = await project_of_memory(request, memory_id)
    await call(project.delete, memory_id)
    return answer(OssMessageResponse(message="Memory deleted successfully"))


@oss_described(
    "Delete all memories",
    operation_id="delete_all_memories_memories_delete",
    params=(*HEADER_ONLY, *_ID_PARAMS),
    replies={200: Reply("Forgotten.", OssMessageResponse)},
    description="Forgets every memory carrying all the ids given (at least one). Needs the "
    "`admin` role, as on mem0's server.",
)
@route
async def delete_all(request: Request) -> Response:
    """`DELETE /memories?user_id=...`."""
    values = dict(request.query_params)
    known(values, IDS)
    given = {k: values[k] for k in IDS if values.get(k)}
    if not given:
        raise ValidationError("user_id", "At least one identifier is required.")
    project = project_of(request)
    where = all_of([parse({k: v}, where="") for k, v in given.items()])
    await call(project.delete_where, where, role="admin")
    return answer(OssMessageResponse(message="All relevant memories deleted"))


@oss_described(
    "Reset all memories",
    operation_id="reset_memory_reset_post",
    replies={200: Reply("Every memory of the project forgotten.", OssMessageResponse)},
    description="Forgets every memory of the project (their history stays: `factgraph purge` "
    "erases). Needs the `admin` role, as on mem0's server.",
)
@route
async def reset(request: Request) -> Response:
    """`POST /reset`."""
    known(request.query_params, ())
    project = project_of(request)
    project.caller.check(_project_scope(project), "admin")
    await call(project.delete_where, _everything(), role="admin")
    return answer({"message": "All memories reset"})


# The kinds of id mem0's server knows (an app id, a platform notion, is listed by
# `GET /v1/entities/` only).
OSS_KINDS = ("user", "agent", "run")
ENTITY_PARAMS = (
    *HEADER_ONLY,
    Param(
        "entity_type",
        "path",
        "`user`, `agent` or `run`.",
        Literal["user", "agent", "run"],
        required=True,
    ),
    Param(
        "entity_id",
        "path",
        "The id (`alice`); it may hold `/` (`team/alice`, or `team%2Falice` decoded once).",
        Identifier,
        required=True,
    ),
)


@oss_described(
    "List entities",
    operation_id="list_entities_entities_get",
    replies={200: Reply("By type, then id.", list[OssEntity])},
    description="Every user, agent and run id carried by live memories the key may read, with "
    "how many, when the first was made and when the last changed. Needs the `reader` role.",
)
@route
async def entities(request: Request) -> Response:
    """`GET /entities` (the server's dashboard lists its entities with it)."""
    known(request.query_params, ())
    project = project_of(request)
    found: list[Entity] = await call(project.entities)
    shown = sorted((e for e in found if e.kind in OSS_KINDS), key=lambda e: (e.kind, e.name))
    return answer([oss_entity(e) for e in shown])


@oss_described(
    "Delete an entity",
    operation_id="delete_entity_entities__entity_type___entity_id__delete",
    params=ENTITY_PARAMS,
    replies={200: Reply("Forgotten (also when it had none).", OssMessageResponse)},
    description="Forgets every memory carrying the id (their history stays). Needs the "
    "`admin` role, as on mem0's server.",
)
@route
async def delete_entity(request: Request) -> Response:
    """`DELETE /entities/{entity_type}/{entity_id}`."""
    known(request.query_params, ())
    kind = request.path_params["entity_type"]
    if kind not in OSS_KINDS:
        raise ValidationError("entity_type", f"must be one of {', '.join(OSS_KINDS)}")
    name = checked_id(f"{kind}_id", request.path_params["entity_id"])
    project = project_of(request)
    await call(project.delete_where, equalities(EntityIds(**{kind: name})), role="admin")
    return answer(OssMessageResponse(message="Entity deleted"))


LLM_CONFIGURATION = (
    "factgraph has no LLM configuration route: its models are set where the server starts "
    "(FACTGRAPH_MODEL, FACTGRAPH_LLM_*; docs/configuration.md, docs/mem0.md)"
)
NOT_HERE = Reply(
    "Not served: mem0's server configures its LLM and vector store here; factgraph is "
    "configured where it starts. `detail` says where.",
    OssError,
)


def _not_served(summary: str, operation_id: str, description: str) -> Any:
    """`described` for a route of mem0's server that factgraph answers with 501 alone."""
    return described(
        summary,
        tag=TAG,
        params=(),
        replies={501: NOT_HERE},
        description=description,
        operation_id=operation_id,
        errors=OssError,
    )


def _not_configurable(route: str) -> Response:
    detail = f"{route}: {LLM_CONFIGURATION}"
    return answer({"detail": detail, "error": {"code": "NOT_IMPLEMENTED", "message": detail}}, 501)


@_not_served(
    "Configure mem0 (not served)",
    "set_config_configure_post",
    "mem0's server sets its LLM, embedder and vector store here; factgraph answers "
    "501 with where its own configuration lives.",
)
@route
async def configure(request: Request) -> Response:
    """`POST /configure`."""
    return _not_configurable("/configure")


@_not_served(
    "Get the configuration (not served)",
    "get_config_configure_get",
    "mem0's server shows its LLM, embedder and vector store configuration here; factgraph "
    "answers 501 with where its own configuration lives.",
)
@route
async def configuration(request: Request) -> Response:
    """`GET /configure`."""
    return _not_configurable("/configure")


@_not_served(
    "List configurable providers (not served)",
    "get_providers_configure_providers_get",
    "mem0's server lists the LLM and vector store providers it can be configured "
    "with; factgraph answers 501 with where its own configuration lives.",
)
@route
async def configure_providers(request: Request) -> Response:
    """`GET /configure/providers`."""
    return _not_configurable("/configure/providers")


@_not_served(
    "Generate instructions (not served)",
    "generate_instructions_generate_instructions_post",
    "mem0's server asks its LLM to write custom instructions; factgraph answers 501: "
    "it keeps the user's standing instructions from what is remembered (docs/search.md).",
)
@route
async def generate_instructions(request: Request) -> Response:
    """`POST /generate-instructions`."""
    return _not_configurable("/generate-instructions")


def oss_filters(raw: Any) -> Any:
    """mem0's server reads a filter key that is not an id (nor AND, OR, NOT) as a metadata
    key (`{"user_id": "u1", "topic": "food"}`); the platform's grammar names it under
    `metadata`."""
    if isinstance(raw, list):
        return [oss_filters(item) for item in raw]
    if not isinstance(raw, dict):
        return raw
    out: dict[str, Any] = {}
    metadata: dict[str, Any] = {}
    for key, value in raw.items():
        if key in ("AND", "OR", "NOT"):
            out[key] = oss_filters(value)
        elif key in IDS:
            out[key] = value
        else:
            metadata[key] = value
    if metadata:
        out["metadata"] = metadata
    return out


def _everything() -> Filter:
    """Every memory of the project: any user, agent, app or run."""
    return all_of([parse({"OR": [{f"{kind}_id": ANY} for kind in KINDS]})])


def _project_scope(project: Project) -> str:
    """A scope standing for the whole project, for checks of a project-wide right."""
    return f"{project.prefix}*"
