"""The Neo4j Browser's style sheet and guide for factgraph, served for `:style` and `:play`.

Facts have no `name`-like property, so the Browser captions them with cut-off metadata;
the GRASS sheet captions them with their status and text. The Browser fetches both from
its own page (another origin), hence the permissive CORS header on these two static files.
"""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import Route

BROWSER_DIR = Path(__file__).parent / "static" / "browser"
STYLE_PATH = "/neo4j-browser/style.grass"
GUIDE_PATH = "/neo4j-browser/guide.html"


async def style(request: Request) -> Response:
    return FileResponse(
        BROWSER_DIR / "factgraph.grass",
        media_type="text/plain; charset=utf-8",
        headers={"Access-Control-Allow-Origin": "*"},
    )


async def guide(request: Request) -> Response:
    return FileResponse(
        BROWSER_DIR / "guide.html",
        media_type="text/html; charset=utf-8",
        headers={"Access-Control-Allow-Origin": "*"},
    )


routes = [Route(STYLE_PATH, style), Route(GUIDE_PATH, guide)]
