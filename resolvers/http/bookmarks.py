"""Read-your-writes across replicas of the service: the `X-Neo4j-Bookmark` round trip.

Behind a load balancer, a client's write may be served by one replica and its next read by
another, whose Neo4j session knows nothing of the write. A request that wrote answers with the
bookmark of its writes, in the `X-Neo4j-Bookmark` response header and, for GraphQL, in the
response's `extensions.neo4jBookmark` (`resolvers.graphql.bookmarks`; the header is easy to lose
behind GraphQL client libraries). A client that sends the value back in `X-Neo4j-Bookmark` is read,
on whichever replica answers, at no older a state than its write (graph/storage/bookmarks.py does
the Neo4j side).
Values are signed by the service, and anything else is refused before Neo4j is asked (see
`graph.storage.bookmarks.Signer` for why).
"""

from __future__ import annotations

import logging
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from graph.errors import DatabaseUnavailable, ValidationError
from graph.memory import Memory
from graph.storage import bookmarks
from resolvers.http.observe import send_error

log = logging.getLogger("factgraph.http")


class CausalConsistency:
    """Read the client's bookmarks into the request's context; hand back the new one.

    A plain ASGI middleware so the context variable it sets is the one the route's worker
    threads inherit (Starlette and anyio copy the context into them). Bookmarks are signed
    (`graph.storage.bookmarks.Signer`); its key is read from Neo4j on first use, on a worker thread,
    and kept for the process.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        lines = Headers(scope=scope).getlist(bookmarks.HEADER)
        try:
            sent = (await signer_of(scope["app"].state)).verify(lines) if lines else []
        except ValidationError as exc:
            await send_error(scope, send, 400, exc.code, str(exc))
            return
        except DatabaseUnavailable as exc:
            await send_error(scope, send, 503, exc.code, str(exc), retry_after="5")
            return
        with bookmarks.request_scope(sent) as request:

            async def send_with_bookmark(message: Message) -> None:
                if message["type"] == "http.response.start":
                    wrote = request.to_return()
                    if wrote:
                        value = await signed(scope["app"].state, wrote)
                        if value is not None:
                            MutableHeaders(scope=message)[bookmarks.HEADER] = value
                await send(message)

            await self.app(scope, receive, send_with_bookmark)


async def signer_of(state: Any) -> bookmarks.Signer:
    """The app's signer; loading it (once per process) reads Neo4j, off the event loop."""
    memory: Memory = state.memory
    loaded = memory.db.loaded_signer
    return loaded if loaded is not None else await run_in_threadpool(memory.db.signer)


async def signed(state: Any, wrote: frozenset[str]) -> str | None:
    """The header value for a request's writes; None (no header) if the key cannot be read,
    which leaves the client reading at its replica's own pace, not failing a done write."""
    try:
        return (await signer_of(state)).sign(wrote)
    except DatabaseUnavailable:
        log.warning("no bookmark returned: the signing key could not be read")
        return None
