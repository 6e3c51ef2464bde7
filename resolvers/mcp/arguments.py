"""Holding tool arguments to the tool's JSON schema, with errors that name the field.

A model reads the error and retries, so the message says which field and what was wrong
('top_k: must be at most 100, got 500'), never a validator's internals or a traceback.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from graph.errors import ValidationError

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError as SchemaError


def _field(error: SchemaError) -> str:
    path = ".".join(str(p) for p in error.absolute_path)
    if error.validator == "required":
        missing = next(iter(error.validator_value), "")
        instance = error.instance if isinstance(error.instance, Mapping) else {}
        missing = next((name for name in error.validator_value if name not in instance), missing)
        return f"{path}.{missing}" if path else str(missing)
    if error.validator == "additionalProperties" and isinstance(error.instance, Mapping):
        allowed = set(error.schema.get("properties", {}))
        extra = sorted(set(error.instance) - allowed)
        if extra:
            return f"{path}.{extra[0]}" if path else extra[0]
    return path or "arguments"


def _reason(error: SchemaError) -> str:
    kind, value, got = error.validator, error.validator_value, error.instance
    if kind == "required":
        return "is required"
    if kind == "additionalProperties":
        return "unknown argument"
    if kind == "type":
        return f"must be of type {value}, got {type(got).__name__}"
    if kind in ("minimum", "maximum"):
        word = "least" if kind == "minimum" else "most"
        return f"must be at {word} {value}, got {got}"
    if kind == "minLength":
        return "must not be empty" if value == 1 else f"must have at least {value} characters"
    if kind == "maxLength":
        return f"longer than {value} characters"
    if kind == "maxItems":
        return f"more than {value} items"
    return str(error.message)[:200]


def _lone_surrogate(value: Any, path: str) -> str | None:
    """The path of the first string holding an unpaired UTF-16 surrogate, if any."""
    if isinstance(value, str):
        if not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                return path or "arguments"
        return None
    if isinstance(value, Mapping):
        for key, item in value.items():
            found = _lone_surrogate(item, f"{path}.{key}" if path else str(key))
            if found:
                return found
    if isinstance(value, list):
        for index, item in enumerate(value):
            found = _lone_surrogate(item, f"{path}.{index}")
            if found:
                return found
    return None


class Arguments:
    """A checker per tool, built from its schema at the tool's first call: jsonschema's import
    and the validators' construction are not paid by `factgraph mcp` before tools/list (every
    tool's schema is checked by tests/test_mcp_startup.py)."""

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self._schema = schema
        self._checker: Draft202012Validator | None = None

    @property
    def _validator(self) -> Draft202012Validator:
        if self._checker is None:
            from jsonschema import Draft202012Validator

            Draft202012Validator.check_schema(self._schema)
            self._checker = Draft202012Validator(self._schema)
        return self._checker

    def check(self, arguments: Any) -> dict[str, Any]:
        """The arguments as a dict; ValidationError naming the first bad field otherwise."""
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, Mapping):
            raise ValidationError("arguments", "must be a JSON object")
        errors = sorted(self._validator.iter_errors(arguments), key=_order)
        if errors:
            error = errors[0]
            raise ValidationError(_field(error), _reason(error))
        bad = _lone_surrogate(arguments, "")
        if bad:
            raise ValidationError(bad, "contains an unpaired UTF-16 surrogate (not valid Unicode)")
        return dict(arguments)


def _order(error: SchemaError) -> tuple[int, int, str]:
    """Unknown and missing arguments first (the likeliest mistakes), then by position."""
    rank = {"additionalProperties": 0, "required": 1}.get(str(error.validator), 2)
    return rank, len(error.absolute_path), ".".join(str(p) for p in error.absolute_path)
