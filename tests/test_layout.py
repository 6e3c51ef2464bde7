"""The code's layout rules that a reader relies on, checked from the source.

Modules import one way: a command module never imports the command line that registers it, and
recall never imports the memory service that hands it a search. An import circle, even a lazy
one inside a function or under TYPE_CHECKING, means two modules can only be understood together.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("factgraph", "graph", "resolvers")


def modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def imports(path: Path, known: dict[str, Path]) -> set[str]:
    """Every project module `path` imports, wherever the import statement stands."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            submodules = {f"{node.module}.{alias.name}" for alias in node.names} & known.keys()
            if len(submodules) < len(node.names) and node.module in known:
                out.add(node.module)  # names defined by the module itself
            out.update(submodules)
    return out


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group: list[str] = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_module_imports_one_that_imports_it_back() -> None:
    known = modules()
    graph = {name: imports(path, known) - {name} for name, path in known.items()}
    assert len(graph) > 50 and graph["factgraph.cli"]  # the scan sees the code
    assert circles(graph) == []


def test_the_circle_check_finds_a_circle() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_service_never_imports_its_transports() -> None:
    """graph/ is the service and resolvers/ its transports; only the command line (factgraph/)
    composes both, so graph/ can be read, tested and reused without GraphQL or HTTP."""
    known = modules()
    upward = {
        name: sorted(target for target in imports(path, known) if target.startswith("resolvers"))
        for name, path in known.items()
        if name.startswith("graph")
    }
    assert {name: found for name, found in upward.items() if found} == {}


TRANSPORTS = ("graphql", "rest", "mem0", "mcp", "pages")


def _folder(name: str) -> str | None:
    """The folder of resolvers/ a module lives in (`resolvers.rest.search` -> `rest`)."""
    parts = name.split(".")
    return parts[1] if parts[0] == "resolvers" and len(parts) > 2 else None


def test_the_transports_are_folders_a_newcomer_can_name() -> None:
    """Where to look is told by the folder names alone: the REST search, the GraphQL `search`
    resolver, the admission control and the MCP tool list."""
    for path in (
        "resolvers/rest/search.py",
        "resolvers/graphql/search.py",
        "resolvers/http/admission.py",
        "resolvers/mcp/tools.py",
    ):
        assert (ROOT / path).is_file(), path
    for folder in (*TRANSPORTS, "http"):
        doc = ast.get_docstring(
            ast.parse((ROOT / "resolvers" / folder / "__init__.py").read_text())
        )
        assert doc, f"resolvers/{folder}/__init__.py says what the folder serves"
    assert {p.name for p in (ROOT / "resolvers").glob("*.py")} == {"__init__.py", "app.py"}


def test_a_transport_never_imports_another() -> None:
    """REST does not import GraphQL's types, nor mem0 the MCP server's: what two transports
    share lives in resolvers/http/ or in graph/. `http/` itself imports no transport, and only
    `resolvers.app` (which composes them) and the command line reach several."""
    known = modules()
    crossing = {}
    for name, path in known.items():
        here = _folder(name)
        if here not in (*TRANSPORTS, "http"):
            continue
        found = sorted(
            target
            for target in imports(path, known)
            if _folder(target) in TRANSPORTS and _folder(target) != here
        )
        if found:
            crossing[name] = found
    assert crossing == {}


def test_the_rule_sees_a_crossing() -> None:
    assert _folder("resolvers.rest.search") == "rest"
    assert _folder("resolvers.graphql.types") == "graphql"
    assert _folder("resolvers.app") is None
    assert any(_folder(t) == "graphql" for t in imports(ROOT / "resolvers/app.py", modules()))


def test_the_memory_never_imports_the_adapters_over_it() -> None:
    """graph/adapters/ holds other projects' APIs (mem0's, the knowledge-graph tools') over
    `Memory`: they import the memory's concepts, never the other way round."""
    known = modules()
    inward = {
        name: sorted(t for t in imports(path, known) if t.startswith("graph.adapters"))
        for name, path in known.items()
        if name.startswith("graph") and not name.startswith("graph.adapters")
    }
    assert {name: found for name, found in inward.items() if found} == {}
    assert any(n.startswith("graph.adapters.mem0") for n in known)


def _layer(name: str) -> str:
    """The node of docs/design.md's picture a module belongs to."""
    parts = name.split(".")
    if parts[0] == "graph":
        return "adapters" if parts[1:2] == ["adapters"] else "graph"
    if parts[0] == "resolvers" and len(parts) > 1:
        return parts[1]
    return parts[0]


def test_the_design_page_draws_the_layers_as_the_code_imports_them() -> None:
    """The picture at the top of docs/design.md is the folder-level import graph, no more and no
    less: an arrow nobody imports, or an import nobody drew, fails here."""
    known = modules()
    drawn_in_code = {
        (_layer(name), _layer(target))
        for name, path in known.items()
        for target in imports(path, known)
        if _layer(name) != _layer(target)
    }
    page = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    block = page.split("```mermaid", 1)[1].split("```", 1)[0]
    drawn_on_page = {
        (left.strip(), right.strip())
        for left, _, right in (line.partition("-->") for line in block.splitlines())
        if right
    }
    assert drawn_on_page == drawn_in_code
