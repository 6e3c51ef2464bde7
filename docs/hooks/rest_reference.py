"""MkDocs hook: the REST API reference page, and the OpenAPI document itself, from openapi.json.

`openapi.json` at the repository root is printed from the code (`make schema`) and a test
compares the two, as for `schema.graphql`. The page renders it as Markdown tables at build
time (nothing fetched from a CDN: the site builds offline), and the JSON is published beside it
for tools to download.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[2]
PAGE = "reference/rest.md"
DOCUMENT = "reference/openapi.json"
REF = "#/components/schemas/"


def on_files(files: Files, config: MkDocsConfig) -> Files:
    source = ROOT / "openapi.json"
    files.append(File.generated(config, PAGE, content=reference(json.loads(source.read_text()))))
    files.append(File.generated(config, DOCUMENT, abs_src_path=str(source)))
    return files


def reference(doc: dict[str, Any]) -> str:
    lines = [
        "# REST API reference",
        "",
        f"Generated from [`openapi.json`](openapi.json) (OpenAPI {doc['openapi']}) when the site",
        "is built; a running server serves the same document at `/openapi.json`. The",
        "[REST guide](../rest.md) explains what the routes are for.",
        "",
        "Routes that reach a scope's data take an API key as `Authorization: Bearer <key>`,",
        "`Authorization: Token <key>` (as mem0's clients send it) or `X-API-Key: <key>` when",
        "the server requires keys, and may answer 401, 403 and 503 (`Retry-After`) before the",
        "route runs; those that take a body may answer 413 and 400. Every error answer is an",
        "[`ErrorBody`](#errorbody); on mem0's routes a [`Mem0ErrorBody`](#mem0errorbody).",
        "",
    ]
    by_tag: dict[str, list[tuple[str, str, dict[str, Any]]]] = {}
    for path, methods in doc["paths"].items():
        for method, op in methods.items():
            by_tag.setdefault(op["tags"][0], []).append((path, method, op))
    for tag in [t["name"] for t in doc.get("tags", [])]:
        lines += [f"## {tag}", ""]
        for path, method, op in by_tag.get(tag, []):
            lines += operation(path, method, op)
    lines += ["## Schemas", ""]
    for name, schema in doc["components"]["schemas"].items():
        lines += [f"### {name} {{#{anchor(name)}}}", "", *describe(schema.get("description"))]
        lines += schema_body(schema)
    return "\n".join(lines) + "\n"


def operation(path: str, method: str, op: dict[str, Any]) -> list[str]:
    lines = [f"### {op['summary']}", "", f"`{method.upper()} {path}`", ""]
    lines += describe(op.get("description"))
    if op.get("parameters"):
        lines += ["| parameter | in | type | description |", "|---|---|---|---|"]
        for p in op["parameters"]:
            name = f"`{p['name']}`" + (" (required)" if p.get("required") else "")
            if "schema" in p:
                kind = type_of(p["schema"])
            else:  # a value sent as a media type's text: JSON in a query string
                media, content = next(iter(p["content"].items()))
                kind = f"{type_of(content['schema'])} as `{media}` text"
            lines.append(f"| {name} | {p['in']} | {kind} | {cell(p.get('description'))} |")
        lines.append("")
    if "requestBody" in op:
        body = op["requestBody"]["content"]["application/json"]["schema"]
        lines += [f"Body (JSON): {type_of(body)}", ""]
    lines += ["| status | answer | body |", "|---|---|---|"]
    for status, reply in op["responses"].items():
        content = reply.get("content", {})
        body = ", ".join(f"{type_of(c['schema'])} (`{media}`)" for media, c in content.items())
        lines.append(f"| {status} | {cell(reply['description'])} | {body or 'none'} |")
    return [*lines, ""]


def schema_body(schema: dict[str, Any]) -> list[str]:
    if "properties" not in schema:
        return [f"Type: {type_of(schema)}", ""]
    required = set(schema.get("required", []))
    rows = ["| field | type | description |", "|---|---|---|"]
    for name, prop in schema["properties"].items():
        label = f"`{name}`" + (" (required)" if name in required else "")
        rows.append(f"| {label} | {type_of(prop)} | {cell(details(prop))} |")
    return [*rows, ""]


def details(prop: dict[str, Any]) -> str:
    """The description of a field, with its limits and default."""
    parts = [prop["description"].rstrip(".")] if prop.get("description") else []
    limits = {
        "minimum": "at least",
        "maximum": "at most",
        "minLength": "at least {} characters",
        "maxLength": "at most {} characters",
        "maxItems": "at most {} items",
    }
    for key, words in limits.items():
        if key in prop:
            parts.append(words.format(prop[key]) if "{}" in words else f"{words} {prop[key]}")
    if "default" in prop:
        parts.append(f"default `{json.dumps(prop['default'])}`")
    return "; ".join(parts)


def type_of(schema: dict[str, Any]) -> str:
    """A schema in a few words: a link for a named schema, `[T]` for a list, `T \\| null`."""
    if "$ref" in schema:
        name = schema["$ref"].removeprefix(REF)
        return f"[`{name}`](#{anchor(name)})"
    if "anyOf" in schema:
        return " \\| ".join(type_of(s) for s in schema["anyOf"])
    if "enum" in schema:
        return " \\| ".join(f"`{json.dumps(v)}`" for v in schema["enum"])
    kind = schema.get("type", "any")
    if kind == "array":
        return f"[{type_of(schema.get('items', {}))}]"
    if schema.get("format"):
        return f"`{kind}` ({schema['format']})"
    return f"`{kind}`"


def anchor(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def describe(text: str | None) -> list[str]:
    return [text.strip(), ""] if text else []


def cell(text: str | None) -> str:
    """Text that stays inside one Markdown table cell."""
    return re.sub(r"\s*\n\s*", " ", (text or "").strip()).replace("|", "\\|")
