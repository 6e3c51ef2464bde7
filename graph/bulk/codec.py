"""Values between Neo4j and JSON Lines, losslessly, so an export imports back to equal nodes.

Known time fields travel as ISO-8601 strings. Properties the exporter does not know (added by a
later version or by an operator) travel under `properties`, where a time is tagged
(`{"$datetime": "..."}`) because a bare string would come back as a string: Neo4j properties are
never maps, so a tagged map cannot be confused with a real value.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping
from typing import Any

from graph.errors import ValidationError
from graph.write.validation import parse_time


def native(value: Any) -> Any:
    """A Neo4j temporal value as the Python value the driver would have been given."""
    to_native = getattr(value, "to_native", None)
    return to_native() if to_native is not None else value


def time_to_json(value: Any) -> str | None:
    value = native(value)
    if value is None:
        return None
    if not isinstance(value, dt.datetime):
        raise TypeError(f"expected a date-time, got {type(value).__name__}")
    return value.isoformat()


def extra_to_json(name: str, value: Any) -> Any:
    """An arbitrary node property as JSON; temporal values are tagged with their type."""
    value = native(value)
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"property {name!r} holds a non-finite number")
        return value
    if isinstance(value, dt.datetime):
        return {"$datetime": value.isoformat()}
    if isinstance(value, dt.date):
        return {"$date": value.isoformat()}
    if isinstance(value, list | tuple):
        return [extra_to_json(name, v) for v in value]
    raise ValueError(f"property {name!r} has a type export does not carry: {type(value).__name__}")


def extra_from_json(name: str, value: Any) -> Any:
    field = f"properties.{name}"
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValidationError(field, "must be a finite number")
        return value
    if isinstance(value, list):
        return [extra_from_json(name, v) for v in value]
    if isinstance(value, Mapping) and len(value) == 1:
        ((tag, raw),) = value.items()
        if tag == "$datetime":
            return parse_time(field, raw)
        if tag == "$date":
            try:
                return dt.date.fromisoformat(str(raw))
            except ValueError:
                raise ValidationError(field, f"{raw!r} is not an ISO-8601 date") from None
    raise ValidationError(field, "must be a string, number, boolean, list or tagged time")
