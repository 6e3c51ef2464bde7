"""The README stays a first-ten-minutes page, and what it sends readers to exists.

The documentation site itself is checked by `mkdocs build --strict` in `make test` (broken links,
anchors and references fail it); these tests cover what MkDocs does not see: the README, which
lives outside docs/, the configuration page against the settings the code actually reads, and
the Python API page against the operations `Memory` has.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from graphql import build_schema

from factgraph.cli import build_parser
from graph.memory import Memory

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
CONFIGURATION = ROOT / "docs" / "configuration.md"
PYTHON_API = ROOT / "docs" / "python.md"
LINK = re.compile(r"\]\(([^)\s]+)\)")
VARIABLE = re.compile(r'"((?:FACTGRAPH|NEO4J)_[A-Z0-9_]+)"')


def test_the_readme_is_at_most_250_lines() -> None:
    assert len(README.read_text().splitlines()) <= 250


def pages() -> list[Path]:
    """The Markdown a reader opens: the README and every page of docs/."""
    return [README, *sorted((ROOT / "docs").rglob("*.md"))]


def anchors(page: Path) -> set[str]:
    """A page's heading anchors, as MkDocs and repository hosts make them, and explicit ids."""
    found = set(re.findall(r"\{#([\w-]+)\}", page.read_text()))
    for heading in re.findall(r"^#+ (.+?)(?: \{#[\w-]+\})?$", page.read_text(), re.MULTILINE):
        words = re.sub(r"[^\w\s-]", "", heading).strip().lower()
        found |= {re.sub(r"[-\s]+", "-", words), words.replace(" ", "-")}
    return found


def test_every_relative_link_reaches_a_file_both_on_the_site_and_in_the_repository() -> None:
    """Relative to the page itself, as a repository host and an editor resolve it; the site's
    build sends links to files it renders as pages of its own (bench/README.md, bench/results/,
    schema.graphql, openapi.json) to those pages (docs/hooks/generated_pages.py)."""
    broken = []
    for page in pages():
        targets = [t for t in LINK.findall(page.read_text()) if "://" not in t]
        for target in targets:
            path, _, anchor = target.partition("#")
            file = (page.parent / path).resolve() if path else page
            if not file.exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
            elif anchor and file.suffix == ".md" and anchor not in anchors(file):
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such heading)")
    assert len(pages()) > 20
    assert broken == []


def test_every_setting_read_by_the_code_has_a_row_in_the_configuration_table() -> None:
    names = set(VARIABLE.findall((ROOT / "graph" / "config.py").read_text()))
    rows = [line for line in CONFIGURATION.read_text().splitlines() if line.startswith("| `")]
    documented = {name for row in rows for name in re.findall(r"`([A-Z0-9_]+)`", row)}
    assert "NEO4J_URI" in names and "FACTGRAPH_MODEL" in names
    assert sorted(names - documented) == []


def test_the_configuration_table_holds_one_line_a_row() -> None:
    rows = [line for line in CONFIGURATION.read_text().splitlines() if line.startswith("| `")]
    too_long = [row.split("|")[1].strip() for row in rows if len(row) > 250]
    assert too_long == []


def test_the_python_api_page_lists_every_operation_of_memory() -> None:
    """`Memory` is composed of one part per concept, so the page names its members in the order
    a reader meets them; a new operation must be added there to be documented."""
    page = PYTHON_API.read_text().split("::: graph.Memory", 1)[1].split("\n\n", 1)[0]
    listed = re.findall(r"^ +- (\w+)$", page, flags=re.MULTILINE)
    operations = {
        name
        for name, member in inspect.getmembers(Memory)  # a property is read from the class as is
        if not name.startswith("_") and (callable(member) or isinstance(member, property))
    }
    assert "remember" in listed and "recall" in operations
    assert sorted(listed) == sorted(operations)


def test_the_readme_names_every_command_of_the_command_line() -> None:
    parser, _ = build_parser()
    (commands,) = [a.choices for a in parser._subparsers._group_actions]  # type: ignore[union-attr]
    assert isinstance(commands, dict)
    line = README.read_text().split("**Command line**: `factgraph ", 1)[1].split("`", 1)[0]
    listed = [name.strip() for name in line.split("|")]
    assert sorted(listed) == sorted(commands)


def test_the_operations_the_readme_names_for_graphql_are_in_the_schema() -> None:
    said = (
        README.read_text().split("**GraphQL** at `/graphql`", 1)[1].split("the review queue", 1)[0]
    )
    named = set(re.findall(r"`(\w+)`", said))
    schema = build_schema((ROOT / "schema.graphql").read_text())
    roots = [t for t in (schema.query_type, schema.mutation_type) if t is not None]
    assert {"remember", "search", "history"} <= named
    assert named <= {name for root in roots for name in root.fields}
