"""Limits on what one GraphQL document may ask for, so no request can make the server dig deep.

Depth stops nested selections from fanning out (fact -> matched -> ...); aliases stop one
request from repeating an expensive field hundreds of times; tokens bound the parser's work
before any of that is even looked at. The request body itself is bounded by
`resolvers.http.observe.BodyLimit` (FACTGRAPH_MAX_BODY_BYTES).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import orjson
from cross_web import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.types import Receive, Scope, Send
from strawberry.asgi import GraphQL
from strawberry.extensions import (
    AddValidationRules,
    MaxAliasesLimiter,
    MaxTokensLimiter,
    ParserCache,
    QueryDepthLimiter,
    SchemaExtension,
)

from graph.errors import ValidationError
from resolvers.graphql.graphiql import offline_page
from resolvers.http.json_guard import check
from resolvers.http.observe import error_body, note_error

MAX_DEPTH = 10
MAX_ALIASES = 30
MAX_TOKENS = 5_000
# Distinct documents whose parse and validation are remembered. Clients send the same few
# documents with different variables, so a small LRU holds them all; unique hostile documents
# only evict each other.
CACHED_DOCUMENTS = 256


# The depth and alias rules, built once: strawberry's limiters build a new rule class in their
# constructor, and extensions are constructed per request (~35 us a request, most of it the
# alias limiter's), although a known document is not validated at all (`ValidDocuments`). A rule
# class keeps no state between validations (graphql-core makes an instance per document).
_LIMIT_RULES = [
    *QueryDepthLimiter(max_depth=MAX_DEPTH).validation_rules,
    *MaxAliasesLimiter(max_alias_count=MAX_ALIASES).validation_rules,
]


def graphql_limits() -> list[Callable[[], SchemaExtension]]:
    """The limits, then the caches: the order matters (see `ValidDocuments`)."""
    return [
        partial(MaxTokensLimiter, max_token_count=MAX_TOKENS),
        partial(ParserCache, maxsize=CACHED_DOCUMENTS),
        partial(AddValidationRules, _LIMIT_RULES),
        ValidDocuments,
    ]


class _Seen:
    """A bounded, thread-safe set of query texts that passed validation."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._texts: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()

    def __contains__(self, text: object) -> bool:
        with self._lock:
            if text not in self._texts:
                return False
            self._texts.move_to_end(text)  # type: ignore[arg-type]
            return True

    def add(self, text: str) -> None:
        with self._lock:
            self._texts[text] = None
            self._texts.move_to_end(text)
            while len(self._texts) > self.size:
                self._texts.popitem(last=False)


_valid = _Seen(CACHED_DOCUMENTS)


class ValidDocuments(SchemaExtension):
    """Validate each distinct document once, not on every request.

    Validation walks the whole document with every rule, ours included (depth, aliases): for a
    search document that is several milliseconds per request, a large share of what GraphQL
    adds to the search itself. strawberry's ValidationCache keys on the tuple of rule classes,
    which strawberry's limiters build anew per request (here they are built once, `_LIMIT_RULES`).
    The rules are fixed for the process, so the query text alone decides the outcome:
    a text that passed once passes again, and only texts that passed are remembered (a bad
    document is validated, and refused, every time).

    The set is per process on purpose: the outcome depends on nothing but the text and this
    build's schema, so replicas need not share it, and a replica running another build (a
    rolling upgrade) validates against its own schema.
    """

    def on_validate(self) -> Iterator[None]:
        context = self.execution_context
        text = context.query
        known = text is not None and text in _valid
        if known:
            context.pre_execution_errors = []
        yield
        if not known and text is not None and context.pre_execution_errors == []:
            _valid.add(text)


class GuardedGraphQL(GraphQL[Any, Any]):
    """strawberry's ASGI view, answering 400 (not 500) to JSON bodies that are not objects,
    with GraphQL-shaped errors (strawberry answers its own 400s in plain text).

    strawberry assumes a parsed body is an object or a batch list; `null`, `5` or `"x"` made it
    raise AttributeError deep inside. Anything the parser cannot take is a client error.
    """

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        request = Request(scope=scope, receive=receive)
        try:
            response = await self.run(request)
        except HTTPException as exc:
            note_error("BAD_REQUEST", exc.reason)
            body = error_body(
                scope["path"], "BAD_REQUEST", exc.reason, scope.get("factgraph.request_id")
            )
            response = Response(body, exc.status_code, media_type="application/json")
        await response(scope, receive, send)

    def decode_json(self, data: str | bytes) -> object:
        """A body, or a GET's `variables` and `extensions`, after the checks every JSON body
        gets (resolvers/http/json_guard.py: a GET's query string does not pass that middleware)."""
        try:
            check(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data)
        except ValidationError as exc:
            raise HTTPException(400, str(exc)) from None
        return super().decode_json(data)

    async def render_graphql_ide(self, request: Request) -> Response:
        """GraphiQL with its assets served by this service, so it works without internet."""
        return HTMLResponse(offline_page(self.graphql_ide_html))

    def encode_json(self, data: object) -> str | bytes:
        """orjson: a search page (~6 KB) in ~5 us instead of json's ~35. Text, not bytes: a
        subscription's messages go out as WebSocket text frames only when this is a str.
        Anything orjson cannot say (an integer past 64 bits) falls back to the standard library."""
        try:
            return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS).decode()
        except TypeError:
            return super().encode_json(data)

    async def parse_http_body(self, request: Any) -> Any:
        try:
            return await super().parse_http_body(request)
        except (AttributeError, TypeError, KeyError) as exc:
            raise HTTPException(
                400, "the request body must be a JSON object with a `query` string"
            ) from exc
