"""The request bodies and query strings of mem0's routes, their values checked and converted.

Which fields each takes is bodies.py's (the TypedDicts /openapi.json describes): a field no
route of mem0's knows is refused (400, naming it); fields mem0 knows that factgraph has no use
for (`async_mode`, `output_format`, `rerank`, `custom_instructions`, ...) are accepted and
ignored (docs/mem0.md lists them).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from datetime import UTC, date, datetime, timedelta
from typing import Any, TypedDict

from graph.adapters.mem0.entities import ID_FIELDS, EntityIds, entity_ids
from graph.adapters.mem0.filters import ANY, Filter, Node, all_of, parse
from graph.adapters.mem0.writing import ROLES, Message
from graph.errors import ValidationError
from graph.write.validation import parse_time
from resolvers.mem0.bodies import (
    Mem0AddRequest,
    Mem0ListRequest,
    Mem0SearchRequest,
    Mem0UpdateRequest,
    fields_of,
)

IDS = tuple(ID_FIELDS)
ADD_FIELDS = fields_of(Mem0AddRequest)
SEARCH_FIELDS = fields_of(Mem0SearchRequest)
LIST_FIELDS = fields_of(Mem0ListRequest)
UPDATE_FIELDS = fields_of(Mem0UpdateRequest)


class AddRequest(TypedDict):
    messages: list[Message]
    ids: EntityIds
    metadata: dict[str, Any] | None
    infer: bool
    timestamp: datetime | None
    expires_at: datetime | None


class UpdateRequest(TypedDict, total=False):
    text: str
    metadata: dict[str, Any]
    timestamp: datetime
    expiration: datetime | None  # present: set (None clears it)


def known(values: Mapping[str, Any], allowed: Iterable[str], *, where: str = "") -> None:
    unknown = sorted(set(values) - set(allowed))
    if unknown:
        raise ValidationError(f"{where}{unknown[0]}", "unknown field")


def body_object(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise ValidationError("body", "must be a JSON object")
    return body


def add_request(body: dict[str, Any]) -> AddRequest:
    known(body, ADD_FIELDS)
    ids = _add_ids(body)
    return {
        "messages": messages(body.get("messages")),
        "ids": ids,
        "metadata": metadata(body.get("metadata")),
        "infer": boolean(body, "infer", True),
        "timestamp": moment("timestamp", body.get("timestamp")),
        "expires_at": expiration("expiration_date", body.get("expiration_date")),
    }


def _add_ids(body: Mapping[str, Any]) -> EntityIds:
    """Ids at the top level and in `filters` (as mem0's 2.x client sends them), which agree."""
    top = entity_ids(body)
    raw = body.get("filters")
    if raw is None:
        return top
    if not isinstance(raw, Mapping):
        raise ValidationError("filters", "must be a JSON object of ids")
    known(raw, IDS, where="filters.")
    inner = entity_ids(raw, where="filters.")
    merged: dict[str, str] = {}
    for kind, value in (*top.items(), *inner.items()):
        if merged.setdefault(kind, value) != value:
            raise ValidationError(f"filters.{kind}_id", "differs from the top-level value")
    return EntityIds(**merged)


def messages(raw: Any) -> list[Message]:
    """mem0's messages: a list of {role, content}, as mem0's API takes them (its Python client
    wraps a string or one object in a list; its JavaScript client sends them as given, and
    mem0 refuses anything but a list)."""
    if not isinstance(raw, list) or not raw:
        raise ValidationError(
            "messages",
            "Invalid input data: messages must be a non-empty list of {role, content} objects",
        )
    out: list[Message] = []
    for i, item in enumerate(raw):
        where = f"messages[{i}]"
        if not isinstance(item, Mapping):
            raise ValidationError(where, "must be an object with role and content")
        role = item.get("role")
        if role not in ROLES:
            raise ValidationError(
                f"{where}.role", f"Invalid role {role!r}: must be one of {', '.join(ROLES)}"
            )
        content = item.get("content")
        if not isinstance(content, str) or not content.strip():
            raise ValidationError(f"{where}.content", "must be a non-empty string")
        out.append(Message(role, content))
    return out


def metadata(raw: Any, where: str = "metadata") -> dict[str, Any] | None:
    if raw is None:
        return None
    if isinstance(raw, str):  # a query string carries it as JSON text
        try:
            raw = json.loads(raw)
        except ValueError:
            raise ValidationError(where, "is not valid JSON") from None
    if not isinstance(raw, dict):
        raise ValidationError(where, "must be a JSON object")
    return raw


def boolean(values: Mapping[str, Any], name: str, default: bool) -> bool:
    raw = values.get(name)
    if raw is None:
        return default
    if isinstance(raw, str) and raw.lower() in ("true", "false"):  # a query string's
        return raw.lower() == "true"
    if not isinstance(raw, bool):
        raise ValidationError(name, "must be true or false")
    return raw


def integer(values: Mapping[str, Any], name: str, default: int, low: int, high: int) -> int:
    raw = values.get(name)
    if raw is None:
        return default
    if isinstance(raw, str) and raw.strip().isdigit():
        raw = int(raw)
    if isinstance(raw, bool) or not isinstance(raw, int):
        raise ValidationError(name, "must be an integer")
    if not low <= raw <= high:
        raise ValidationError(name, f"must be between {low} and {high}, got {raw}")
    return raw


def number(values: Mapping[str, Any], name: str) -> float | None:
    raw = values.get(name)
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not math.isfinite(raw):
        raise ValidationError(name, "must be a number")
    return float(raw)


def moment(name: str, raw: Any) -> datetime | None:
    """A Unix time in seconds or an ISO-8601 date-time (mem0 takes both)."""
    if raw is None:
        return None
    if isinstance(raw, bool):
        raise ValidationError(name, "must be a Unix time or an ISO-8601 date-time")
    if isinstance(raw, int | float):
        if not math.isfinite(raw) or not 0 <= raw <= 1e11:
            raise ValidationError(name, "is not a Unix time in seconds")
        return datetime.fromtimestamp(raw, UTC)
    return parse_time(name, raw)


def expiration(name: str, raw: Any) -> datetime | None:
    """mem0's expiration date (YYYY-MM-DD: shown through that day) as the moment it ends; an
    ISO date-time is taken as the moment itself."""
    if raw is None:
        return None
    if isinstance(raw, str) and len(raw.strip()) == 10:
        try:
            day = date.fromisoformat(raw.strip())
        except ValueError:
            raise ValidationError(name, f"{raw!r} is not a date (YYYY-MM-DD)") from None
        return datetime(day.year, day.month, day.day, tzinfo=UTC) + timedelta(days=1)
    return moment(name, raw)


def update_request(body: dict[str, Any]) -> UpdateRequest:
    known(body, UPDATE_FIELDS)
    out: UpdateRequest = {}
    text = body.get("text", body.get("data"))
    if text is not None:
        if not isinstance(text, str) or not text.strip():
            raise ValidationError("text", "must be a non-empty string")
        out["text"] = text
    meta = metadata(body.get("metadata"))
    if meta is not None:
        out["metadata"] = meta
    stamp = moment("timestamp", body.get("timestamp"))
    if stamp is not None:
        out["timestamp"] = stamp
    if "expiration_date" in body:
        out["expiration"] = expiration("expiration_date", body["expiration_date"])
    return out


def search_filter(values: Mapping[str, Any]) -> Filter:
    """The filter of a search or list request: `filters`, ids at the top level (mem0's 1.x
    client sends them there) and the request's own narrowing fields, all ANDed."""
    parts: list[Node] = []
    raw = values.get("filters")
    if raw is not None:
        if isinstance(raw, str):
            raw = metadata(raw, "filters")
        parts.append(parse(raw))
    for field in IDS:
        if values.get(field) is not None:
            parts.append(parse({field: values[field]}, where=""))
    meta = metadata(values.get("metadata"))
    if meta:
        parts.append(parse({"metadata": meta}, where=""))
    for field, operator in (("categories", "in"), ("keywords", "icontains")):
        if values.get(field) is not None:
            parts.append(parse({field: {operator: values[field]}}, where=""))
    for field, operator in (("start_date", "gte"), ("end_date", "lte")):
        if values.get(field) is not None:
            try:
                parts.append(parse({"created_at": {operator: values[field]}}, where=""))
            except ValidationError as exc:
                raise ValidationError(field, exc.reason) from None
    if not parts:
        raise ValidationError(
            "filters", 'name a user_id, agent_id, app_id or run_id (a value, a list or "*")'
        )
    return all_of(parts)


def delete_all_filter(values: Mapping[str, Any]) -> Filter:
    """mem0's delete by ids: the ids given, ANDed; `"*"` for every one of them means every
    memory of those kinds (all four: the whole project)."""
    given = {field: values[field] for field in IDS if values.get(field) not in (None, "")}
    if values.get("filters") is not None:
        return search_filter(values)
    if not given:
        raise ValidationError(
            "user_id",
            'name at least one of user_id, agent_id, app_id, run_id ("*" for all of them)',
        )
    if all(value == ANY for value in given.values()):
        return all_of([parse({"OR": [{field: ANY} for field in given]})])
    return search_filter(values)
