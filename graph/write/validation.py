"""Stage 1 of the write pipeline: refuse bad input with the field's name, before any write."""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections.abc import Mapping
from datetime import UTC, datetime, timezone
from typing import Any
from zoneinfo import ZoneInfo

import pytz

from graph.errors import ValidationError
from graph.storage.parameters import check_offset
from graph.write.facts import FactInput
from graph.write.turn_fields import MAX_TURN, lifted

# A long text is embedded whole, in chunks of the model's window (graph/write/chunks.py): about
# 30 chunks at this length. The JSON of a text this long, every character escaped, still fits
# the request body limit (FACTGRAPH_MAX_BODY_BYTES, 1 MiB).
MAX_TEXT_CHARS = 64_000
MAX_TAGS = 32
MAX_TAG_CHARS = 64
MAX_FIELD_CHARS = 512
MAX_METADATA_BYTES = 16_000
MAX_SCOPE_CHARS = 128

_FIELDS = {f.name for f in dataclasses.fields(FactInput)}
# Unicode's control characters (category Cc: C0, DEL and C1). An identifier holding one (a
# scope, an id, a tag, a metadata key, an entity's name, mem0's user_id ...) cannot be told
# from another in a log, a URL or the Neo4j Browser, a NUL cuts it short in C code, and
# `import --initial` separates list items with U+001F. `IDENTIFIER_PATTERN` is the same rule
# as the OpenAPI document states it (resolvers/http/openapi.py).
CONTROL_CHARACTERS = r"\x00-\x1f\x7f-\x9f"
_CONTROL = re.compile(f"[{CONTROL_CHARACTERS}]")
IDENTIFIER_PATTERN = f"^[^{CONTROL_CHARACTERS}]*$"


def check_clean(field: str, value: str) -> str:
    """The one check every identifier of every interface passes: no control character.
    ValidationError naming `field` (and where the character is) otherwise."""
    found = _CONTROL.search(value)
    if found is not None:
        raise ValidationError(
            field,
            f"holds the control character U+{ord(found.group()):04X} at {found.start()}; "
            "identifiers take none (U+0000-U+001F, U+007F-U+009F)",
        )
    return value


def check_id(field: str, value: Any) -> str:
    """A fact id a caller names (to read, retire or link it)."""
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(field, "must be a non-empty string")
    return check_clean(field, value)


def check_scope(scope: str) -> str:
    if not isinstance(scope, str) or not scope.strip():
        raise ValidationError("scope", "must be a non-empty string")
    if len(scope) > MAX_SCOPE_CHARS:
        raise ValidationError("scope", f"longer than {MAX_SCOPE_CHARS} characters")
    return check_clean("scope", scope)


def check_tag(field: str, tag: Any) -> str:
    """A tag as written or as filtered on."""
    if not isinstance(tag, str) or not tag.strip():
        raise ValidationError(field, "each tag must be a non-empty string")
    if len(tag) > MAX_TAG_CHARS:
        raise ValidationError(field, f"a tag is longer than {MAX_TAG_CHARS} characters")
    return check_clean(field, tag)


def check_keys(field: str, value: Any) -> None:
    """Every key of a JSON object, at any depth, is clean."""
    if isinstance(value, dict):
        for key, inner in value.items():
            if isinstance(key, str):
                check_clean(field, key)
            check_keys(field, inner)
    elif isinstance(value, list):
        for inner in value:
            check_keys(field, inner)


