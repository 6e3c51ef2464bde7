"""GraphQL's half of read-your-writes: the bookmark of a write in the answer's `extensions`,
where GraphQL client libraries keep it (the header half is `resolvers.http.bookmarks`)."""

from __future__ import annotations

from typing import Any

from strawberry.extensions import SchemaExtension

from graph.storage import bookmarks
from resolvers.http.bookmarks import signed


class BookmarkExtension(SchemaExtension):
    """`extensions.neo4jBookmark` on a GraphQL answer whose operation wrote."""

    async def get_results(self) -> dict[str, Any]:
        request = bookmarks.current()
        wrote = request.to_return() if request is not None else frozenset()
        if not wrote:
            return {}
        value = await signed(self.execution_context.context["request"].app.state, wrote)
        return {bookmarks.EXTENSION: value} if value is not None else {}
