"""mem0's batch and feedback routes: update or delete up to 1,000 memories in one call (each
is found first: an unknown one refuses the batch and nothing is written), and feedback on a
memory (kept as an audit event)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from graph.errors import ValidationError
from graph.mem0.writing import Change
from graph.write.facts import Fact
from resolvers.context import call
from resolvers.mem0 import requests
from resolvers.mem0.http import answer, json_body, project_of, route
from resolvers.mem0.requests import known
from resolvers.mem0.shapes import FeedbackResponse, Message

MAX_BATCH = 1_000
FEEDBACK = ("POSITIVE", "NEGATIVE", "VERY_NEGATIVE")


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


@route
async def update_many(request: Request) -> Response:
    """`PUT /v1/batch/`: `{"memories": [{memory_id, text, metadata}, ...]}`."""
    body = await json_body(request)
    project = project_of(request, body)
    changes: list[tuple[str, Change]] = []
    for i, item in enumerate(_items(body, ("memory_id", "text", "metadata"))):
        try:
            wanted = requests.update_request({k: v for k, v in item.items() if k != "memory_id"})
        except ValidationError as exc:
            raise ValidationError(f"memories[{i}].{exc.field}", exc.reason) from None
        change = Change(text=wanted.get("text"), metadata=wanted.get("metadata"))
        changes.append((item["memory_id"], change))
    updated: list[Fact] = await call(project.update_many, changes)
    return answer(Message(message=f"Successfully updated {len(updated)} memories"))


@route
async def delete_many(request: Request) -> Response:
    """`DELETE /v1/batch/`: `{"memories": [{memory_id}, ...]}`."""
    body = await json_body(request)
    project = project_of(request, body)
    ids = [item["memory_id"] for item in _items(body, ("memory_id",))]
    deleted: int = await call(project.delete_many, ids)
    return answer(Message(message=f"Successfully deleted {deleted} memories"))


@route
async def feedback(request: Request) -> Response:
    """`POST /v1/feedback/`: `{memory_id, feedback, feedback_reason}`."""
    body = await json_body(request)
    known(body, ("memory_id", "feedback", "feedback_reason"))
    project = project_of(request, body)
    memory_id = body.get("memory_id")
    if not isinstance(memory_id, str) or not memory_id:
        raise ValidationError("memory_id", "is required: a non-empty string")
    verdict = body.get("feedback")
    if verdict is not None and verdict not in FEEDBACK:
        raise ValidationError("feedback", f"must be one of {', '.join(FEEDBACK)} or null")
    reason = body.get("feedback_reason")
    if reason is not None and not isinstance(reason, str):
        raise ValidationError("feedback_reason", "must be a string")
    fact: Fact = await call(project.feedback, memory_id, verdict, reason)
    return answer(FeedbackResponse(id=fact.id, feedback=verdict, feedback_reason=reason))
