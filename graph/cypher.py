"""Load the Cypher kept as files in `cypher/`, wherever the code is installed from.

In a source checkout the files live at the repository's top level; a wheel carries them as
`graph/_cypher` (see pyproject's force-include). Queries are literals from files and values are
always passed as parameters, so no user input ever becomes Cypher text.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import LiteralString


class CypherNotFound(LookupError):
    """A query name that has no file: a packaging or naming bug, never user input."""


@functools.cache
def cypher_dir() -> Path:
    here = Path(__file__).resolve().parent
    for candidate in (here / "_cypher", here.parent / "cypher"):
        if candidate.is_dir():
            return candidate
    raise CypherNotFound(f"no cypher/ folder next to {here} (looked for _cypher and ../cypher)")


@functools.cache
def load(name: str) -> LiteralString:
    """The text of `cypher/<name>.cypher`, cached; comment lines starting with // are kept."""
    path = cypher_dir() / f"{name}.cypher"
    if not path.is_file():
        raise CypherNotFound(f"missing Cypher file {path}")
    return path.read_text(encoding="utf-8").strip()


def statements(folder: str) -> list[tuple[str, LiteralString]]:
    """Every `;`-terminated statement of the files in `cypher/<folder>/`, in file-name order."""
    out: list[tuple[str, LiteralString]] = []
    for path in sorted((cypher_dir() / folder).glob("*.cypher")):
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
