"""Which request paths are mem0's: the middlewares treat them as data routes (API keys) and
answer their errors with mem0's `detail` beside factgraph's `error`."""

from __future__ import annotations

# mem0's platform API versions its routes at the root: /v1/ping/, /v3/memories/add/, ...
PREFIXES = ("/v1/", "/v2/", "/v3/")


def is_mem0_path(path: str) -> bool:
    return path.startswith(PREFIXES)


def route_label(path: str) -> str:
    """A bounded metrics label: the version and the collection (`/v1/memories`), never an id."""
    return "/" + "/".join(path.strip("/").split("/")[:2])
