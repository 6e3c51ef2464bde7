"""MkDocs hook: pages built from files that live elsewhere in the repository, at build time.

The schema reference comes from `schema.graphql` (itself generated from the code) and the
benchmark pages from `bench/README.md` and `bench/results/`, so the site never holds a hand-made
copy that could drift. A broken link inside them fails `mkdocs build --strict` like any page.

The pages of docs/ link the files themselves (`../bench/README.md#...`, `../schema.graphql`),
which is what a reader of the Markdown on a repository host or in an editor can open; the site
sends those links to its own rendering of them (`on_page_markdown`).
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from graphql import (
    GraphQLArgument,
    GraphQLEnumType,
    GraphQLField,
    GraphQLInputField,
    GraphQLInputObjectType,
    GraphQLInterfaceType,
    GraphQLNamedType,
    GraphQLObjectType,
    GraphQLScalarType,
    GraphQLSchema,
    GraphQLType,
    GraphQLUnionType,
    build_schema,
    get_named_type,
    is_introspection_type,
    is_specified_scalar_type,
)
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_PAGE = "reference/schema.md"
BENCH_PAGE = "benchmarks.md"
RESULTS_DIR = "bench-results"

# bench/README.md is written for GitHub: its links are relative to bench/.
BENCH_LINKS = {
    "](results/": f"]({RESULTS_DIR}/",
    "](../README.md#figures)": "](performance.md)",
    "](../docs/": "](",
}


def on_files(files: Files, config: MkDocsConfig) -> Files:
    files.append(File.generated(config, SCHEMA_PAGE, content=schema_reference()))
    files.append(File.generated(config, BENCH_PAGE, content=benchmarks_page()))
    for result in sorted((ROOT / "bench" / "results").iterdir()):
        if result.suffix in {".md", ".png"}:
            uri = f"{RESULTS_DIR}/{result.name}"
            files.append(File.generated(config, uri, abs_src_path=str(result)))
    return files


# A file of the repository (relative to its root) -> the site's page rendering it.
SITE_PAGES = {
    "bench/README.md": BENCH_PAGE,
    "schema.graphql": SCHEMA_PAGE,
    "openapi.json": "reference/rest.md",
}
LINK = re.compile(r"\]\(([^)\s#]+)(#[^)\s]*)?\)")


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """A page of docs/ linking a repository file the site renders links the rendering."""
    source = page.file.abs_src_path
    docs = ROOT / "docs"
    if source is None or not Path(source).is_relative_to(docs):
        return markdown
    here = Path(source).parent

    def to_site(match: re.Match[str]) -> str:
        target, anchor = match.group(1), match.group(2) or ""
        if "://" in target or target.startswith(("mailto:", "/")):
            return match.group(0)
        path = (here / target).resolve()
        if not path.is_relative_to(ROOT) or path.is_relative_to(docs):
            return match.group(0)
        name = path.relative_to(ROOT).as_posix()
        uri = SITE_PAGES.get(name)
        if uri is None and name.startswith("bench/results/"):
            uri = f"{RESULTS_DIR}/{path.name}"
        if uri is None:
            return match.group(0)
        return f"]({posixpath.relpath(uri, posixpath.dirname(page.file.src_uri))}{anchor})"

    return LINK.sub(to_site, markdown)


def benchmarks_page() -> str:
    text = (ROOT / "bench" / "README.md").read_text()
    for old, new in BENCH_LINKS.items():
        text = text.replace(old, new)
    return text


# -- the GraphQL schema reference -------------------------------------------------------------

SECTIONS: list[tuple[str, type[GraphQLNamedType]]] = [
    ("Objects", GraphQLObjectType),
    ("Interfaces", GraphQLInterfaceType),
    ("Unions", GraphQLUnionType),
    ("Input types", GraphQLInputObjectType),
    ("Enums", GraphQLEnumType),
    ("Scalars", GraphQLScalarType),
]


def schema_reference() -> str:
    schema = build_schema((ROOT / "schema.graphql").read_text())
    roots = [t for t in (schema.query_type, schema.mutation_type, schema.subscription_type) if t]
    lines = [
        "# GraphQL schema reference",
        "",
        "Generated from `schema.graphql` when the site is built (`schema.graphql` is itself",
        "generated from the code: `make schema`). The [GraphQL guide](../graphql.md) explains",
        "what the operations are for.",
        "",
    ]
    for root in roots:
        lines += [f"## {root.name}", "", *describe(root.description), *fields_table(root)]
    named = [
        t
        for name, t in sorted(schema.type_map.items())
        if not is_introspection_type(t) and not is_specified_scalar_type(t) and t not in roots
    ]
    for title, kind in SECTIONS:
        members = [t for t in named if isinstance(t, kind)]
        if not members:
            continue
        lines += [f"## {title}", ""]
        for t in members:
            lines += [f"### {t.name}", "", *describe(t.description), *type_body(t, schema)]
    return "\n".join(lines) + "\n"


def type_body(t: GraphQLNamedType, schema: GraphQLSchema) -> list[str]:
    if isinstance(t, GraphQLObjectType | GraphQLInterfaceType | GraphQLInputObjectType):
        return fields_table(t)
    if isinstance(t, GraphQLEnumType):
        rows = ["| value | meaning |", "|---|---|"]
        rows += [f"| `{name}` | {cell(v.description)} |" for name, v in t.values.items()]
        return [*rows, ""]
    if isinstance(t, GraphQLUnionType):
        return ["One of: " + ", ".join(type_link(m) for m in t.types), ""]
    return []


def fields_table(t: GraphQLObjectType | GraphQLInterfaceType | GraphQLInputObjectType) -> list[str]:
    rows = ["| field | type | description |", "|---|---|---|"]
    for name, field in t.fields.items():
        rows.append(f"| `{name}` | {type_link(field.type)} | {field_description(field)} |")
    return [*rows, ""]


def field_description(field: GraphQLField | GraphQLInputField) -> str:
    parts = [cell(field.description)] if field.description else []
    if isinstance(field, GraphQLInputField) and field.default_value is not None:
        parts.append(f"default `{field.default_value!r}`")
    if isinstance(field, GraphQLField) and field.args:
        parts.append("<br>".join(argument(name, arg) for name, arg in field.args.items()))
    if field.deprecation_reason:
        parts.append(f"*deprecated: {cell(field.deprecation_reason)}*")
    return "<br>".join(parts)


def argument(name: str, arg: GraphQLArgument) -> str:
    text = f"`{name}`: {type_link(arg.type)}"
    return f"{text}: {cell(arg.description)}" if arg.description else text


def type_link(t: GraphQLType) -> str:
    """`[Fact!]!` as code, linked to the named type's section unless it is a built-in scalar."""
    named = get_named_type(t)
    label = f"`{t}`"
    if is_specified_scalar_type(named):
        return label
    return f"[{label}](#{named.name.lower()})"


def describe(description: str | None) -> list[str]:
    return [description.strip(), ""] if description else []


def cell(text: str | None) -> str:
    """Text that stays inside one Markdown table cell."""
    return re.sub(r"\s*\n\s*", " ", (text or "").strip()).replace("|", "\\|")
