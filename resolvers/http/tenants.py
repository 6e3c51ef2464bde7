"""Who a request or a stream is charged to, for the admission and stream bounds.

A tenant is its API key when it sends one (the key as sent: the middlewares that count run
before it is verified, and a wrong key is refused at once by the key check anyway); without a
key, the scope the request names (`X-Scope`, `?scope=`, or a GraphQL document's `scope:`
argument); else the client's address. A stream is charged to its key, else its address.

Keys are kept as a short digest, never as sent: these names end up in counters only.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from starlette.requests import HTTPConnection
from starlette.types import Scope

from resolvers.http.context import api_key_of

# A GraphQL body is parsed for its scope only up to this size; a larger one (a batch write)
# is charged to its address. Parsing a few KB costs microseconds on the event loop.
_MAX_PARSED = 65_536
_SCOPE_ARGUMENT = re.compile(r'\bscope\s*:\s*(?:"((?:[^"\\]|\\.)*)"|\$([_A-Za-z][_0-9A-Za-z]*))')


def _digest(key: str) -> str:
    return hashlib.blake2b(key.encode(), digest_size=8).hexdigest()


def key_of(scope: Scope) -> str | None:
    """`key:<digest>` for the API key the caller sent, or None."""
    key = api_key_of(HTTPConnection(scope))
    return f"key:{_digest(key)}" if key else None


def address_of(scope: Scope) -> str:
    client = scope.get("client")
    return f"addr:{client[0]}" if client else "addr:?"


def stream_owner(scope: Scope) -> str:
    """Whom a stream counts against: its key, else its address."""
    return key_of(scope) or address_of(scope)


def request_tenant(scope: Scope, body: bytes) -> str:
    """Whom an API request counts against (see the module)."""
    key = key_of(scope)
    if key is not None:
        return key
    connection = HTTPConnection(scope)
    named = connection.headers.get("x-scope") or connection.query_params.get("scope")
    if not named and scope["path"] == "/graphql":
        named = _graphql_scope(connection, body)
    return f"scope:{named}" if named else address_of(scope)


def _graphql_scope(connection: HTTPConnection, body: bytes) -> str | None:
    """The first `scope:` argument of a GraphQL request, literal or through a variable."""
    document: Any
    variables: Any
    if body:
        if len(body) > _MAX_PARSED:
            return None
        try:
            payload = json.loads(body)
        except ValueError:
            return None
        if not isinstance(payload, dict):
            return None
        document, variables = payload.get("query"), payload.get("variables")
    else:
        document = connection.query_params.get("query")
        try:
            variables = json.loads(connection.query_params.get("variables") or "null")
        except ValueError:
            variables = None
    if not isinstance(document, str):
        return None
    found = _SCOPE_ARGUMENT.search(document)
    if found is None:
        return None
    literal, variable = found.groups()
    if literal is not None:
        return literal
    value = variables.get(variable) if isinstance(variables, dict) else None
    return value if isinstance(value, str) else None
