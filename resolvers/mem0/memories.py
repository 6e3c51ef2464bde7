"""mem0's memory routes: add, get, update, delete, delete by ids, history, list and search.

Each version of mem0's API the clients still call answers in its own shape: the 1.x client's
list and search (`POST /v2/memories/`, `/v2/memories/search/`) get a bare list, the 2.x and
JavaScript clients' (`/v3/...`) a paginated envelope and `{"results": [...]}`. The work is the
service's (graph/adapters/mem0/); this module reads requests and writes answers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from graph.adapters.mem0 import Project
from graph.adapters.mem0.held import Held
from graph.adapters.mem0.reading import MAX_SEARCH_TOP_K
from graph.adapters.mem0.store import Event
from graph.adapters.mem0.writing import Added, Change
from graph.errors import ValidationError
from graph.search.options import MAX_QUERY_CHARS
from resolvers.http.context import call
from resolvers.http.openapi import Param, Reply
from resolvers.mem0 import requests
from resolvers.mem0.bodies import (
    DELETE_ALL_PARAMS,
    LIST_PARAMS,
    MAX_PAGE_SIZE,
    MEMORY_ID,
    PAGE_PARAMS,
    PROJECT_PARAMS,
    Mem0AddRequest,
    Mem0ListRequest,
    Mem0SearchRequest,
    Mem0UpdateRequest,
    query_names,
)
from resolvers.mem0.http import (
    NOT_FOUND,
    answer,
    json_body,
    mem0_described,
    project_of,
    project_of_memory,
    route,
)
from resolvers.mem0.requests import boolean, integer, known, number
from resolvers.mem0.shapes import (
    Extraction,
    Mem0Added,
    Mem0AddResponse,
    Mem0Deleted,
    Mem0ErrorBody,
    Mem0Event,
    Mem0HistoryEvent,
    Mem0Memory,
    Mem0Message,
    Mem0Page,
    Mem0ScoredMemory,
    Mem0SearchResponse,
    added_record,
    event_record,
    history_record,
    memory_record,
    scored_record,
)

QUERY = query_names(PROJECT_PARAMS)
DELETE_LINKED = Param("delete_linked", "query", "Accepted: older versions are never shown.")
ADDED = Reply(
    "Done: the add's event (to poll, already SUCCEEDED), what became of each message, and "
    "whether extraction follows.",
    Mem0AddResponse,
)
ADD_HELP = (
    "Each user or assistant message becomes a memory of its owner's scope "
    "(`<project>/user:<id>`); system and tool messages are not stored. With `infer: false` "
    "stored as given; else through factgraph's write pipeline (duplicates, near duplicates, "
    "review of text aimed at the agent) and queued for the consolidator's extraction. A text "
    "the owner already holds gains the ids it lacked. Needs the `writer` role."
)
EVENT_ID = Param("event_id", "path", "The id an add answered.", required=True)
LISTED = Reply(
    "The memories, newest first: a list, or a page when both `page` and `page_size` are given.",
    list[Mem0Memory] | Mem0Page,
)
LIST_HELP = "The live memories the filter matches (it must name ids). Needs the `reader` role."
SEARCH_HELP = (
    "factgraph's hybrid search (full text and meaning) in every scope the filter reaches (each "
    "user, agent, app or run it names), by relevance. `score` is the hit's relevance, 0..1 "
    "(the chance that it answers the query, from the memory and the query alone); "
    "`threshold` compares it. Needs the `reader` role."
)


@mem0_described(
    "Add memories (mem0 1.x)",
    operation_id="memories_create",
    body=Mem0AddRequest,
    replies={200: ADDED},
    description=ADD_HELP,
)
@route
async def add_v1(request: Request) -> Response:
    """`POST /v1/memories/`: the 1.x client's add."""
    return await _add(request)


@mem0_described(
    "Add memories",
    operation_id="memories_add_v3",
    body=Mem0AddRequest,
    replies={200: ADDED},
    description=ADD_HELP,
)
@route
async def add_v3(request: Request) -> Response:
    """`POST /v3/memories/add/`: the 2.x and JavaScript clients' add."""
    return await _add(request)


