"""factgraph's REST API under /api/v1/: search and memories, described in /openapi.json."""
