"""Load the Cypher kept as files in `cypher/`, wherever the code is installed from.

In a source checkout the files live at the repository's top level; a wheel carries them as
`graph/_cypher` (see pyproject's force-include). Queries are literals from files and values are
always passed as parameters, so no user input ever becomes Cypher text.

Files for one server generation live in a sub-folder and replace the file of the same name for
that generation only: `cypher/neo4j2026/` holds what Neo4j 2026.01+ runs instead (vector
candidates from the `SEARCH` clause with in-index filters, graph/platform/neo4j_versions.py), beside
the
5.26 files with their shards and over-fetch. The generation is chosen once per process, from
the server's version, at the first query (graph/storage/db.py); dropping 5.26 later means moving the
sub-folder's files up and deleting their 5.26 twins.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import LiteralString


class CypherNotFound(LookupError):
    """A query name that has no file: a packaging or naming bug, never user input."""


@functools.cache
def cypher_dir() -> Path:
    here = Path(__file__).resolve().parent.parent  # the graph package
    for candidate in (here / "_cypher", here.parent / "cypher"):
        if candidate.is_dir():
            return candidate
    raise CypherNotFound(f"no cypher/ folder next to {here} (looked for _cypher and ../cypher)")


BASE = ""  # the files at cypher/'s top level: Neo4j 5.26 (and 2025.x)
NEO4J_2026 = "neo4j2026"  # cypher/neo4j2026/: Neo4j 2026.01 and later
_generation = BASE


def use_generation(generation: str) -> None:
    """Select the files of a server generation (BASE or NEO4J_2026) for this process."""
    global _generation
    if generation not in (BASE, NEO4J_2026):
        raise ValueError(f"unknown Cypher generation {generation!r}")
    _generation = generation


def generation() -> str:
    return _generation


def load(name: str) -> LiteralString:
    """The text of `cypher/<name>.cypher` (or of the selected generation's own file), cached;
    comment lines starting with // are kept."""
    return _load(name, _generation)


@functools.cache
def _load(name: str, generation: str) -> LiteralString:
    if generation:
        override = cypher_dir() / generation / f"{name}.cypher"
        if override.is_file():
            return override.read_text(encoding="utf-8").strip()
    path = cypher_dir() / f"{name}.cypher"
    if not path.is_file():
        raise CypherNotFound(f"missing Cypher file {path}")
    return path.read_text(encoding="utf-8").strip()


def statements(folder: str) -> list[tuple[str, LiteralString]]:
    """Every `;`-terminated statement of the files in `cypher/<folder>/`, in file-name order
    (a file of the selected generation's `<folder>/` replaces the one of the same name)."""
    out: list[tuple[str, LiteralString]] = []
    files = {path.name: path for path in (cypher_dir() / folder).glob("*.cypher")}
    if _generation:
        files.update(
            (path.name, path) for path in (cypher_dir() / _generation / folder).glob("*.cypher")
        )
    for path in sorted(files.values(), key=lambda p: p.name):
        lines = [
            line
            for line in path.read_text(encoding="utf-8").splitlines()
            if not line.strip().startswith("//")
        ]
        for chunk in "\n".join(lines).split(";"):
            text = chunk.strip()
            if text:
                out.append((path.name, text))
    return out
