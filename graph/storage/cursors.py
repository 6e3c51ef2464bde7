"""Opaque keyset cursors: a page boundary (time, id) the client hands back unchanged.

Keyset rather than offset cursors so that rows inserted while a client pages never shift the
pages it has not read yet.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Generic, TypeVar

from graph.errors import ValidationError

T = TypeVar("T")


@dataclass(frozen=True)
class Page(Generic[T]):
    items: list[T]
    next_cursor: str | None


def encode_cursor(at: datetime, item_id: str) -> str:
    raw = json.dumps([at.isoformat(), item_id], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str, field: str = "after") -> tuple[datetime, str]:
    """The (time, id) inside a cursor; a tampered or foreign cursor is a clear input error."""
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        at, item_id = json.loads(base64.urlsafe_b64decode(padded.encode()))
        return datetime.fromisoformat(at), str(item_id)
    except (ValueError, TypeError, binascii.Error, UnicodeDecodeError):
        raise ValidationError(field, "is not a cursor returned by this service") from None
