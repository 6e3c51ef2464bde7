"""Refuse JSON no route could take, once for every route, before any of them parses it.

Three kinds of body used to reach a route and fail deep inside it, as a 500: bytes that are not
UTF-8, arrays and objects nested past what a recursive parser can follow (`RecursionError` at
about 1,000 levels, in `json.loads`, in GraphQL's variable coercion, in `json.dumps` of
metadata), and strings holding an unpaired UTF-16 surrogate (`"\\ud800"`: JSON may escape one,
but no such string can be stored, embedded or indexed). `JsonGuard` answers each with 400
`BAD_USER_INPUT` naming where it is (`body`, or a path such as `memories[0].content`),
GraphQL-shaped on /graphql; GraphQL's own parser calls `check` for what a GET carries in its
query string. (An integer past 64 bits is refused where it would reach Neo4j: by the field's
check, and by `graph.storage.parameters` before any query; metadata keeps it, as JSON text.)

The checks look at the raw bytes first, at C speed: a body with fewer brackets than the depth
limit cannot nest too deep, one without `\\u` holds no escaped surrogate. Only a body that
fails such a look is parsed here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from graph.errors import ValidationError
from resolvers.http.observe import send_error

# Deeper than any body of the API (a mem0 filter's AND/OR nests a few levels; metadata is
# free-form but stored as one JSON string) and far below the ~1,000 levels at which Python's
# recursive parsers and serialisers stop.
MAX_DEPTH = 64

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKET = re.compile(rb"[^\[\]{}]+")
_OPEN = frozenset(b"[{")
_FORMS = ("multipart/form-data", "application/x-www-form-urlencoded")


def check(body: bytes) -> None:
    """Raise ValidationError when a JSON body is one no route can take (see the module)."""
    if not body.isascii():
        try:
            body.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValidationError(
                "body", f"is not valid UTF-8 (byte {exc.start}: {body[exc.start]:#04x})"
            ) from None
    if body.count(b"[") + body.count(b"{") > MAX_DEPTH and _too_deep(body):
        raise ValidationError("body", f"nests arrays and objects deeper than {MAX_DEPTH} levels")
    if b"\\u" not in body:
        return
    try:
        parsed = json.loads(body)
    except ValueError:
        return  # not JSON: the route answers that itself
    for where, value in _leaves(parsed, ""):
        if isinstance(value, str) and _lone_surrogate(value):
            raise ValidationError(
                where or "body",
                "holds an unpaired UTF-16 surrogate (e.g. \\ud800), which is not valid Unicode",
            )


def _too_deep(body: bytes) -> bool:
    """Whether arrays and objects nest past MAX_DEPTH, brackets inside strings aside."""
    level = 0
    for byte in _NOT_BRACKET.sub(b"", _STRING.sub(b"", body)):
        if byte in _OPEN:
            level += 1
            if level > MAX_DEPTH:
                return True
        else:
            level -= 1
    return False


def _leaves(value: Any, where: str) -> Iterator[tuple[str, Any]]:
    """Every key and scalar of a parsed body with its path (`memories[0].turn`); no recursion
    deeper than the body, which `_too_deep` bounded."""
    if isinstance(value, dict):
        for key, item in value.items():
            path = f"{where}.{key}" if where else str(key)
            yield path, key
            yield from _leaves(item, path)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _leaves(item, f"{where}[{i}]")
    else:
        yield where, value


def _lone_surrogate(value: str) -> bool:
    if value.isascii():
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


class JsonGuard:
    """Check every request body (forms aside) with `check` before the route reads it; the
    body, already bounded by BodyLimit, is replayed to the app unchanged."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or HTTPConnection(scope).headers.get(
            "content-type", ""
        ).startswith(_FORMS):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        try:
            check(body)
        except ValidationError as exc:
            await send_error(
                scope,
                send,
                400,
                exc.code,
                str(exc),
                extra={"field": exc.field, "reason": exc.reason},
            )
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)