def whole(value: Any) -> Any:
    """An integral float (`9.0`, which JSON Schema counts as an integer, and which JSON
    clients in JavaScript may send for 9) as the int it is; anything else as it was."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def check_reason(reason: str) -> str:
    """A reason given for a supersede or a status change: the audit keeps it, so it must say
    something and fit a field."""
    if not isinstance(reason, str) or not reason.strip():
        raise ValidationError("reason", "must not be empty")
    if len(reason) > MAX_FIELD_CHARS:
        raise ValidationError("reason", f"longer than {MAX_FIELD_CHARS} characters")
    return reason.strip()


def _aware(name: str, value: datetime | None) -> datetime | None:
    if value is None:
        return None
    if not isinstance(value, datetime):
        raise ValidationError(name, "must be a datetime")
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    check_offset(name, value)
    if isinstance(value.tzinfo, ZoneInfo):
        return _driver_safe_zone(value, value.tzinfo)
    return value


def _driver_safe_zone(value: datetime, zone: ZoneInfo) -> datetime:
    """The same instant in the pytz zone of the same name (or a fixed offset).

    The neo4j 6.1 driver passes its own DateTime class to `tzinfo.utcoffset()` when it packs
    an aware datetime; zoneinfo's C implementation reads that object as a datetime and now and
    then crashes the process (a segfault in the driver's `_utc_offset`). pytz zones are pure
    Python, work with the driver's class, and reach Neo4j under the same zone name.
    """
    try:
        return value.astimezone(pytz.timezone(zone.key))
    except (pytz.UnknownTimeZoneError, TypeError, ValueError):
        offset = value.utcoffset()
        return value.astimezone(timezone(offset) if offset is not None else UTC)


def parse_time(name: str, raw: Any) -> datetime | None:
    """ISO-8601 strings (a trailing Z allowed) or datetimes; naive times are taken as UTC."""
    if raw is None or raw == "":
        return None
    if isinstance(raw, datetime):
        return _aware(name, raw)
    if not isinstance(raw, str):
        raise ValidationError(name, "must be an ISO-8601 date-time string")
    try:
        value = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        raise ValidationError(name, f"{raw!r} is not an ISO-8601 date-time") from None
    return _aware(name, value)


def fact_from_mapping(data: Mapping[str, Any]) -> FactInput:
    """Build a FactInput from a dict (JSON, GraphQL input), naming any unknown field."""
    unknown = sorted(set(data) - _FIELDS)
    if unknown:
        raise ValidationError(unknown[0], "unknown field")
    values = dict(data)
    for name in ("valid_from", "valid_to", "expires_at", "recorded_at"):
        if name in values:
            values[name] = parse_time(name, values[name])
    if "tags" in values and values["tags"] is not None:
        if isinstance(values["tags"], str) or not isinstance(values["tags"], list | tuple):
            raise ValidationError("tags", "must be a list of strings")
        values["tags"] = tuple(values["tags"])
    if "embedding" in values and values["embedding"] is not None:
        values["embedding"] = tuple(values["embedding"])
    if values.get("metadata") is None:
        values.pop("metadata", None)
    try:
        return validate(FactInput(**values))
    except TypeError as exc:
        raise ValidationError("fact", str(exc)) from None


def validate(fact: FactInput) -> FactInput:
    """Return a normalised copy or raise ValidationError naming the first bad field."""
    if not isinstance(fact.text, str) or not fact.text.strip():
        raise ValidationError("text", "must not be empty")
    if not isinstance(fact.metadata, dict):
        raise ValidationError("metadata", "must be a JSON object")
    session_id, turn = lifted(fact.session_id, whole(fact.turn), fact.metadata)
    if session_id != fact.session_id or turn is not fact.turn:  # 9 == 9.0: not enough
        fact = dataclasses.replace(fact, session_id=session_id, turn=turn)
    if len(fact.text) > MAX_TEXT_CHARS:
        raise ValidationError("text", f"longer than {MAX_TEXT_CHARS} characters")
    if "\x00" in fact.text:
        raise ValidationError("text", "contains a NUL character")
    for name in ("subject", "predicate", "object", "source", "session_id", "partition", "id"):
        value = getattr(fact, name)
        if value is None:
            continue
        if not isinstance(value, str):
            raise ValidationError(name, "must be a string")
        if len(value) > MAX_FIELD_CHARS:
            raise ValidationError(name, f"longer than {MAX_FIELD_CHARS} characters")
        check_clean(name, value)
    if not fact.partition or not fact.partition.strip():
        raise ValidationError("partition", "must not be empty")
    if isinstance(fact.importance, bool) or not isinstance(fact.importance, int | float):
        raise ValidationError("importance", "must be a number from 0 to 10")
    if not math.isfinite(fact.importance) or not 0 <= fact.importance <= 10:
        raise ValidationError("importance", f"{fact.importance} is outside 0..10")
    if fact.turn is not None and (isinstance(fact.turn, bool) or not isinstance(fact.turn, int)):
        raise ValidationError("turn", "must be an integer")
    if fact.turn is not None and not 0 <= fact.turn <= MAX_TURN:
        raise ValidationError("turn", f"must be from 0 to {MAX_TURN}")
    if fact.id is not None and (not fact.id.strip() or "/" in fact.id):
        # An id is a path segment of mem0's and REST's routes (/v1/memories/{id}/): one with
        # a slash could be written but never addressed there.
        raise ValidationError("id", "must be non-empty and hold no '/'")
    if len(fact.tags) > MAX_TAGS:
        raise ValidationError("tags", f"more than {MAX_TAGS} tags")
    tags: list[str] = []
    for tag in fact.tags:
        check_tag("tags", tag)
        if tag.strip() not in tags:
            tags.append(tag.strip())
    if not isinstance(fact.metadata, dict):
        raise ValidationError("metadata", "must be a JSON object")
    check_keys("metadata", fact.metadata)
    try:
        encoded = json.dumps(fact.metadata, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValidationError("metadata", f"is not JSON-serialisable: {exc}") from None
    if len(encoded.encode()) > MAX_METADATA_BYTES:
        raise ValidationError("metadata", f"larger than {MAX_METADATA_BYTES} bytes")
    valid_from = _aware("valid_from", fact.valid_from)
    valid_to = _aware("valid_to", fact.valid_to)
    expires_at = _aware("expires_at", fact.expires_at)
    recorded_at = _aware("recorded_at", fact.recorded_at)
    if valid_from and valid_to and valid_to <= valid_from:
        raise ValidationError("valid_to", "must be later than valid_from")
    if fact.embedding is not None and not all(
        isinstance(x, int | float) and math.isfinite(x) for x in fact.embedding
    ):
        raise ValidationError("embedding", "must be a list of finite numbers")
    return dataclasses.replace(
        fact,
        text=fact.text,
        tags=tuple(tags),
        importance=float(fact.importance),
        partition=fact.partition.strip(),
        valid_from=valid_from,
        valid_to=valid_to,
        expires_at=expires_at,
        recorded_at=recorded_at,
    )
