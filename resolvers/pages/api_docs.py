"""The REST API's documentation page at /docs: Swagger UI over this server's /openapi.json.

mem0's self-hosted server has FastAPI's page at /docs, and people switching from it look there.
FastAPI's page loads Swagger UI from a CDN; this one serves the files from the npm package
`swagger-ui-dist` committed under resolvers/pages/static/swagger-ui (its README.md says which
version and how to refresh it), so it works on a machine without internet. Like the console,
the page holds no data and is served without a key; its "Try it out" calls meet the keys and
roles of any client.
"""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

DOCS_PATH = "/docs"
ASSETS_DIR = Path(__file__).parent / "static" / "swagger-ui"

# Only its own scripts, and calls to its own origin. Swagger UI sets inline styles and draws
# some icons as data: images.
_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; "
        "frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


async def page(_: Request) -> Response:
    return FileResponse(ASSETS_DIR / "index.html", media_type="text/html", headers=_HEADERS)


async def slash(_: Request) -> Response:
    return RedirectResponse(DOCS_PATH)


class _Assets(StaticFiles):
    """Swagger UI's script and style sheet, and the page's own script."""

    def file_response(self, *args: object, **kwargs: object) -> Response:
        response = super().file_response(*args, **kwargs)  # type: ignore[arg-type]
        response.headers.update(_HEADERS)
        return response


routes = [
    Route(DOCS_PATH, page, methods=["GET", "HEAD"]),
    Route(f"{DOCS_PATH}/", slash, methods=["GET", "HEAD"]),
    Mount(f"{DOCS_PATH}/assets", app=_Assets(directory=ASSETS_DIR), name="docs-assets"),
]
