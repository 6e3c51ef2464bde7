"""mem0's memory routes: add, get, update, delete, delete by ids, history, list and search.

Each version of mem0's API the clients still call answers in its own shape: the 1.x client's
list and search (`POST /v2/memories/`, `/v2/memories/search/`) get a bare list, the 2.x and
JavaScript clients' (`/v3/...`) a paginated envelope and `{"results": [...]}`. The work is the
service's (graph/mem0/); this module reads requests and writes answers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from graph.errors import ValidationError
from graph.mem0 import Project
from graph.mem0.writing import Added, Change
from graph.search.options import MAX_QUERY_CHARS, MAX_TOP_K
from graph.write.facts import Fact
from resolvers.context import call
from resolvers.mem0 import requests
from resolvers.mem0.http import answer, json_body, project_of, route
from resolvers.mem0.requests import MAX_PAGE_SIZE, boolean, integer, known, number
from resolvers.mem0.shapes import (
    AddResponse,
    Deleted,
    MemoryRecord,
    Message,
    Page,
    ScoredRecord,
    added_record,
    history_record,
    memory_record,
    scored_record,
)

QUERY = (*requests.CONTEXT, "scope")


@route
async def add(request: Request) -> Response:
    """`POST /v1/memories/` (1.x client) and `POST /v3/memories/add/` (2.x, JavaScript)."""
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
    return answer(add_response(added, infer=wanted["infer"]))


def add_response(added: Added, *, infer: bool) -> AddResponse:
    results = [added_record(d) for d in added.decisions]
    new = sum(1 for r in results if r["event"] != "NONE")
    stored = f"stored {len(results)} message(s): {new} new or changed memories"
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
        "results": results,
        "relations": [],
        "status": "SUCCEEDED",
        "message": message,
        "extraction": extraction,
    }


@route
async def get(request: Request) -> Response:
    """`GET /v1/memories/{memory_id}/`: the memory's current version."""
    known(request.query_params, QUERY)
    project = project_of(request)
    fact: Fact = await call(project.get, request.path_params["memory_id"])
    return answer(memory_record(fact, project.ids(fact)))


@route
async def update(request: Request) -> Response:
    """`PUT /v1/memories/{memory_id}/`: a new text supersedes; metadata or expiry change in
    place. Answers the memory's current version (a new id after a new text)."""
    body = await json_body(request)
    known(request.query_params, QUERY)
    project = project_of(request, body)
    wanted = requests.update_request(body)
    change = Change(
        text=wanted.get("text"),
        metadata=wanted.get("metadata"),
        set_expires="expiration" in wanted,
        expires_at=wanted.get("expiration"),
        timestamp=wanted.get("timestamp"),
    )
    fact: Fact = await call(project.update, request.path_params["memory_id"], change)
    return answer(memory_record(fact, project.ids(fact)))


@route
async def delete(request: Request) -> Response:
    """`DELETE /v1/memories/{memory_id}/`: forgets the current version (`delete_linked` is
    accepted: older versions are never shown anyway)."""
    known(request.query_params, (*QUERY, "delete_linked"))
    boolean(request.query_params, "delete_linked", False)
    project = project_of(request)
    await call(project.delete, request.path_params["memory_id"])
    return answer(Message(message="Memory deleted successfully!"))


@route
async def delete_all(request: Request) -> Response:
    """`DELETE /v1/memories/?user_id=...`: forgets every memory of the ids given."""
    values = dict(request.query_params)
    known(values, (*requests.DELETE_ALL_FIELDS, "scope"))
    project = project_of(request)
    where = requests.delete_all_filter(values)
    deleted: int = await call(project.delete_where, where)
    return answer(Deleted(message="Memories deleted successfully!", deleted=deleted))


@route
async def history(request: Request) -> Response:
    """`GET /v1/memories/{memory_id}/history/`: ADD, then UPDATE per new text, then DELETE."""
    known(request.query_params, QUERY)
    project = project_of(request)
    events = await call(project.history, request.path_params["memory_id"])
    return answer([history_record(e, project.ids(e.fact)) for e in events])


@route
async def list_v1(request: Request) -> Response:
    """`GET /v1/memories/?user_id=...`: a list, or a page with both `page` and `page_size`."""
    values: dict[str, Any] = dict(request.query_params)
    known(values, (*requests.LIST_FIELDS, "scope"))
    if "categories" in values:
        values["categories"] = request.query_params.getlist("categories")
    project = project_of(request)
    return await _listed(request, project, values, paged="page" in values and "page_size" in values)


@route
async def list_v2(request: Request) -> Response:
    """`POST /v2/memories/` (the 1.x client's get_all): a list, or a page when asked for one."""
    body = await json_body(request)
    known(request.query_params, (*QUERY, "page", "page_size"))
    known(body, requests.LIST_FIELDS)
    values = {**body, **request.query_params}
    project = project_of(request, body)
    return await _listed(request, project, values, paged="page" in values and "page_size" in values)


@route
async def list_v3(request: Request) -> Response:
    """`POST /v3/memories/` (the 2.x and JavaScript clients' get_all): always a page."""
    body = await json_body(request)
    known(request.query_params, (*QUERY, "page", "page_size"))
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
    facts = await call(project.select, where, show_expired=show_expired)
    records = [memory_record(f, project.ids(f)) for f in facts]
    if not paged:
        return answer(records)
    return answer(page_of(request, records, page, size))


def page_of(request: Request, records: Sequence[MemoryRecord], page: int, size: int) -> Page:
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


@route
async def search_v2(request: Request) -> Response:
    """`POST /v2/memories/search/` (the 1.x client): a bare list of scored memories."""
    return answer(await _searched(request))


@route
async def search_v3(request: Request) -> Response:
    """`POST /v3/memories/search/` (the 2.x and JavaScript clients): `{"results": [...]}`."""
    return answer({"results": await _searched(request)})


async def _searched(request: Request) -> list[ScoredRecord]:
    body = await json_body(request)
    known(request.query_params, QUERY)
    known(body, requests.SEARCH_FIELDS)
    project = project_of(request, body)
    query = body.get("query")
    if not isinstance(query, str) or not query.strip():
        raise ValidationError("query", "is required: a non-empty string")
    if len(query) > MAX_QUERY_CHARS:
        raise ValidationError("query", f"longer than {MAX_QUERY_CHARS} characters")
    top_k = integer(body, "top_k", 10, 1, MAX_TOP_K)
    threshold = number(body, "threshold")
    if threshold is not None and not 0.0 <= threshold <= 1.0:
        raise ValidationError("threshold", f"must be between 0 and 1, got {threshold}")
    as_of: datetime | None = requests.expiration("reference_date", body.get("reference_date"))
    where = requests.search_filter(body)
    hits = await call(
        project.search, query.strip(), where, top_k=top_k, threshold=threshold, as_of=as_of
    )
    return [scored_record(h.fact, project.ids(h.fact), h.score) for h in hits]
