"""A light client of the factgraph memory service (httpx only).

from factgraph_client import Client
with Client("http://127.0.0.1:8000", scope="me", api_key="...") as fg:
    fg.remember("Ana lives in Lisbon", subject="Ana", predicate="lives_in", object="Lisbon")
    hits = fg.search("where does Ana live?").hits
"""

from factgraph_client.client import AsyncClient, Client
from factgraph_client.errors import (
    AuthError,
    FactgraphError,
    NotFoundError,
    UnavailableError,
    ValidationError,
)
from factgraph_client.types import (
    Decision,
    Fact,
    FactPage,
    MemoryInput,
    SearchHit,
    SearchResult,
    Standing,
)

__all__ = [
    "AsyncClient",
    "AuthError",
    "Client",
    "Decision",
    "Fact",
    "FactPage",
    "FactgraphError",
    "MemoryInput",
    "NotFoundError",
    "SearchHit",
    "SearchResult",
    "Standing",
    "UnavailableError",
    "ValidationError",
]
