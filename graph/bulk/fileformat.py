"""The export file's header line: which format and version the JSON Lines after it follow.

`factgraph export` writes this line first; `factgraph import` reads it to know the file is an
export (whose absent state fields mean "none", not "compute it") and refuses a version newer
than it understands, rather than misreading it. Files without a header are version 1 exports
or hand-written rows, and import them as before. docs/batch-import.md describes each version.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

FORMAT = "factgraph-export"
# 1: no header; roles subject/object only; standing and the consolidation queue recomputed.
# 2: this header; every link role, derived_from links, standing and the queue carried as they
#    were, so an import restores the scope exactly.
VERSION = 2
HEADER_FIELDS = frozenset({"format", "version", "exported_at", "scopes", "embeddings"})


@dataclass(frozen=True)
class Header:
    """What an export's first line says about the lines after it."""

    version: int
    line: int


def header_line(*, scopes: list[str] | None, embeddings: bool, now: datetime) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": now.isoformat(),
        "scopes": scopes,
        "embeddings": embeddings,
    }


def is_header(data: Mapping[str, Any]) -> bool:
    return "format" in data and "text" not in data and "entity" not in data


def read_header(data: Mapping[str, Any], *, line: int) -> Header:
    """The header of a file whose first record is `data`; ValueError if it is not one we read."""
    if data.get("format") != FORMAT:
        raise ValueError(f"line {line}: format {data.get('format')!r} is not {FORMAT!r}")
    version = data.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise ValueError(f"line {line}: version must be a positive integer, got {version!r}")
    if version > VERSION:
        raise ValueError(
            f"line {line}: the file is {FORMAT} version {version}; this factgraph reads up to "
            f"version {VERSION}: import it with a newer factgraph"
        )
    unknown = sorted(set(data) - HEADER_FIELDS)
    if unknown:
        raise ValueError(f"line {line}: {unknown[0]}: unknown field in the export header")
    return Header(version, line)


__all__ = ["FORMAT", "VERSION", "Header", "header_line", "is_header", "read_header"]
