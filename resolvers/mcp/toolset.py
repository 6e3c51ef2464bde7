"""What a tool set is: the tools one MCP server offers, how it words their answers and errors,
and the resources beside them.

factgraph serves three (resolvers/mcp/toolsets/): its own tools, and the tools of the
two knowledge-graph memory servers hosts are configured with, under their names, schemas and
answer texts, so that switching a host to factgraph changes one line of its configuration.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import mcp_types as types

from graph.auth.roles import Role
from graph.errors import NotFound

if TYPE_CHECKING:
    from graph.memory import Memory


@dataclass(frozen=True)
class Caller:
    """Who is calling: the memory (scope) the connection is bound to, its role, and the name
    the audit trail records."""

    scope: str
    role: Role
    actor: str


Runner = Callable[["Memory", Caller, dict[str, Any]], dict[str, Any]]


def compact_json(payload: Any) -> str:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class Tool:
    """One tool: `run` makes the structured answer, `text` the text content beside it (compact
    JSON of the whole answer unless the tool set words it otherwise)."""

    name: str
    title: str
    description: str
    schema: dict[str, Any]
    role: Role
    run: Runner
    read_only: bool = True
    destructive: bool = False
    idempotent: bool | None = None  # None: as read_only
    open_world: bool = False
    output_schema: dict[str, Any] | None = None
    text: Callable[[dict[str, Any]], str] = compact_json


class Resources(Protocol):
    """The resources a tool set offers beside its tools."""

    def listed(self, caller: Caller) -> list[types.Resource]: ...

    def templates(self, caller: Caller) -> list[types.ResourceTemplate]: ...

    def read(self, memory: Memory, caller: Caller, uri: str) -> str:
        """The resource's JSON text; NotFound for an unknown uri."""
        ...


class NoResources:
    def listed(self, caller: Caller) -> list[types.Resource]:
        return []

    def templates(self, caller: Caller) -> list[types.ResourceTemplate]:
        return []

    def read(self, memory: Memory, caller: Caller, uri: str) -> str:
        raise NotFound(f"unknown resource {uri!r}")


def coded(code: str, message: str) -> str:
    """factgraph's error text: the code, then the message."""
    return f"{code}: {message}"


def plain(code: str, message: str) -> str:
    """The knowledge-graph servers' error text: the message alone."""
    return message


@dataclass(frozen=True)
class ToolSet:
    name: str  # as `factgraph mcp --tools` and /mcp/<name> say it
    title: str
    tools: tuple[Tool, ...]
    resources: Resources
    instructions: str | None = None
    error_text: Callable[[str, str], str] = coded

    @property
    def by_name(self) -> dict[str, Tool]:
        return {tool.name: tool for tool in self.tools}

    def prefixed(self, namespace: str) -> ToolSet:
        """The same tools named `<namespace>-<name>`, as mcp-neo4j-memory's `--namespace` names
        them (a trailing '-' is not doubled); the set itself for an empty namespace."""
        if not namespace:
            return self
        prefix = namespace if namespace.endswith("-") else namespace + "-"
        renamed = tuple(dataclasses.replace(tool, name=prefix + tool.name) for tool in self.tools)
        return dataclasses.replace(self, tools=renamed)
