"""Errors carrying what the server said: its code, the offending field, the HTTP status."""

from __future__ import annotations

from typing import Any


class FactgraphError(Exception):
    """The service refused or failed a call.

    `code` is the server's (BAD_USER_INPUT, NOT_FOUND, CONFLICT, UNAUTHENTICATED, FORBIDDEN,
    OVERLOADED, DATABASE_UNAVAILABLE, ...); `field` names the input at fault for bad input, as
    the server named it (`content`, `memories[3].content`, `fact.text`).
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        field: str | None = None,
        reason: str | None = None,
        status: int | None = None,
        body: Any = None,
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.field = field
        self.reason = reason
        self.status = status
        self.body = body


class ValidationError(FactgraphError):
    """BAD_USER_INPUT: nothing was written; `field` says which input to fix."""


class NotFoundError(FactgraphError):
    """NOT_FOUND: no such fact in this scope."""


class AuthError(FactgraphError):
    """UNAUTHENTICATED or FORBIDDEN: the API key is missing, wrong, or not allowed here."""


class UnavailableError(FactgraphError):
    """503 (OVERLOADED, DATABASE_UNAVAILABLE) still answered after the bounded retries."""


_BY_CODE: dict[str, type[FactgraphError]] = {
    "BAD_USER_INPUT": ValidationError,
    "GRAPHQL_VALIDATION_FAILED": ValidationError,
    "NOT_FOUND": NotFoundError,
    "UNAUTHENTICATED": AuthError,
    "FORBIDDEN": AuthError,
}


def error_from(
    code: str,
    message: str,
    *,
    field: str | None = None,
    reason: str | None = None,
    status: int | None = None,
    body: Any = None,
) -> FactgraphError:
    kind = UnavailableError if status == 503 else _BY_CODE.get(code, FactgraphError)
    return kind(code, message, field=field, reason=reason, status=status, body=body)
