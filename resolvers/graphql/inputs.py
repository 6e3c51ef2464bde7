"""GraphQL input types, converted to the domain's `FactInput` (validation happens there)."""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime
from typing import Any

import strawberry
from strawberry.scalars import JSON

from graph.write.facts import FactInput as DomainFactInput
from graph.write.validation import fact_from_mapping


@strawberry.input(description="A fact to remember. Only text is required.")
class FactInput:
    text: str
    subject: str | None = None
    predicate: str | None = None
    object: str | None = None
    tags: list[str] | None = None
    importance: float | None = None
    partition: str | None = None
    source: str | None = None
    metadata: JSON | None = None
    session_id: str | None = None
    turn: int | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    expires_at: datetime | None = None
    trusted: bool | None = None

    def to_domain(self) -> DomainFactInput:
        data: dict[str, Any] = {k: v for k, v in asdict(self).items() if v is not None}
        if "metadata" in data and not isinstance(data["metadata"], dict):
            from graph.errors import ValidationError

            raise ValidationError("metadata", "must be a JSON object")
        return fact_from_mapping(data)
