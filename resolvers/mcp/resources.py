"""factgraph's own MCP resources: the review queue (admins) and any fact by id (a template)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import mcp_types as types

from graph.auth.roles import check_role
from graph.errors import NotFound
from resolvers.mcp import shapes
from resolvers.mcp.tools import BY_NAME
from resolvers.mcp.toolset import Caller, compact_json

if TYPE_CHECKING:
    from graph.memory import Memory

FACT_URI = "factgraph://facts/{id}"
REVIEW_URI = "factgraph://review-queue"
_FACT_PREFIX = FACT_URI.removesuffix("{id}")


class FactgraphResources:
    def listed(self, caller: Caller) -> list[types.Resource]:
        if caller.role < BY_NAME["review_queue"].role:
            return []
        return [
            types.Resource(
                name="review-queue",
                title="Facts awaiting review",
                uri=REVIEW_URI,
                description="Quarantined facts of this memory, oldest first (first 100).",
                mime_type="application/json",
            )
        ]

    def templates(self, caller: Caller) -> list[types.ResourceTemplate]:
        return [
            types.ResourceTemplate(
                name="fact",
                title="A fact",
                uri_template=FACT_URI,
                description="One fact of this memory by id, as the get tool returns it.",
                mime_type="application/json",
            )
        ]

    def read(self, memory: Memory, caller: Caller, uri: str) -> str:
        payload: dict[str, Any]
        if uri == REVIEW_URI:
            check_role(caller.role, BY_NAME["review_queue"].role)
            payload = shapes.review_queue(memory.review_queue(caller.scope, first=100))
        elif uri.startswith(_FACT_PREFIX):
            fact_id = uri.removeprefix(_FACT_PREFIX)
            found = memory.get(caller.scope, fact_id)
            if found is None:
                raise NotFound(f"no fact {fact_id!r} in this memory")
            payload = {"fact": shapes.full(found)}
        else:
            raise NotFound(f"unknown resource {uri!r}")
        return compact_json(payload)
