"""What the sync and async clients share: each operation as a `Call`, and reading answers.

An operation is described once (method, path, body, how to read the answer); `Client` and
`AsyncClient` only differ in how they send it, so the two cannot drift apart.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar
from urllib.parse import quote

import httpx

from factgraph_client.errors import FactgraphError, error_from

T = TypeVar("T")

BOOKMARK_HEADER = "X-Neo4j-Bookmark"
BOOKMARK_EXTENSION = "neo4jBookmark"


@dataclass(frozen=True)
class Call(Generic[T]):
    """One HTTP request to the service and the function that reads its answer."""

    method: str
    path: str
    body: Any
    read: Callable[[Any], T]
    graphql: bool = False


def rest(method: str, path: str, body: Any, read: Callable[[Any], T]) -> Call[T]:
    return Call(method, path, body, read)


def graphql(query: str, variables: Mapping[str, Any], read: Callable[[Any], T]) -> Call[T]:
    return Call("POST", "/graphql", {"query": query, "variables": dict(variables)}, read, True)


def quoted(fact_id: str) -> str:
    return quote(fact_id, safe="")


class Session:
    """Headers, the latest bookmark, and the retry policy of one client."""

    def __init__(
        self,
        *,
        scope: str,
        api_key: str | None,
        retries: int,
        max_retry_wait: float,
    ) -> None:
        if not isinstance(scope, str) or not scope.strip():
            raise ValueError("scope must be a non-empty string")
        if retries < 0:
            raise ValueError("retries must be >= 0")
        self.scope = scope
        self.api_key = api_key
        self.retries = retries
        self.max_retry_wait = max_retry_wait
        self.bookmark: str | None = None

    def headers(self) -> dict[str, str]:
        """Sent with every request: the key, the scope (REST reads it from X-Scope) and the
        bookmark of this client's latest write, so any replica reads at least that state."""
        headers = {"X-Scope": self.scope, "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        if self.bookmark:
            headers[BOOKMARK_HEADER] = self.bookmark
        return headers

    def retry_delay(self, response: httpx.Response, attempt: int) -> float | None:
        """Seconds to wait before sending again, or None when the answer is final.

        Only 503 is retried: the service sends it when it refused the request before doing
        anything (overload) or could not reach Neo4j, so sending again is safe.
        """
        if response.status_code != 503 or attempt >= self.retries:
            return None
        return min(retry_after(response.headers.get("retry-after")), self.max_retry_wait)

    def read(self, call: Call[T], response: httpx.Response) -> T:
        """The typed answer, or the server's error raised as a FactgraphError."""
        bookmark = response.headers.get(BOOKMARK_HEADER)
        try:
            body = response.json()
        except ValueError:
            raise error_from(
                "BAD_RESPONSE" if response.status_code < 400 else f"HTTP_{response.status_code}",
                response.text[:300] or response.reason_phrase,
                status=response.status_code,
            ) from None
        if call.graphql and isinstance(body, dict):
            extensions = body.get("extensions") or {}
            bookmark = extensions.get(BOOKMARK_EXTENSION) or bookmark
        if bookmark:
            self.bookmark = bookmark
        if call.graphql:
            errors = body.get("errors") if isinstance(body, dict) else None
            if errors:
                raise graphql_error(errors[0], response.status_code, body)
            if response.status_code >= 400 or not isinstance(body, dict):
                raise error_from(
                    f"HTTP_{response.status_code}", str(body)[:300], status=response.status_code
                )
            return call.read(body["data"])
        if response.status_code >= 400:
            raise rest_error(body, response.status_code)
        return call.read(body)


def graphql_error(error: Mapping[str, Any], status: int, body: Any) -> FactgraphError:
    extensions = error.get("extensions") or {}
    code = extensions.get("code") or "GRAPHQL_ERROR"
    return error_from(
        code,
        str(error.get("message", "")),
        field=extensions.get("field"),
        status=status,
        body=body,
    )


def rest_error(body: Any, status: int) -> FactgraphError:
    detail = body.get("error") if isinstance(body, dict) else None
    if not isinstance(detail, dict):
        return error_from(f"HTTP_{status}", str(body)[:300], status=status, body=body)
    return error_from(
        str(detail.get("code") or f"HTTP_{status}"),
        str(detail.get("message", "")),
        field=detail.get("field"),
        reason=detail.get("reason"),
        status=status,
        body=body,
    )


def retry_after(value: str | None) -> float:
    """Retry-After in seconds (delta-seconds or an HTTP date); 1 s when absent or unreadable."""
    if not value:
        return 1.0
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return 1.0
    return max(0.0, when.timestamp() - time.time())
