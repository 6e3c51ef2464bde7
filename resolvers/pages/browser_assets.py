"""The Neo4j Browser's style sheet and guide for factgraph, served for `:style` and `:play`.

Facts have no `name`-like property, so the Browser captions them with cut-off metadata;
the GRASS sheet captions them with their status and text. The Browser fetches both from
its own page (another origin), hence the permissive CORS headers on these two static files.
Its fetches to `localhost` carry a `sentry-trace` header (the Browser's error reporting), so
Chromium sends a CORS preflight first: the OPTIONS answer below is what lets the Browser's
`browser.post_connect_cmd` apply the sheet at all (bench/browser_screenshot.py shows it).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import Route

BROWSER_DIR = Path(__file__).parent / "static" / "browser"
STYLE_PATH = "/neo4j-browser/style.grass"
GUIDE_PATH = "/neo4j-browser/guide.html"
_CORS = {"Access-Control-Allow-Origin": "*"}


def _preflight(request: Request) -> Response:
    """Allow the GET whatever headers the page adds; these files are public and static."""
    headers = {
        **_CORS,
        "Access-Control-Allow-Methods": "GET, HEAD, OPTIONS",
        "Access-Control-Max-Age": "600",
    }
    asked = request.headers.get("access-control-request-headers")
    if asked:
        headers["Access-Control-Allow-Headers"] = asked
    if request.headers.get("access-control-request-private-network") == "true":
        headers["Access-Control-Allow-Private-Network"] = "true"
    return Response(status_code=204, headers=headers)


def _serve(file_name: str, media_type: str) -> Callable[[Request], Awaitable[Response]]:
    """A public static file, readable from the Browser's own origin."""

    async def endpoint(request: Request) -> Response:
        if request.method == "OPTIONS":
            return _preflight(request)
        return FileResponse(BROWSER_DIR / file_name, media_type=media_type, headers=_CORS)

    return endpoint


_METHODS = ["GET", "HEAD", "OPTIONS"]
routes = [
    Route(STYLE_PATH, _serve("factgraph.grass", "text/plain; charset=utf-8"), methods=_METHODS),
    Route(GUIDE_PATH, _serve("guide.html", "text/html; charset=utf-8"), methods=_METHODS),
]
