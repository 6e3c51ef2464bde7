"""CSV files for `neo4j-admin database import full`, typed from the values they carry.

The offline importer reads node and relationship files whose header names each column's type
(`turn:long`, `tags:string[]`, `embedding:float[]`, `valid_from:datetime`, `:LABEL`, `:ID`).
Rows with the same set of typed properties share a file, so a property that is absent (None)
is absent from the node, as the transactional importer leaves it. Every value is quoted, so an
empty string stays an empty string and an unquoted empty field is a missing value. A list that
is empty has no type in a CSV header: such properties are collected in `empty_lists` and set by
a query once the data is in (graph/bulk/initial.py).
"""

from __future__ import annotations

import datetime as dt
import math
from pathlib import Path
from typing import IO, Any

from graph.storage.wire import Vector

Signature = tuple[tuple[str, str], ...]


def entity_key(scope: str, name: str) -> str:
    """The offline importer's id of an entity or a tag: unique per scope, never stored."""
    return f"{scope}\x1e{name}"


class CsvGroups:
    """Open node and relationship files, one per (kind, typed property set)."""

    def __init__(self, folder: Path, *, array_delimiter: str) -> None:
        self.folder = folder
        self.delimiter = array_delimiter
        self._nodes: dict[tuple[str, Signature, bool], _File] = {}
        self._relationships: dict[tuple[str, Signature], _File] = {}
        self.empty_lists: list[tuple[str, dict[str, Any], str]] = []

    # -- rows ---------------------------------------------------------------------------------
    def node(
        self,
        group: str,
        space: str,
        node_id: str,
        labels: list[str],
        props: dict[str, Any],
        times: dict[str, str],
        *,
        stored_id: bool = True,
    ) -> None:
        values = {k: v for k, v in props.items() if k != "id" or not stored_id}
        typed, cells = self._typed(values, times)
        for key, value in values.items():
            if isinstance(value, list) and not value:
                match = {"id": node_id} if stored_id else {k: props[k] for k in _KEYS[group]}
                self.empty_lists.append((group, match, key))
        signature = tuple(typed)
        handle = self._nodes.get((group, signature, stored_id))
        if handle is None:
            id_column = f"id:ID({space})" if stored_id else f":ID({space})"
            header = [id_column, ":LABEL", *(f"{k}{t}" for k, t in typed)]
            handle = _File(self.folder / f"nodes-{group}-{len(self._nodes)}.csv", header, group)
            self._nodes[(group, signature, stored_id)] = handle
        handle.write([node_id, self.delimiter.join(labels), *cells], node_id)

    def relationship(
        self,
        kind: str,
        start_space: str,
        start: str,
        end_space: str,
        end: str,
        props: dict[str, Any] | None = None,
        times: dict[str, str] | None = None,
    ) -> None:
        typed, cells = self._typed(props or {}, times or {})
        signature = tuple(typed)
        handle = self._relationships.get((kind, signature))
        if handle is None:
            header = [
                f":START_ID({start_space})",
                f":END_ID({end_space})",
                ":TYPE",
                *(f"{k}{t}" for k, t in typed),
            ]
            path = self.folder / f"relationships-{kind}-{len(self._relationships)}.csv"
            handle = _File(path, header, kind)
            self._relationships[(kind, signature)] = handle
        handle.write([start, end, kind, *cells], None)

    def _typed(
        self, props: dict[str, Any], times: dict[str, str]
    ) -> tuple[list[tuple[str, str]], list[str]]:
        typed: list[tuple[str, str]] = []
        cells: list[str] = []
        for key, value in props.items():
            if value is None or (isinstance(value, list) and not value):
                continue
            kind, cell = self._cell(key, value)
            typed.append((key, kind))
            cells.append(cell)
        for key, value in times.items():
            typed.append((key, ":datetime"))
            cells.append(value)
        return typed, cells

    def _cell(self, key: str, value: Any) -> tuple[str, str]:
        if isinstance(value, bool):
            return ":boolean", "true" if value else "false"
        if isinstance(value, int):
            return ":long", str(value)
        if isinstance(value, float):
            return ":double", _float(key, value)
        if isinstance(value, str):
            return "", value
        if isinstance(value, dt.datetime):
            return ":datetime", value.isoformat()
        if isinstance(value, Vector) or (
            isinstance(value, list) and all(isinstance(v, float | int) for v in value)
        ):
            if isinstance(value, Vector):
                # 32-bit, as the online writers store a vector (cypher/fact_insert.cypher).
                return ":float[]", self.delimiter.join(_float(key, float(v)) for v in value)
            if all(isinstance(v, int) and not isinstance(v, bool) for v in value):
                return ":long[]", self.delimiter.join(str(v) for v in value)
            return ":double[]", self.delimiter.join(_float(key, float(v)) for v in value)
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            if any(self.delimiter in v for v in value):
                raise ValueError(f"{key}: a value holds a control character (\\x1f)")
            return ":string[]", self.delimiter.join(value)
        raise ValueError(
            f"{key}: --initial cannot write a {type(value).__name__} property; "
            "use `factgraph import --fast`"
        )

    # -- files --------------------------------------------------------------------------------
    def close_nodes(self) -> None:
        for handle in self._nodes.values():
            handle.close()

    def add_column(self, group: str, name: str, values: dict[str, str]) -> None:
        """Append a string column to the group's node files (values known only at the end)."""
        for handle in self._nodes.values():
            if handle.group == group:
                handle.append_column(name, values)

    def close(self) -> None:
        for handle in [*self._nodes.values(), *self._relationships.values()]:
            handle.close()

    def arguments(self) -> list[str]:
        return [f"--nodes={h.path}" for h in self._nodes.values()] + [
            f"--relationships={h.path}" for h in self._relationships.values()
        ]


_KEYS = {"Entity": ("scope", "canonical"), "Tag": ("scope", "name")}


def _float(key: str, value: float) -> str:
    if not math.isfinite(value):
        raise ValueError(f"{key}: {value} is not a finite number")
    return repr(value)


def _quote(cell: str) -> str:
    return '"' + cell.replace('"', '""') + '"'


class _File:
    """One CSV file; remembers where each node's record ends, to append a column later."""

    def __init__(self, path: Path, header: list[str], group: str) -> None:
        self.path = path
        self.group = group
        self.header = header
        self._handle: IO[str] | None = path.open("w", encoding="utf-8", newline="")
        self._handle.write(",".join(_quote(h) for h in header) + "\n")
        self._ends: list[tuple[int, str]] = []
        self._size = 0

    def write(self, cells: list[str], node_id: str | None) -> None:
        assert self._handle is not None
        line = ",".join(_quote(c) for c in cells)
        self._handle.write(line + "\n")
        if node_id is not None:
            self._ends.append((len(line) + 1, node_id))

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def append_column(self, name: str, values: dict[str, str]) -> None:
        """Rewrite the file with one more column; a node without a value gets none (null)."""
        self.close()
        source = self.path.with_suffix(".part")
        self.path.rename(source)
        with (
            source.open("r", encoding="utf-8", newline="") as old,
            self.path.open("w", encoding="utf-8", newline="") as new,
        ):
            old.readline()
            self.header.append(name)
            new.write(",".join(_quote(h) for h in self.header) + "\n")
            for length, node_id in self._ends:
                record = old.read(length)
                value = values.get(node_id)
                new.write(record[:-1] + "," + ("" if value is None else _quote(value)) + "\n")
        source.unlink()
