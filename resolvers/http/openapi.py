"""The OpenAPI 3.1 document of the REST API, served at /openapi.json, built from the routes.

A REST handler is described where it is written, with `@described(...)`: a summary, the
TypedDict of its JSON body, and those of its answers by status. The document is assembled from
the app's own routes (paths and methods as Starlette serves them) and these descriptions, and
its JSON Schemas are derived from the same TypedDicts the handlers build their answers with
(mypy checks that they do), so the description cannot drift from the code without a failing
check. What every data route may also answer, because a middleware says so before the handler
runs (401 without a valid key, 503 when overloaded, 413 and 400 for bodies), is added here once.
`schema.graphql`'s counterpart: `openapi.json` at the repository root is printed from this
(`factgraph schema openapi`, `make schema`), and tests/test_openapi.py fails when a route of the
app is not described or a real answer does not match its description.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from typing import Annotated, Any, Literal, Required, TypeVar

from pydantic import ConfigDict, Field, TypeAdapter, WithJsonSchema, with_config
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route
from typing_extensions import TypedDict

from graph.write.validation import CONTROL_CHARACTERS
from resolvers.http.observe import serves_data

PATH = "/openapi.json"
JSON = "application/json"
OPENAPI_VERSION = "3.1.0"
F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T", bound=type)

_BODIES: dict[str, type] = {}


def body_schema(cls: T) -> T:
    """The decorator of the TypedDicts that describe a body: the docstring under each field
    becomes its description in the document, also in TypedDicts that extend this one. Objects
    are closed (`additionalProperties: false`) unless their config says otherwise."""
    _BODIES[cls.__name__] = cls
    return with_config(ConfigDict(use_attribute_docstrings=True))(cls)


def ruled_body_schema(rule: dict[str, Any]) -> Callable[[T], T]:
    """`body_schema` for an object with a rule across its fields that the server enforces
    (at least one of several fields, not all of them zero), stated as JSON Schema."""

    def decorate(cls: T) -> T:
        _BODIES[cls.__name__] = cls
        config = ConfigDict(use_attribute_docstrings=True, json_schema_extra=rule)
        return with_config(config)(cls)

    return decorate


def one_of_fields(*names: str, null_is_absent: bool = False) -> dict[str, Any]:
    """The rule of an object that must carry at least one of `names` (with `null_is_absent`,
    one that is not null)."""
    if not null_is_absent:
        return {"anyOf": [{"required": [name]} for name in names]}
    null = {"type": "null"}
    return {
        "anyOf": [
            {"required": [name], "not": {"required": [name], "properties": {name: null}}}
            for name in names
        ]
    }


def open_body_schema(cls: T) -> T:
    """`body_schema` for an object that may carry fields beyond those named (they are
    ignored): `additionalProperties` stays open."""
    body_schema(cls)
    return with_config(ConfigDict(use_attribute_docstrings=True, extra="allow"))(cls)


# What the server strips as blank (Python's str.isspace()), spelled out: JSON Schema's `\s`
# (ECMA-262) is another set (\x1c-\x1f and \x85 are not space there, \ufeff is).
_SPACE = r"\t\n\x0b\x0c\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
# Those of them that are not control characters (which an identifier may start with).
_SPACE_NOT_CONTROL = r"\x20\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
# A string the server refuses when empty or blank (an id, a name).
NonEmpty = Annotated[str, Field(min_length=1, pattern=f"[^{_SPACE}]")]
# Unicode's control characters, which no identifier holds (graph/write/validation.py
# check_clean, the one check every interface's identifiers pass).
_CONTROL = CONTROL_CHARACTERS
# An identifier: a scope, an id, a tag, a partition, a session, an entity's name, mem0's
# user_id ... At least one character that is not blank, and no control character (spaces
# first, then a character that is neither: a pattern that cannot backtrack).
Identifier = Annotated[
    str,
    Field(
        min_length=1,
        pattern=f"^[{_SPACE_NOT_CONTROL}]*[^{_SPACE}{_CONTROL}][^{_CONTROL}]*$",
    ),
]
# Text that is stored or searched: no NUL character (Lucene and the tokenizer take none).
NoNul = Annotated[str, Field(pattern=r"^[^\x00]*$")]
# Such text that must say something (blank space first, then a character that is neither: a
# pattern that cannot backtrack, even over 64,000 characters).
Prose = Annotated[str, Field(min_length=1, pattern=f"^[{_SPACE}]*[^{_SPACE}\\x00][^\\x00]*$")]
# A date and time as the REST answers write it (ISO 8601, with its offset).
# RFC 3339 allows offsets to ±23:59; Neo4j (and so factgraph) keeps ±18:00 at most.
DATE_TIME = {
    "type": "string",
    "format": "date-time",
    "pattern": r"(?:[Zz]|[+-](?:(?:0\d|1[0-7]):[0-5]\d|18:00))$",
}
Timestamp = Annotated[str, WithJsonSchema(DATE_TIME)]


@body_schema
class ErrorDetail(TypedDict, total=False):
    """What went wrong; never a stack trace."""

    code: Required[str]
    """A stable code: BAD_USER_INPUT, UNAUTHENTICATED, FORBIDDEN, NOT_FOUND, CONFLICT,
    PAYLOAD_TOO_LARGE, OVERLOADED, DATABASE_UNAVAILABLE, ..."""
    message: Required[str]
    """For a person: what was wrong and, for bad input, with which field."""
    field: str
    """Bad input only: the offending field, named as it was sent (`memories[2].content`)."""
    reason: str
    """Bad input only: what is wrong with that field."""
    request_id: str
    """The request's X-Request-ID, on answers given before the route ran."""


