"""Which request paths are mem0's: the middlewares treat them as data routes (API keys) and
answer their errors with mem0's `detail` beside factgraph's `error`."""

from __future__ import annotations

# mem0's platform API versions its routes at the root: /v1/ping/, /v3/memories/add/, ...
PREFIXES = ("/v1/", "/v2/", "/v3/")
# mem0's open-source server: /memories, /memories/{id}, /memories/{id}/history, /search, /reset,
# /entities, /entities/{type}/{id}.
OSS_ROOTS = ("/memories", "/search", "/reset", "/entities")


def is_mem0_path(path: str) -> bool:
    return path.startswith(PREFIXES) or _oss_root(path) is not None


def route_label(path: str) -> str:
    """A bounded metrics label: the version and the collection (`/v1/memories`), never an id."""
    root = _oss_root(path)
    if root is not None:
        return root
    return "/" + "/".join(path.strip("/").split("/")[:2])


def _oss_root(path: str) -> str | None:
    return next((r for r in OSS_ROOTS if path == r or path.startswith(f"{r}/")), None)
