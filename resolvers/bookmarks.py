"""Read-your-writes across replicas of the service: the `X-Neo4j-Bookmark` round trip.

Behind a load balancer, a client's write may be served by one replica and its next read by
another, whose Neo4j session knows nothing of the write. A request that wrote answers with the
bookmark of its writes, in the `X-Neo4j-Bookmark` response header and, for GraphQL, in the
response's `extensions.neo4jBookmark` (the header is easy to lose behind GraphQL client
libraries). A client that sends the value back in `X-Neo4j-Bookmark` is read, on whichever
replica answers, at no older a state than its write (graph/bookmarks.py does the Neo4j side).
"""

from __future__ import annotations

from typing import Any

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from strawberry.extensions import SchemaExtension

from graph import bookmarks
from graph.errors import ValidationError
from resolvers.observe import send_error


class CausalConsistency:
    """Read the client's bookmarks into the request's context; hand back the new one.

    A plain ASGI middleware so the context variable it sets is the one the route's worker
    threads inherit (Starlette and anyio copy the context into them).
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        try:
            sent = bookmarks.parse(Headers(scope=scope).getlist(bookmarks.HEADER))
        except ValidationError as exc:
            await send_error(scope, send, 400, exc.code, str(exc))
            return
        with bookmarks.request_scope(sent) as request:

            async def send_with_bookmark(message: Message) -> None:
                if message["type"] == "http.response.start":
                    value = request.to_return()
                    if value is not None:
                        MutableHeaders(scope=message)[bookmarks.HEADER] = value
                await send(message)

            await self.app(scope, receive, send_with_bookmark)


class BookmarkExtension(SchemaExtension):
    """`extensions.neo4jBookmark` on a GraphQL answer whose operation wrote."""

    def get_results(self) -> dict[str, Any]:
        request = bookmarks.current()
        value = request.to_return() if request is not None else None
        return {bookmarks.EXTENSION: value} if value is not None else {}
