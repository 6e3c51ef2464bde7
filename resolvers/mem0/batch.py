"""mem0's batch and feedback routes: update or delete up to 1,000 memories in one call (each
is found first: an unknown one refuses the batch and nothing is written), and feedback on a
memory (kept as an audit event)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from graph.adapters.mem0.held import Held
from graph.adapters.mem0.writing import Change
from graph.errors import ValidationError
from resolvers.http.context import call
from resolvers.http.openapi import Reply
from resolvers.mem0 import requests
from resolvers.mem0.bodies import (
    FEEDBACK,
    MAX_BATCH,
    Mem0BatchDeleteItem,
    Mem0BatchDeleteRequest,
    Mem0BatchUpdateItem,
    Mem0BatchUpdateRequest,
    Mem0FeedbackRequest,
    fields_of,
)
from resolvers.mem0.http import (
    NOT_FOUND,
    answer,
    json_body,
    mem0_described,
    project_of_memory,
    route,
)
from resolvers.mem0.requests import known
from resolvers.mem0.shapes import Mem0ErrorBody, Mem0Feedback, Mem0Message

NOT_FOUND_IN_BATCH = Reply(
    "A memory of the batch is unknown (`detail` names it: `memories[2]: ...`); nothing was "
    "written.",
    Mem0ErrorBody,
)


def _items(body: dict[str, Any], fields: tuple[str, ...]) -> list[dict[str, Any]]:
    known(body, ("memories",))
    items = body.get("memories")
    if not isinstance(items, list) or not items:
        raise ValidationError("memories", "is required: a non-empty list")
    if len(items) > MAX_BATCH:
        raise ValidationError("memories", f"more than {MAX_BATCH} memories")
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise ValidationError(f"memories[{i}]", "must be an object with a memory_id")
        known(item, fields, where=f"memories[{i}].")
        if not isinstance(item.get("memory_id"), str) or not item["memory_id"]:
            raise ValidationError(f"memories[{i}].memory_id", "must be a non-empty string")
    return items


@mem0_described(
    "Update memories",
    operation_id="memories_batch_update",
    body=Mem0BatchUpdateRequest,
    replies={
        200: Reply("Done.", Mem0Message),
        404: NOT_FOUND_IN_BATCH,
        409: Reply("A new text is already held by another live memory.", Mem0ErrorBody),
    },
    description="Each memory as `PUT /v1/memories/{memory_id}/` changes it, once every one "
    "was found. Needs the `writer` role.",
)
@route
async def update_many(request: Request) -> Response:
    """`PUT /v1/batch/`: `{"memories": [{memory_id, text, metadata}, ...]}`."""
    body = await json_body(request)
    items = _items(body, fields_of(Mem0BatchUpdateItem))
    project = await project_of_memory(request, items[0]["memory_id"], body)
    changes: list[tuple[str, Change]] = []
    for i, item in enumerate(items):
        try:
            wanted = requests.update_request({k: v for k, v in item.items() if k != "memory_id"})
        except ValidationError as exc:
            raise ValidationError(f"memories[{i}].{exc.field}", exc.reason) from None
        change = Change(text=wanted.get("text"), metadata=wanted.get("metadata"))
        changes.append((item["memory_id"], change))
    updated: list[Held] = await call(project.update_many, changes)
    return answer(Mem0Message(message=f"Successfully updated {len(updated)} memories"))


@mem0_described(
    "Delete memories",
    operation_id="memories_batch_delete",
    body=Mem0BatchDeleteRequest,
    replies={200: Reply("Forgotten.", Mem0Message), 404: NOT_FOUND_IN_BATCH},
    description="Forgets each memory's current version, once every one was found. Needs the "
    "`writer` role.",
)
@route
async def delete_many(request: Request) -> Response:
    """`DELETE /v1/batch/`: `{"memories": [{memory_id}, ...]}`."""
    body = await json_body(request)
    ids = [item["memory_id"] for item in _items(body, fields_of(Mem0BatchDeleteItem))]
    project = await project_of_memory(request, ids[0], body)
    deleted: int = await call(project.delete_many, ids)
    return answer(Mem0Message(message=f"Successfully deleted {deleted} memories"))


@mem0_described(
    "Feedback on a memory",
    operation_id="submit_feedback",
    body=Mem0FeedbackRequest,
    replies={200: Reply("Kept.", Mem0Feedback), 404: NOT_FOUND},
    description="Kept as a `feedback` audit event on the memory's current version. Needs the "
    "`writer` role.",
)
@route
async def feedback(request: Request) -> Response:
    """`POST /v1/feedback/`: `{memory_id, feedback, feedback_reason}`."""
    body = await json_body(request)
    known(body, fields_of(Mem0FeedbackRequest))
    memory_id = body.get("memory_id")
    if not isinstance(memory_id, str) or not memory_id:
        raise ValidationError("memory_id", "is required: a non-empty string")
    project = await project_of_memory(request, memory_id, body)
    verdict = body.get("feedback")
    if verdict is not None and verdict not in FEEDBACK:
        raise ValidationError("feedback", f"must be one of {', '.join(FEEDBACK)} or null")
    reason = body.get("feedback_reason")
    if reason is not None and not isinstance(reason, str):
        raise ValidationError("feedback_reason", "must be a string")
    held: Held = await call(project.feedback, memory_id, verdict, reason)
    return answer(Mem0Feedback(id=held.id, feedback=verdict, feedback_reason=reason))
