"""The MCP tools' contract, fuzzed: arguments drawn from each tool's own `inputSchema`.

schemathesis reads OpenAPI and GraphQL, not MCP, so this does for the tools what it does for
the other two: values the schema allows and values it does not (a wrong type, a field it does
not know, a missing required one), sent as a host sends them (JSON-RPC `tools/call` over the
streamable HTTP transport, stateless), and every answer checked: a JSON-RPC result, never a
protocol error nor INTERNAL_SERVER_ERROR, a tool error with a code for refused input, and a
success whose `structuredContent` matches the tool's `outputSchema`. The strategy below covers
the JSON Schema the tools use (types, enums, bounds, `anyOf`, `$ref`), nothing more.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import httpx
import jsonschema
from hypothesis import HealthCheck, given, settings
from hypothesis import seed as reproduce_with
from hypothesis import strategies as st

from resolvers.mcp.server import ERROR_META

HEADERS = {"Accept": "application/json, text/event-stream"}
_ANY = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=20))


def rpc(url: str, scope: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    """One JSON-RPC call on its own (the server is stateless); the decoded answer."""
    answer = httpx.post(
        url,
        json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params},
        headers={**HEADERS, "X-Scope": scope},
        timeout=60,
    )
    assert answer.status_code == 200, answer.text[:500]
    body: dict[str, Any] = answer.json()
    assert "error" not in body, body
    return body


def values(schema: Any, defs: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values `schema` allows (mostly: strings are short, lists and objects small)."""
    if not isinstance(schema, dict) or not schema:
        return _ANY
    if "$ref" in schema:
        return values(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "const" in schema:
        return st.just(schema["const"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return st.one_of([values(s, defs) for s in schema[key]])
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of([values({**schema, "type": k}, defs) for k in kind])
    if kind == "null":
        return st.none()
    if kind == "boolean":
        return st.booleans()
    if kind == "integer":
        return st.integers(schema.get("minimum", -(2**40)), schema.get("maximum", 2**40))
    if kind == "number":
        low, high = schema.get("minimum", -1e9), schema.get("maximum", 1e9)
        return st.floats(low, high, allow_nan=False, allow_infinity=False)
    if kind == "string":
        low = schema.get("minLength", 0)
        return st.text(min_size=low, max_size=max(low, min(schema.get("maxLength", 40), 40)))
    if kind == "array":
        low = schema.get("minItems", 0)
        high = max(low, min(schema.get("maxItems", 3), 3))
        return st.lists(values(schema.get("items", {}), defs), min_size=low, max_size=high)
    if kind == "object" or "properties" in schema:
        return objects(schema, defs)
    return _ANY


def objects(schema: dict[str, Any], defs: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    properties: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", []))
    fixed = {name: values(properties[name], defs) for name in required if name in properties}
    optional = {name: values(s, defs) for name, s in properties.items() if name not in required}
    return st.fixed_dictionaries(fixed, optional=optional)


def arguments(schema: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Arguments for a tool: mostly valid ones, and some each way invalid."""
    defs = {**schema.get("$defs", {}), **schema.get("definitions", {})}
    valid = objects(schema, defs)
    required = list(schema.get("required", []))
    wrong_type = valid.flatmap(
        lambda args: st.sampled_from(sorted(args) or ["x"]).map(
            lambda name: {**args, name: {"not": ["what", "the", "schema", "says"]}}
        )
    )
    unknown = valid.map(lambda args: {**args, "no_such_argument": 1})
    invalid = [wrong_type, unknown]
    if required:
        invalid.append(valid.map(lambda args: {k: v for k, v in args.items() if k != required[0]}))
    return st.one_of(valid, valid, valid, *invalid)


def check(tool: dict[str, Any], args: dict[str, Any], body: dict[str, Any]) -> str:
    """What the answer was ("ok" or the tool error's code); fails on a broken contract."""
    result = body["result"]
    if result.get("isError"):
        error = (result.get("_meta") or {}).get(ERROR_META)
        assert isinstance(error, dict), result  # a tool error says what was wrong
        assert error["code"] != "INTERNAL_SERVER_ERROR", (tool["name"], args, error)
        assert "Traceback" not in str(result)
        return str(error["code"])
    output = tool.get("outputSchema")
    if output is not None:
        jsonschema.validate(result.get("structuredContent"), output)
    try:
        jsonschema.validate(args, tool["inputSchema"])
    except jsonschema.ValidationError:
        refused = f"{tool['name']} accepted arguments its schema refuses: {args}"
        raise AssertionError(refused) from None
    return "ok"


def fuzz(url: str, scope: str, *, examples_per_tool: int, seed: int | None = None) -> Counter[str]:
    """Call the tools at `url` (one tool set's endpoint) with drawn arguments; the answers by
    code ("ok" for a success). Deterministic without `seed`; raises at a broken contract."""
    tools = rpc(url, scope, "tools/list", {})["result"]["tools"]
    assert tools
    answers: Counter[str] = Counter()

    @settings(
        max_examples=examples_per_tool * len(tools),
        derandomize=seed is None,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    @given(
        call=st.sampled_from(tools).flatmap(
            lambda tool: st.tuples(st.just(tool), arguments(tool["inputSchema"]))
        )
    )
    def calls(call: tuple[dict[str, Any], dict[str, Any]]) -> None:
        tool, args = call
        body = rpc(url, scope, "tools/call", {"name": tool["name"], "arguments": args})
        answers[check(tool, args, body)] += 1

    (calls if seed is None else reproduce_with(seed)(calls))()
    return answers
