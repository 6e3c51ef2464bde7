"""Neo4j's two version lines and what differs between them for factgraph.

5.26 is the last semantic-versioned LTS; from 2025.01 on Neo4j is versioned by calendar
(`2026.08.1`). What factgraph needs to know of a version: which Java runs it
(graph/platform/java_runtime.py), the server's main class, the Browser build to pair with it, and
whether the Cypher `SEARCH` clause filters vector candidates inside the index (2026.01+), which
picks the Cypher files of that generation (graph/storage/cypher.py, `cypher/neo4j2026/`).
"""

from __future__ import annotations

import re
from typing import NamedTuple

# The first calendar version whose SEARCH clause takes in-index filters (WHERE on properties
# the vector index declares WITH [...]); db.index.vector.queryNodes is deprecated from 2026.04.
SEARCH_FILTERS_FROM = (2026, 1)


class NeoVersion(NamedTuple):
    major: int
    minor: int
    patch: int

    @property
    def calendar(self) -> bool:
        """A calendar version (2025.01 and later), as opposed to 5.x."""
        return self.major >= 2025

    @property
    def in_index_filters(self) -> bool:
        """Whether the server's vector SEARCH filters on the index's extra properties."""
        return (self.major, self.minor) >= SEARCH_FILTERS_FROM

    @property
    def entry_point(self) -> str:
        """The main class the distribution's `bin/neo4j` launches."""
        if self.calendar:
            return "org.neo4j.server.Neo4jCommunity"
        return "org.neo4j.server.CommunityEntryPoint"

    @property
    def jvm_options(self) -> tuple[str, ...]:
        """JVM flags the distribution's launcher adds (its neo4j.conf `server.jvm.additional`)
        that Java 21+ needs: neo4j-admin's importer reads direct buffers by reflection and fails
        without the java.nio opening. Java 17 runs 5.26 without them."""
        if not self.calendar:
            return ()
        return (
            "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "--add-opens=java.base/java.io=ALL-UNNAMED",
            "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
            "--enable-native-access=ALL-UNNAMED",
            "-Dio.netty.tryReflectionSetAccessible=true",
            "-Djdk.nio.maxCachedBufferSize=1024",
        )

    def __str__(self) -> str:
        if self.calendar:
            return f"{self.major}.{self.minor:02d}.{self.patch}"
        return f"{self.major}.{self.minor}.{self.patch}"


def parse(text: str) -> NeoVersion:
    """`5.26.30`, `2026.08.1` (and a server's `2026.08.1` or `5.26.0-aura`) as a NeoVersion."""
    match = re.match(r"^\s*(\d+)\.(\d+)(?:\.(\d+))?", text)
    if match is None:
        raise ValueError(f"not a Neo4j version: {text!r} (expected e.g. 5.26.30 or 2026.08.1)")
    return NeoVersion(int(match.group(1)), int(match.group(2)), int(match.group(3) or 0))
