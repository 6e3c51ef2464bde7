"""The console: a web page for people at /console, built on the public GraphQL API only.

Plain HTML, CSS and ES modules committed under resolvers/pages/static/console and served as they
are: no build step, no Node, nothing from a CDN, so the page works on a machine without
internet. The page holds no data and no secret of its own (the API key stays in the browser's
session storage), so it is served without a key; every call it makes goes through /graphql and
meets the same keys and roles as any other client.
"""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import BaseRoute, Route

from resolvers.pages._static_page import page_routes

CONSOLE_PATH = "/console"
CONSOLE_DIR = Path(__file__).parent / "static" / "console"
ICON_DIR = Path(__file__).parent / "static"

# The page may run only its own scripts and styles and talk only to its own origin: a fact's
# text is shown as text, and this is the second fence should that ever slip.
_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}
_ICON_HEADERS = {"Cache-Control": "public, max-age=86400", "X-Content-Type-Options": "nosniff"}


async def favicon(request: Request) -> Response:
    """The service's icon, so that no page load (the console's, a browser's own request for
    /favicon.ico on any page) ends in a 404: ICO at /favicon.ico, SVG at /favicon.svg."""
    name = request.url.path.removeprefix("/")
    media_type = "image/svg+xml" if name.endswith(".svg") else "image/x-icon"
    return FileResponse(ICON_DIR / name, media_type=media_type, headers=_ICON_HEADERS)


routes: list[BaseRoute] = [
    Route("/favicon.ico", favicon, methods=["GET", "HEAD"]),
    Route("/favicon.svg", favicon, methods=["GET", "HEAD"]),
    *page_routes(CONSOLE_PATH, CONSOLE_DIR, _HEADERS, name="console"),
]
