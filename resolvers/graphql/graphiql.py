"""GraphiQL without a CDN: strawberry's page, pointed at assets this service serves itself.

strawberry's GraphiQL page loads React and GraphiQL from unpkg.com; on a server without
internet it stays at "Loading...". The same files (byte for byte, so the page's integrity
hashes still hold) are committed under resolvers/graphql/static/graphiql and served at ASSETS_PATH.
A first visit opens on one factgraph query (DEFAULT_QUERY) instead of GraphiQL's stock welcome.
"""

from __future__ import annotations

import json
from pathlib import Path

from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

ASSETS_PATH = "/graphiql-assets"
ASSETS_DIR = Path(__file__).parent / "static" / "graphiql"

# unpkg URL in strawberry's page -> the committed file serving it.
_LOCAL = {
    "https://unpkg.com/react@18.2.0/umd/react.production.min.js": "react.production.min.js",
    "https://unpkg.com/react-dom@18.2.0/umd/react-dom.production.min.js": (
        "react-dom.production.min.js"
    ),
    "https://unpkg.com/js-cookie@3.0.5/dist/js.cookie.min.js": "js.cookie.min.js",
    "https://unpkg.com/graphiql@3.8.3/graphiql.min.css": "graphiql.min.css",
    "https://unpkg.com/graphiql@3.8.3/graphiql.min.js": "graphiql.min.js",
    "https://unpkg.com/@graphiql/plugin-explorer@1.0.2/dist/style.css": "plugin-explorer.css",
    "https://unpkg.com/@graphiql/plugin-explorer@1.0.2/dist/index.umd.js": (
        "plugin-explorer.umd.js"
    ),
}

# What GraphiQL shows in a new tab: a query that runs as is and answers on an empty database.
DEFAULT_QUERY = """# factgraph: memory for AI agents. Run it: the play button or Ctrl-Enter.
# Every call names a scope; the quickstart (README.md) writes to "quickstart".
# The documentation: docs/graphql.md. A web page for people: /console.
{
  health { ok neo4jVersion embedder }
  search(scope: "quickstart", query: "where does Alice work?") {
    hits { score relevance fact { id text status validFrom } }
    standing { similarity fact { text } }
  }
}
"""
_QUERY_PROP = "query: query,"


def offline_page(html: str) -> str:
    """strawberry's GraphiQL page with every CDN URL replaced by the local copy.

    Fails loudly when strawberry's page names a URL we have no copy of (a strawberry upgrade
    changed versions): a page that silently falls back to the CDN is the bug this fixes.
    """
    for remote, name in _LOCAL.items():
        html = html.replace(remote, f"{ASSETS_PATH}/{name}")
    if html.count(_QUERY_PROP) != 1:
        raise RuntimeError("strawberry's GraphiQL page changed: no place for factgraph's query")
    html = html.replace(_QUERY_PROP, f"{_QUERY_PROP} defaultQuery: {json.dumps(DEFAULT_QUERY)},")
    if "https://unpkg.com" in html:
        raise RuntimeError(
            "strawberry's GraphiQL page names unpkg.com assets factgraph does not serve; "
            "update resolvers/graphql/static/graphiql and resolvers/graphql/graphiql.py"
        )
    return html


def assets_route() -> Mount:
    return Mount(ASSETS_PATH, app=StaticFiles(directory=ASSETS_DIR), name="graphiql-assets")