@body_schema
class ErrorBody(TypedDict):
    """Every error answer of the REST API."""

    error: ErrorDetail


@dataclass(frozen=True)
class Reply:
    """One answer of an operation: `body` is the type its JSON is (None: no body)."""

    description: str
    body: Any = None
    media_type: str = JSON


@dataclass(frozen=True)
class Param:
    """A query, header or path parameter (a path's are found in the route itself)."""

    name: str
    location: Literal["query", "header", "path"]
    description: str
    schema: Any = str
    required: bool = False
    media_type: str | None = None
    """Set: the value is this media type's text (JSON in a query string), of type `schema`."""


@dataclass(frozen=True)
class Operation:
    summary: str
    description: str
    tag: str
    replies: Mapping[int, Reply]
    body: Any = None
    params: tuple[Param, ...] = ()
    operation_id: str | None = None
    errors: Any = None


# Replies and parameters the REST handlers share.
BAD_INPUT = Reply(
    "Bad input: `error.field` names the field as it was sent and `error.reason` what is wrong "
    "with it. Nothing was written.",
    ErrorBody,
)
FORBIDDEN = Reply("The API key may not act on this scope with this role.", ErrorBody)
NOT_FOUND = Reply("Nothing with this id in this scope.", ErrorBody)
SCOPE_PARAMS = (
    Param(
        "X-Scope",
        "header",
        "The scope (tenant) acted on. Without it (and without `scope`): the API key's scope "
        "when the key has exactly one, else FACTGRAPH_DEFAULT_SCOPE (`default`).",
    ),
    Param("scope", "query", "The scope, when no `X-Scope` header is sent."),
)

# What every data route may answer besides its own replies: 401 and 503 from the middlewares,
# before its handler runs (resolvers/http/observe.py, admission.py), and 403 from the access check
# each data handler makes first (resolvers/http/context.py `authorize`).
_DATA_REPLIES = {
    401: Reply(
        "No valid API key (`Authorization: Bearer <key>`, `Authorization: Token <key>` or "
        "`X-API-Key`) where the server requires one, or a caller from another host where it "
        "runs without keys.",
        ErrorBody,
    ),
    403: FORBIDDEN,
    503: Reply(
        "Overloaded (`OVERLOADED`: nothing was done) or Neo4j unreachable; retry after the "
        "seconds in `Retry-After`.",
        ErrorBody,
    ),
}
# And every route that takes a body, from the middlewares that read it first.
_BODY_REPLIES = {
    400: Reply(
        "Refused before the route ran: a JSON string holds an unpaired UTF-16 surrogate "
        "(`\\ud800`), or the Content-Length is not a number.",
        ErrorBody,
    ),
    413: Reply("The body is larger than FACTGRAPH_MAX_BODY_BYTES (1 MiB unless set).", ErrorBody),
}

_DESCRIBED: dict[tuple[Callable[..., Any], str | None], Operation] = {}


def described(
    summary: str,
    *,
    tag: str,
    replies: Mapping[int, Reply],
    body: Any = None,
    params: Iterable[Param] = (),
    description: str | None = None,
    method: str | None = None,
    operation_id: str | None = None,
    errors: Any = None,
) -> Callable[[F], F]:
    """Describe a handler for /openapi.json: `body` is the TypedDict of its JSON request body,
    `replies` its answers by status (the middlewares' 401/403/503, 400/413 are added), and
    `description` what a caller should know beyond the summary. `method` limits it to one
    method of a handler that serves several. `errors` is the body of the middlewares' answers
    on its path when it is not `ErrorBody` (mem0's routes add mem0's `detail`); a status both
    the handler and a middleware answer is described as both."""

    def register(handler: F) -> F:
        _DESCRIBED[(handler, method.upper() if method else None)] = Operation(
            summary=summary,
            description=description or "",
            tag=tag,
            replies=dict(replies),
            body=body,
            params=tuple(params),
            operation_id=operation_id,
            errors=errors,
        )
        return handler

    return register


