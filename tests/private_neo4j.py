"""A second, private local Neo4j for tests that must not touch the suite's shared server."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from graph.config import Settings
from tests.live_server import free_port


def private_settings(settings: Settings, home: Path) -> Settings:
    """The suite's settings pointed at a small server of its own under `home`, on free ports
    (its store, schema and vector index can be emptied or dropped without other tests seeing)."""
    local = replace(
        settings.local,
        home=home,
        bolt_port=free_port(),
        http_port=free_port(),
        heap="512m",
        pagecache="64m",
    )
    return replace(settings, local=local, neo4j_uri=None)
