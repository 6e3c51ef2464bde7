"""What the browsing reads share: entity ids, limits, and the exclusion list."""

from __future__ import annotations

from collections.abc import Iterable

from graph.errors import ValidationError

# Entities have no id of their own (their key is scope + canonical name); browsing names them
# 'entity:<canonical>' so one id field can point at a fact or an entity.
ENTITY_PREFIX = "entity:"
PREVIEW_CHARS = 300
MAX_LIMIT = 100
MAX_EXCLUDE_IDS = 10_000


def entity_id(canonical: str) -> str:
    return ENTITY_PREFIX + canonical


def check_limit(value: int, field: str, maximum: int = MAX_LIMIT) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValidationError(field, "must be an integer")
    if not 1 <= value <= maximum:
        raise ValidationError(field, f"must be between 1 and {maximum}")
    return value


def check_exclude_ids(ids: Iterable[str] | None, field: str = "excludeIds") -> list[str]:
    """Any list of ids (unknown ones are harmless); a lone string is a caller's mistake."""
    if ids is None:
        return []
    if isinstance(ids, str):
        raise ValidationError(field, "must be a list of ids, not a single string")
    out = list(dict.fromkeys(ids))
    if not all(isinstance(i, str) for i in out):
        raise ValidationError(field, "each id must be a string")
    if len(out) > MAX_EXCLUDE_IDS:
        raise ValidationError(field, f"more than {MAX_EXCLUDE_IDS} ids")
    return out


def preview(text: str) -> str:
    return text[:PREVIEW_CHARS]