def description_of(route: Route, method: str) -> Operation | None:
    """How the handler of this route describes `method` (None: it does not)."""
    endpoint = route.endpoint
    return _DESCRIBED.get((endpoint, method)) or _DESCRIBED.get((endpoint, None))


def operations(routes: Iterable[BaseRoute]) -> list[tuple[Route, str, Operation | None]]:
    """Every (route, method) the app serves over plain HTTP, with its description if any."""
    found: list[tuple[Route, str, Operation | None]] = []
    for route in routes:
        if isinstance(route, Route):
            for method in sorted((route.methods or set()) - {"HEAD"}):
                found.append((route, method, description_of(route, method)))
    return found


def document(routes: Iterable[BaseRoute]) -> dict[str, Any]:
    """The OpenAPI document of the described routes among `routes`."""
    described_ops = [(r, m, op) for r, m, op in operations(routes) if op is not None]
    types = _types_of(op for _, _, op in described_ops)
    inline, components = _schemas(types)
    paths: dict[str, dict[str, Any]] = {}
    seen_ids: set[str] = set()
    for route, method, op in described_ops:
        path = re.sub(r"\{(\w+):\w+\}", r"{\1}", route.path)
        entry = _operation(route, method, op, inline)
        if entry["operationId"] in seen_ids:
            raise ValueError(f"two operations are named {entry['operationId']!r}")
        seen_ids.add(entry["operationId"])
        paths.setdefault(path, {})[method.lower()] = entry
    tags = sorted({op.tag for _, _, op in described_ops})
    return {
        "openapi": OPENAPI_VERSION,
        "info": {
            "title": "factgraph REST API",
            "version": _version(),
            "description": (
                "Long-term memory for AI agents, kept in Neo4j. GraphQL (/graphql, described "
                "by its own schema) is the complete interface; these REST routes serve the "
                "calls REST clients already make."
            ),
        },
        "tags": [{"name": tag} for tag in tags],
        "paths": paths,
        "components": {
            "schemas": components,
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "An API key (`factgraph keys create`).",
                },
                "token": {
                    "type": "apiKey",
                    "in": "header",
                    "name": "Authorization",
                    "description": "`Token <key>`: an API key as mem0's clients send it.",
                },
                "apiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
            },
        },
    }


def document_text(routes: Iterable[BaseRoute]) -> str:
    """The document as `openapi.json` holds it."""
    return json.dumps(document(routes), indent=2, ensure_ascii=False) + "\n"


def _operation(
    route: Route, method: str, op: Operation, inline: Mapping[Any, dict[str, Any]]
) -> dict[str, Any]:
    data = serves_data({"path": route.path, "method": method, "query_string": b""})
    replies = _replies(op, data=data)
    params = [*op.params]
    named = {p.name for p in params if p.location == "path"}
    params += [
        Param(name, "path", f"The `{name}` of the path.", Identifier, required=True)
        for name in route.param_convertors
        if name not in named
    ]
    entry: dict[str, Any] = {
        "operationId": op.operation_id or _operation_id(route, method),
        "summary": op.summary,
        "tags": [op.tag],
    }
    if op.description:
        entry["description"] = op.description
    if params:
        entry["parameters"] = [
            {
                "name": p.name,
                "in": p.location,
                "description": p.description,
                "required": p.required or p.location == "path",
                **(
                    {"content": {p.media_type: {"schema": inline[p.schema]}}}
                    if p.media_type
                    else {"schema": inline[p.schema]}
                ),
            }
            for p in params
        ]
    if op.body is not None:
        entry["requestBody"] = {"required": True, "content": {JSON: {"schema": inline[op.body]}}}
    entry["responses"] = {
        str(status): _reply(reply, inline) for status, reply in sorted(replies.items())
    }
    # Keys are optional where the server runs without them (a loopback bind): `{}`.
    entry["security"] = [{"bearer": []}, {"token": []}, {"apiKey": []}, {}] if data else []
    return entry


def _replies(op: Operation, *, data: bool) -> dict[int, Reply]:
    """The handler's own answers, and those the middlewares may give on its route first."""
    errors = op.errors or ErrorBody
    shared = {**(_DATA_REPLIES if data else {}), **(_BODY_REPLIES if op.body is not None else {})}
    replies = {status: Reply(r.description, errors) for status, r in shared.items()}
    for status, reply in op.replies.items():
        before = replies.get(status)
        if before is not None and status in _BODY_REPLIES and reply.body is before.body:
            reply = Reply(f"{reply.description} Or: {before.description}", reply.body)
        replies[status] = reply
    return replies


