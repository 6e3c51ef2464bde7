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