async def _add(request: Request) -> Response:
    body = await json_body(request)
    known(request.query_params, QUERY)
    project = project_of(request, body)
    wanted = requests.add_request(body)
    added: Added = await call(
        project.add,
        wanted["messages"],
        wanted["ids"],
        metadata=wanted["metadata"],
        infer=wanted["infer"],
        timestamp=wanted["timestamp"],
        expires_at=wanted["expires_at"],
    )
    results = [added_record(stored) for stored in added.results]
    event: Event = await call(
        project.record_event, added.scope, body, results, started=added.started
    )
    return answer(add_response(added, results, event.id, infer=wanted["infer"]))


def add_response(
    added: Added, results: list[Mem0Added], event_id: str, *, infer: bool
) -> Mem0AddResponse:
    new = sum(1 for r in results if r["event"] != "NONE")
    stored = f"stored {len(results)} message(s): {new} new or changed memories"
    extraction: Extraction
    if not infer:
        extraction, message = "skipped", f"{stored}, kept as given (infer false)"
    elif added.extraction:
        extraction = "queued"
        message = f"{stored}; the consolidator extracts memories from them in the background"
    else:
        extraction = "unavailable"
        message = (
            f"{stored}, kept as given: extraction needs an LLM (FACTGRAPH_LLM_BASE_URL) and "
            "FACTGRAPH_CONSOLIDATE_EXTRACT=on"
        )
    return {
        "event_id": event_id,
        "status": "SUCCEEDED",
        "results": results,
        "relations": [],
        "message": message,
        "extraction": extraction,
    }


@mem0_described(
    "An add's event",
    operation_id="event_read",
    params=(*PROJECT_PARAMS, EVENT_ID),
    replies={
        200: Reply("The event: an add is done when it answers, so SUCCEEDED.", Mem0Event),
        404: Reply("No event with this id in the project.", Mem0ErrorBody),
    },
    description="What an add was asked and what it did, by the `event_id` it answered. Needs "
    "the `reader` role.",
)
@route
async def event(request: Request) -> Response:
    """`GET /v1/event/{event_id}/`: an add's event, to poll (already done)."""
    known(request.query_params, QUERY)
    project = project_of(request)
    found: Event = await call(project.event, request.path_params["event_id"])
    return answer(event_record(found))


@mem0_described(
    "Get a memory",
    operation_id="memories_read",
    params=(*PROJECT_PARAMS, MEMORY_ID),
    replies={200: Reply("The memory's current version.", Mem0Memory), 404: NOT_FOUND},
    description="Needs the `reader` role.",
)
@route
async def get(request: Request) -> Response:
    """`GET /v1/memories/{memory_id}/`: the memory's current version."""
    known(request.query_params, QUERY)
    memory_id = request.path_params["memory_id"]
    project = await project_of_memory(request, memory_id)
    held: Held = await call(project.get, memory_id)
    return answer(memory_record(held, project.ids(held.fact)))


@mem0_described(
    "Update a memory",
    operation_id="memories_update",
    body=Mem0UpdateRequest,
    params=(*PROJECT_PARAMS, MEMORY_ID),
    replies={
        200: Reply("The memory's current version, with its id and `created_at`.", Mem0Memory),
        404: NOT_FOUND,
        409: Reply("The new text is already held by another live memory.", Mem0ErrorBody),
    },
    description="A new text supersedes the memory's current version (its history keeps both; "
    "the memory keeps its id and `created_at`); metadata, `timestamp` or an expiration date "
    "alone change it in place. Needs the `writer` role.",
)
@route
async def update(request: Request) -> Response:
    """`PUT /v1/memories/{memory_id}/`: a new text supersedes; metadata, timestamp or expiry
    change in place. Answers the memory's current version, under the memory's id."""
    body = await json_body(request)
    known(request.query_params, QUERY)
    memory_id = request.path_params["memory_id"]
    project = await project_of_memory(request, memory_id, body)
    wanted = requests.update_request(body)
    change = Change(
        text=wanted.get("text"),
        metadata=wanted.get("metadata"),
        set_expires="expiration" in wanted,
        expires_at=wanted.get("expiration"),
        timestamp=wanted.get("timestamp"),
    )
    held: Held = await call(project.update, memory_id, change)
    return answer(memory_record(held, project.ids(held.fact)))


