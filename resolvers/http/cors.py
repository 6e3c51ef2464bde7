"""Browsers on other origins: CORS for the configured ones, and no WebSocket for the rest.

A page served from its own origin (a console on http://localhost:3000) may only read
factgraph's answers if factgraph says so. `Cors` says so for the origins in
FACTGRAPH_CORS_ORIGINS and for nobody else: a request from any other origin passes through
untouched, with no CORS header at all (a preflight then gets the route's own 405), so the
browser blocks it. The allowed request headers are the ones factgraph reads (the key, the
REST scope, the bookmark, the request id, MCP's session); the exposed response headers are
the ones a client needs back (the bookmark of its writes, the request id, Retry-After).

WebSockets have no CORS: a browser opens one to any address and lets the page read it. With
keys off on loopback, any web site the user visits could then subscribe to local memory
(cross-site WebSocket hijacking). strawberry's view refuses the handshake (403) of a WebSocket
whose Origin is neither the service itself nor one of the same allowed origins
(`allowed_origins`, set in resolvers/app.py); clients that are not browsers send no Origin.
"""

from __future__ import annotations

from collections.abc import Sequence

from starlette.datastructures import Headers
from starlette.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp, Receive, Scope, Send

from graph.storage import bookmarks

ALLOWED_METHODS = ("GET", "POST", "DELETE")
ALLOWED_HEADERS = (
    "Authorization",
    "Content-Type",
    "X-API-Key",
    "X-Scope",
    bookmarks.HEADER,
    "X-Request-ID",
    "Mcp-Session-Id",
    "Mcp-Protocol-Version",
    "Last-Event-ID",
)
EXPOSED_HEADERS = (
    bookmarks.HEADER,
    "X-Request-ID",
    "Retry-After",
    "WWW-Authenticate",
    "Mcp-Session-Id",
)
# Seconds a browser may reuse a preflight answer (Chromium caps it at 7200).
PREFLIGHT_MAX_AGE = 600


class Cors(CORSMiddleware):
    """Starlette's CORS for allowed origins only; everyone else is served as if it were off.

    Starlette's own middleware answers a disallowed preflight with a 400 that still carries
    CORS headers, and adds Expose-Headers to any response with an Origin. Neither is
    harmful, but "no CORS header unless allowed" is simpler to reason about and to test.
    """

    def __init__(self, app: ASGIApp, origins: Sequence[str]) -> None:
        super().__init__(
            app,
            allow_origins=tuple(origins),
            allow_methods=ALLOWED_METHODS,
            allow_headers=ALLOWED_HEADERS,
            expose_headers=EXPOSED_HEADERS,
            # Keys travel in headers, never in cookies: no credentials mode.
            allow_credentials=False,
            # The operator named these origins: a public page may reach a private address.
            allow_private_network=True,
            max_age=PREFLIGHT_MAX_AGE,
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            origin = Headers(scope=scope).get("origin")
            if origin is not None and self.is_allowed_origin(origin):
                await super().__call__(scope, receive, send)
                return
        await self.app(scope, receive, send)
