"""schemathesis hooks of the contract fuzz: one scope for all it writes, rules said in words.

Loaded by the CLI through SCHEMATHESIS_HOOKS (tests/test_contract.py, bench/contract_fuzz.py).
Every GraphQL `scope:` string is pointed at the run's own scope (CONTRACT_SCOPE), so that what
the fuzz writes can be deleted afterwards; REST and mem0 calls get it as `X-Scope`. One rule of
the REST document is said in words only, because JSON Schema cannot compare two fields:
`valid_to` must be later than `valid_from`; the fuzzing phase sends no body that breaks it
(tests/schemathesis.toml excuses the coverage phase, which no filter reaches). And a
GraphQL error the service gives on purpose about the data (NOT_FOUND: no such id; CONFLICT: not
in that state) is the caller's, not a fault, though schemathesis counts any error an operation
raises after validation as the server's.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from typing import Any

import graphql
import schemathesis

SCOPE = os.environ.get("CONTRACT_SCOPE", "contract-fuzz")


class _Scoped(graphql.Visitor):
    def enter_argument(self, node: graphql.ArgumentNode, *_: Any) -> graphql.ArgumentNode | None:
        if node.name.value == "scope" and isinstance(node.value, graphql.StringValueNode):
            return graphql.ArgumentNode(name=node.name, value=graphql.StringValueNode(value=SCOPE))
        return None


def scoped(document: str) -> str:
    """The document with every `scope:` argument set to SCOPE (as it was if it does not parse)."""
    try:
        ast = graphql.parse(document)
    except graphql.GraphQLError:
        return document
    return graphql.print_ast(graphql.visit(ast, _Scoped()))


@schemathesis.hook
def before_call(context: schemathesis.HookContext, case: Any, kwargs: dict[str, Any]) -> None:
    """A GraphQL case's body is its document."""
    if isinstance(case.body, str) and "scope" in case.body:
        case.body = scoped(case.body)


def _time(value: Any) -> datetime | None:
    """As the server reads it: naive is UTC."""
    try:
        moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _in_order(memory: Any) -> bool:
    if not isinstance(memory, dict):
        return True
    start, end = _time(memory.get("valid_from")), _time(memory.get("valid_to"))
    if start is None or end is None:
        return True
    return end > start


@schemathesis.hook
def filter_body(context: schemathesis.HookContext, body: Any) -> bool:
    if isinstance(body, dict) and isinstance(body.get("memories"), list):
        return all(_in_order(m) for m in body["memories"])
    return _in_order(body)


# A GraphQL error with one of these codes answers the request as designed.
_ANSWERS = frozenset({"NOT_FOUND", "CONFLICT"})


@schemathesis.hook
def filter_failure(
    context: schemathesis.HookContext, failure: Any, case: Any, response: Any
) -> bool:
    """Drop "GraphQL server error" (ST113) when every error is one of `_ANSWERS`."""
    errors = getattr(failure, "errors", None)
    if getattr(failure, "code", "") != "ST113" or not errors:
        return True
    codes = {(e.get("extensions") or {}).get("code") for e in errors if isinstance(e, dict)}
    return not codes <= _ANSWERS