def _reply(reply: Reply, inline: Mapping[Any, dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"description": reply.description}
    if reply.body is not None:
        out["content"] = {reply.media_type: {"schema": inline[reply.body]}}
    return out


def _operation_id(route: Route, method: str) -> str:
    name = getattr(route.endpoint, "__name__", "")
    many = len((route.methods or set()) - {"HEAD"}) > 1
    return f"{name}_{method.lower()}" if many or not name else name


def _types_of(ops: Iterable[Operation]) -> list[Any]:
    """Every type a schema is needed for, once, in a stable order."""
    shared = [r.body for r in (*_DATA_REPLIES.values(), *_BODY_REPLIES.values())]
    types: list[Any] = []
    for op in ops:
        own = [op.body, op.errors, *(r.body for r in op.replies.values())]
        for t in [*own, *(p.schema for p in op.params)]:
            if t is not None and t not in types:
                types.append(t)
    for t in [*shared, NonEmpty]:  # the schema of a path parameter
        if t not in types:
            types.append(t)
    return types


def _schemas(types: list[Any]) -> tuple[dict[Any, dict[str, Any]], dict[str, Any]]:
    """The schema of each type (a `$ref` for a TypedDict) and the components they refer to."""
    keyed, definitions = TypeAdapter.json_schemas(
        [(t, "validation", TypeAdapter(t)) for t in types],
        ref_template="#/components/schemas/{model}",
    )
    inline = {t: _tidy(schema) for (t, _), schema in keyed.items()}
    components = {name: _tidy(s) for name, s in sorted(definitions.get("$defs", {}).items())}
    _inherit_descriptions(components)
    for name in _NULL_IS_ABSENT & set(components):
        _accept_null(components[name])
    return inline, components


def null_is_absent(cls: T) -> T:
    """Mark a body whose handler takes an optional field sent as null as absent: the document
    then says every optional field may be null."""
    _NULL_IS_ABSENT.add(cls.__name__)
    return cls


_NULL_IS_ABSENT: set[str] = set()


def _accept_null(schema: dict[str, Any]) -> None:
    required = set(schema.get("required", []))
    for name, prop in schema.get("properties", {}).items():
        if name in required or set(prop) <= {"description"} or _allows_null(prop):
            continue
        description = prop.pop("description", None)
        inner = dict(prop)
        prop.clear()
        prop["anyOf"] = [*(inner.get("anyOf") or [inner]), {"type": "null"}]
        if description is not None:
            prop["description"] = description


def _allows_null(prop: dict[str, Any]) -> bool:
    return prop.get("type") == "null" or any(_allows_null(p) for p in prop.get("anyOf", []))


def _inherit_descriptions(components: dict[str, Any]) -> None:
    """A TypedDict that extends others gets the descriptions of the fields it inherits
    (pydantic reads the docstrings of the class's own source only)."""
    for name, schema in components.items():
        inherited = _inherited(_BODIES.get(name))
        for field, prop in schema.get("properties", {}).items():
            if "description" not in prop and field in inherited:
                prop["description"] = inherited[field]


def _inherited(cls: type | None) -> dict[str, str]:
    """The field descriptions of every body TypedDict `cls` extends, nearest base last."""
    found: dict[str, str] = {}
    for base in getattr(cls, "__orig_bases__", ()):
        if _BODIES.get(getattr(base, "__name__", "")) is not base:
            continue
        found.update(_inherited(base))
        own = TypeAdapter(base).json_schema().get("properties", {})
        found.update({f: _tidy(p)["description"] for f, p in own.items() if "description" in p})
    return found


def _tidy(schema: Any) -> Any:
    """Drop the generated titles of fields and close every object with fixed fields."""
    if isinstance(schema, list):
        return [_tidy(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    # A rule's `not` says which values are refused, so it is left open.
    out = {k: v if k == "not" else _tidy(v) for k, v in schema.items() if k != "properties"}
    if isinstance(out.get("description"), str):  # a docstring's line breaks
        out["description"] = re.sub(r"\s*\n\s*", " ", out["description"])
    if "properties" in schema:
        out["properties"] = {
            name: {k: v for k, v in _tidy(prop).items() if k != "title"}
            for name, prop in schema["properties"].items()
        }
        out.setdefault("additionalProperties", False)
    return out


def _version() -> str:
    try:
        return version("factgraph")
    except PackageNotFoundError:
        return "0"


@described(
    "This document",
    tag="Service",
    replies={200: Reply("The OpenAPI 3.1 document of this server's REST API.", dict[str, Any])},
    description="The OpenAPI 3.1 description of every REST route of this server, built from "
    "the routes themselves.",
)
async def openapi(request: Request) -> Response:
    text: bytes | None = getattr(request.app.state, "openapi", None)
    if text is None:
        text = request.app.state.openapi = document_text(request.app.routes).encode()
    return Response(text, media_type=JSON)


routes = [Route(PATH, openapi, methods=["GET"])]