@mem0_described(
    "Delete a memory",
    operation_id="memories_delete",
    params=(*PROJECT_PARAMS, MEMORY_ID, DELETE_LINKED),
    replies={200: Reply("Forgotten.", Mem0Message), 404: NOT_FOUND},
    description="Forgets the memory's current version: it leaves every read, its history "
    "stays. Needs the `writer` role.",
)
@route
async def delete(request: Request) -> Response:
    """`DELETE /v1/memories/{memory_id}/`: forgets the current version (`delete_linked` is
    accepted: older versions are never shown anyway)."""
    known(request.query_params, (*QUERY, DELETE_LINKED.name))
    boolean(request.query_params, "delete_linked", False)
    memory_id = request.path_params["memory_id"]
    project = await project_of_memory(request, memory_id)
    await call(project.delete, memory_id)
    return answer(Mem0Message(message="Memory deleted successfully!"))


@mem0_described(
    "Delete the memories of ids",
    operation_id="memories_delete_all",
    params=DELETE_ALL_PARAMS,
    replies={200: Reply("Forgotten: `deleted` says how many were live.", Mem0Deleted)},
    description="Forgets every memory carrying all the ids given (`*` for every one of that "
    "kind; all four `*`: the whole project). Needs the `writer` role.",
)
@route
async def delete_all(request: Request) -> Response:
    """`DELETE /v1/memories/?user_id=...`: forgets every memory of the ids given."""
    values = dict(request.query_params)
    known(values, query_names(DELETE_ALL_PARAMS))
    project = project_of(request)
    where = requests.delete_all_filter(values)
    deleted: int = await call(project.delete_where, where)
    return answer(Mem0Deleted(message="Memories deleted successfully!", deleted=deleted))


@mem0_described(
    "A memory's history",
    operation_id="memories_history_list",
    params=(*PROJECT_PARAMS, MEMORY_ID),
    replies={
        200: Reply(
            "ADD, then UPDATE per new text, then DELETE, each with the memory's id.",
            list[Mem0HistoryEvent],
        ),
        404: NOT_FOUND,
    },
    description="Needs the `reader` role.",
)
@route
async def history(request: Request) -> Response:
    """`GET /v1/memories/{memory_id}/history/`: ADD, then UPDATE per new text, then DELETE."""
    known(request.query_params, QUERY)
    memory_id = request.path_params["memory_id"]
    project = await project_of_memory(request, memory_id)
    events = await call(project.history, memory_id)
    return answer([history_record(e, project.ids(e.fact)) for e in events])


@mem0_described(
    "List memories by query string",
    operation_id="memories_list",
    params=LIST_PARAMS,
    replies={200: LISTED},
    description=LIST_HELP,
)
@route
async def list_v1(request: Request) -> Response:
    """`GET /v1/memories/?user_id=...`: a list, or a page with both `page` and `page_size`."""
    values: dict[str, Any] = dict(request.query_params)
    known(values, query_names(LIST_PARAMS))
    if "categories" in values:
        values["categories"] = request.query_params.getlist("categories")
    project = project_of(request)
    return await _listed(request, project, values, paged="page" in values and "page_size" in values)


@mem0_described(
    "List memories (mem0 1.x)",
    operation_id="memories_list_v2",
    body=Mem0ListRequest,
    params=(*PROJECT_PARAMS, *PAGE_PARAMS),
    replies={200: LISTED},
    description=LIST_HELP,
)
@route
async def list_v2(request: Request) -> Response:
    """`POST /v2/memories/` (the 1.x client's get_all): a list, or a page when asked for one."""
    body = await json_body(request)
    known(request.query_params, query_names((*PROJECT_PARAMS, *PAGE_PARAMS)))
    known(body, requests.LIST_FIELDS)
    values = {**body, **request.query_params}
    project = project_of(request, body)
    return await _listed(request, project, values, paged="page" in values and "page_size" in values)


