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

from resolvers.pages._static_page import page_routes

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


routes = page_routes(DOCS_PATH, ASSETS_DIR, _HEADERS, name="docs")