@mem0_described(
    "List memories",
    operation_id="memories_list_v3",
    body=Mem0ListRequest,
    params=(*PROJECT_PARAMS, *PAGE_PARAMS),
    replies={200: Reply("One page of the memories, newest first.", Mem0Page)},
    description=LIST_HELP,
)
@route
async def list_v3(request: Request) -> Response:
    """`POST /v3/memories/` (the 2.x and JavaScript clients' get_all): always a page."""
    body = await json_body(request)
    known(request.query_params, query_names((*PROJECT_PARAMS, *PAGE_PARAMS)))
    known(body, requests.LIST_FIELDS)
    values = {**body, **request.query_params}
    project = project_of(request, body)
    return await _listed(request, project, values, paged=True)


async def _listed(
    request: Request, project: Project, values: Mapping[str, Any], *, paged: bool
) -> Response:
    page = integer(values, "page", 1, 1, 1_000_000)
    size = integer(values, "page_size", 100, 1, MAX_PAGE_SIZE)
    where = requests.search_filter(values)
    show_expired = boolean(values, "show_expired", False)
    helds: list[Held] = await call(project.select, where, show_expired=show_expired)
    records = [memory_record(h, project.ids(h.fact)) for h in helds]
    if not paged:
        return answer(records)
    return answer(page_of(request, records, page, size))


def page_of(request: Request, records: Sequence[Mem0Memory], page: int, size: int) -> Mem0Page:
    start = (page - 1) * size
    more = start + size < len(records)
    return {
        "count": len(records),
        "next": str(request.url.include_query_params(page=page + 1, page_size=size))
        if more
        else None,
        "previous": str(request.url.include_query_params(page=page - 1, page_size=size))
        if page > 1
        else None,
        "results": list(records[start : start + size]),
    }


@mem0_described(
    "Search memories (mem0 1.x)",
    operation_id="memories_search_v2",
    body=Mem0SearchRequest,
    replies={200: Reply("The hits, best first.", list[Mem0ScoredMemory])},
    description=SEARCH_HELP,
)
@route
async def search_v2(request: Request) -> Response:
    """`POST /v2/memories/search/` (the 1.x client): a bare list of scored memories."""
    return answer(await _searched(request))


@mem0_described(
    "Search memories",
    operation_id="memories_search_v3",
    body=Mem0SearchRequest,
    replies={200: Reply("The hits, best first.", Mem0SearchResponse)},
    description=SEARCH_HELP,
)
@route
async def search_v3(request: Request) -> Response:
    """`POST /v3/memories/search/` (the 2.x and JavaScript clients): `{"results": [...]}`."""
    return answer(Mem0SearchResponse(results=await _searched(request)))


async def _searched(request: Request) -> list[Mem0ScoredMemory]:
    body = await json_body(request)
    known(request.query_params, QUERY)
    known(body, requests.SEARCH_FIELDS)
    project = project_of(request, body)
    query = body.get("query")
    if not isinstance(query, str) or not query.strip():
        raise ValidationError("query", "is required: a non-empty string")
    if len(query) > MAX_QUERY_CHARS:
        raise ValidationError("query", f"longer than {MAX_QUERY_CHARS} characters")
    top_k = integer(body, "top_k", 10, 1, MAX_SEARCH_TOP_K)
    threshold = number(body, "threshold")
    if threshold is not None and not 0.0 <= threshold <= 1.0:
        raise ValidationError("threshold", f"must be between 0 and 1, got {threshold}")
    as_of: datetime | None = requests.expiration("reference_date", body.get("reference_date"))
    show_expired = boolean(body, "show_expired", False)
    where = requests.search_filter(body)
    hits = await call(
        project.search,
        query.strip(),
        where,
        top_k=top_k,
        threshold=threshold,
        as_of=as_of,
        show_expired=show_expired,
    )
    return [scored_record(h.held, project.ids(h.held.fact), h.relevance) for h in hits]
